import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { errorMessage } from '../engine/errors';

/**
 * Downloads a CLIP pack from the Hugging Face hub into models/<id>/: resumable (HTTP Range on a
 * staging copy), sizes checked, a manifest written last, and the finished folder moved into place
 * in one rename, so models/<id> is either complete or absent.
 */
export interface RemotePack {
  id: string;
  repo: string;
  name: string;
  description: string;
  license: string;
  files: string[];
}

const CLIP_TOWER_VARIANTS = ['text_model', 'vision_model'].flatMap((tower) => ['', '_quantized', '_fp16'].map((suffix) => `onnx/${tower}${suffix}.onnx`));

export const REMOTE_PACKS: Record<string, RemotePack> = {
  'clip-vit-base-patch32': {
    id: 'clip-vit-base-patch32',
    repo: 'Xenova/clip-vit-base-patch32',
    name: 'CLIP ViT-B/32 (OpenAI)',
    description: 'The real CLIP ViT-B/32 (openai/clip-vit-base-patch32), Transformers.js ONNX port: 512-d embeddings.',
    license: 'MIT (OpenAI CLIP)',
    files: ['config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json', ...CLIP_TOWER_VARIANTS],
  },
};

export const DEFAULT_HUB = 'https://huggingface.co';

export interface FetchOptions {
  modelsDir: string;
  /** Hub address; the HF_ENDPOINT environment variable overrides the default, as in Hugging Face's tools. */
  hub?: string;
  /** How long to wait for the hub to answer before giving up. */
  connectTimeoutMs?: number;
  onProgress?: (file: string, loaded: number, total: number) => void;
  fetchImpl?: typeof fetch;
}

export class FetchPackError extends Error {
  override name = 'FetchPackError';
}

function fileUrl(hub: string, repo: string, file: string): string {
  return `${hub.replace(/\/$/, '')}/${repo}/resolve/main/${file}`;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function sha256(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}

/** Downloads one file into `target`, resuming from what `target` already holds. */
async function downloadFile(url: string, target: string, file: string, options: Required<Pick<FetchOptions, 'connectTimeoutMs'>> & FetchOptions): Promise<number> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const have = await sizeOf(target);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${options.connectTimeoutMs / 1000} s`)), options.connectTimeoutMs);
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: controller.signal, redirect: 'follow' });
  } catch (error) {
    const cause = errorMessage(error instanceof Error && error.cause instanceof Error ? error.cause : error);
    throw new FetchPackError(`Could not reach ${new URL(url).host} (${cause}).`);
  } finally {
    clearTimeout(timer);
  }
  if (response.status === 416 && have > 0) return have; // already complete
  if (!response.ok) throw new FetchPackError(`${url} answered HTTP ${response.status}.`);
  const resumed = response.status === 206;
  const length = Number(response.headers.get('content-length') ?? NaN);
  const total = resumed ? have + length : length;
  if (!resumed && have > 0) await rm(target); // the server ignored the range: start over
  const out = createWriteStream(target, { flags: resumed ? 'a' : 'w' });
  let loaded = resumed ? have : 0;
  try {
    if (!response.body) throw new FetchPackError(`${url} sent no data.`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch((error: unknown) => {
        throw new FetchPackError(`The download of ${file} broke off after ${loaded} of ${total} bytes (${errorMessage(error)}). Run the command again to resume.`);
      });
      if (done) break;
      loaded += value.length;
      if (!out.write(value)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      options.onProgress?.(file, loaded, Number.isFinite(total) ? total : loaded);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  if (Number.isFinite(total) && loaded !== total) {
    throw new FetchPackError(`The download of ${file} broke off after ${loaded} of ${total} bytes. Run the command again to resume.`);
  }
  return loaded;
}

export async function fetchPack(id: string, options: FetchOptions): Promise<{ dir: string; files: { path: string; bytes: number; sha256: string }[] }> {
  const pack = REMOTE_PACKS[id];
  if (!pack) throw new FetchPackError(`Unknown pack "${id}". Known packs: ${Object.keys(REMOTE_PACKS).join(', ')}.`);
  const hub = options.hub ?? process.env['HF_ENDPOINT'] ?? DEFAULT_HUB;
  const finalDir = join(options.modelsDir, pack.id);
  if (existsSync(join(finalDir, 'manifest.json'))) throw new FetchPackError(`${finalDir} is already complete. Delete it first to download it again.`);
  // Work in a hidden staging folder: the app only lists folders with config.json, never this one.
  const staging = join(options.modelsDir, '.download', pack.id);
  const opts = { ...options, connectTimeoutMs: options.connectTimeoutMs ?? 8000 };
  const files: { path: string; bytes: number; sha256: string }[] = [];
  try {
    for (const file of pack.files) {
      const target = join(staging, file);
      await mkdir(dirname(target), { recursive: true });
      const bytes = await downloadFile(fileUrl(hub, pack.repo, file), target, file, opts);
      files.push({ path: file, bytes, sha256: await sha256(target) });
    }
  } catch (error) {
    // Keep partial files for the next run to resume; drop the staging folder if nothing arrived.
    const arrived = await Promise.all(pack.files.map((f) => sizeOf(join(staging, f))));
    if (arrived.every((n) => n === 0)) await rm(join(options.modelsDir, '.download'), { recursive: true, force: true });
    throw error;
  }
  const manifest = { name: pack.name, description: pack.description, license: pack.license, source: `${hub}/${pack.repo}`, fetchedAt: new Date().toISOString(), files };
  await writeFile(join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));
  await rm(finalDir, { recursive: true, force: true });
  await rename(staging, finalDir);
  return { dir: finalDir, files };
}
