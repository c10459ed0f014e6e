import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ModelDtype } from '../../engine/onnx/executionPlan';
import { DEFAULT_HUB, REMOTE_PACKS, remotePack } from '../../engine/pack/hub';
import {
  type DownloadProgress,
  type HttpFetch,
  type PackByteStore,
  type PackDownloadPlan,
  type PackDownloadState,
  PackDownloadError,
  continuePackDownload,
  newDownloadState,
  planPackDownload,
} from '../../engine/pack/packDownload';

/**
 * `npm run models:fetch -- <pack>`: downloads a pack from the hub into models/<id>/ with the page's
 * own download code (src/engine/pack/packDownload.ts) over a folder: resumable from
 * models/.download/<id>/, sizes and hashes checked, a manifest written last, and the finished folder
 * moved into place in one rename, so models/<id> is either complete or absent. Unlike the page,
 * which takes the one variant its execution plan runs, it takes every variant the repo has, so the
 * folder serves both WASM and WebGPU.
 */
export { REMOTE_PACKS };

export interface FetchOptions {
  modelsDir: string;
  /** Hub address; the HF_ENDPOINT environment variable overrides the default, as in Hugging Face's tools. */
  hub?: string;
  onProgress?: (progress: DownloadProgress) => void;
  fetchImpl?: HttpFetch;
  /** How long to wait for the hub's first answer (default: the page's). */
  answerTimeoutMs?: number;
}

class FetchPackError extends Error {
  override name = 'FetchPackError';
}

const STATE_FILE = 'download-state.json';

/** A pack's files under one folder; the download state beside them. */
function folderStore(dir: string): PackByteStore {
  const file = (path: string) => join(dir, ...path.split('/'));
  return {
    async readState() {
      try {
        return JSON.parse(await readFile(join(dir, STATE_FILE), 'utf8')) as PackDownloadState;
      } catch {
        return null;
      }
    },
    writeState: async (state) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, STATE_FILE), JSON.stringify(state, null, 2));
    },
    storedBytes: async (_id, path) => (await stat(file(path)).catch(() => null))?.size ?? 0,
    async openAppend(_id, path, keep) {
      await mkdir(dirname(file(path)), { recursive: true });
      if (existsSync(file(path))) await truncate(file(path), keep);
      const out = createWriteStream(file(path), { flags: 'a' });
      return {
        write: (chunk) => new Promise<void>((resolve, reject) => out.write(chunk, (error) => (error ? reject(error) : resolve()))),
        close: () => new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve()))),
      };
    },
    readFile: async (_id, path) => new Uint8Array(await readFile(file(path))),
    removeFile: (_id, path) => rm(file(path), { force: true }),
  };
}

/** Every variant the repo has: one plan per dtype, merged. */
async function planEveryVariant(id: string, hub: string, fetchImpl: HttpFetch, answerTimeoutMs?: number): Promise<PackDownloadPlan> {
  const pack = remotePack(id)!;
  const plans: PackDownloadPlan[] = [];
  for (const dtype of ['q8', 'fp16', 'fp32'] as ModelDtype[]) plans.push(await planPackDownload(pack, hub, [dtype], fetchImpl, undefined, answerTimeoutMs));
  const files = new Map(plans.flatMap((p) => p.files.map((f) => [f.path, f] as const)));
  const unlisted = plans[0]!.unlisted;
  return {
    files: [...files.values()],
    dtypes: plans[0]!.dtypes,
    bytes: [...files.values()].reduce((s, f) => s + (f.bytes ?? 0), 0),
    ...(unlisted ? { unlisted } : {}),
  };
}

export async function fetchPack(id: string, options: FetchOptions): Promise<{ dir: string; files: { path: string; bytes: number; sha256?: string }[] }> {
  const pack = remotePack(id);
  if (!pack) throw new FetchPackError(`Unknown pack "${id}". Known packs: ${REMOTE_PACKS.map((p) => p.id).join(', ')}.`);
  const hub = options.hub ?? process.env['HF_ENDPOINT'] ?? DEFAULT_HUB;
  const fetchImpl: HttpFetch = options.fetchImpl ?? ((url, init) => fetch(url, init as RequestInit));
  const finalDir = join(options.modelsDir, pack.id);
  if (existsSync(join(finalDir, 'manifest.json'))) throw new FetchPackError(`${finalDir} is already complete. Delete it first to download it again.`);
  // Work in a hidden staging folder: the app only lists folders with config.json directly under models/.
  const staging = join(options.modelsDir, '.download', pack.id);
  const store = folderStore(staging);
  try {
    let state = await store.readState(pack.id);
    if (!state || state.hub !== hub)
      state = newDownloadState(pack, hub, await planEveryVariant(id, hub, fetchImpl, options.answerTimeoutMs), new Date().toISOString());
    await store.writeState(state);
    state = await continuePackDownload(state, {
      store,
      fetch: fetchImpl,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
    });
    const files = state.files.map((f) => ({ path: f.path, bytes: f.bytes ?? 0, ...(f.sha256 ? { sha256: f.sha256 } : {}) }));
    const manifest = {
      name: pack.name,
      description: pack.description,
      license: pack.license,
      kind: pack.kind,
      source: `${hub}/${pack.repo}`,
      fetchedAt: new Date().toISOString(),
      files,
    };
    await writeFile(join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));
    await rm(join(staging, STATE_FILE));
    await rm(finalDir, { recursive: true, force: true });
    await rename(staging, finalDir);
    return { dir: finalDir, files };
  } catch (error) {
    if (error instanceof PackDownloadError) throw new FetchPackError(error.message, { cause: error });
    throw error;
  }
}
