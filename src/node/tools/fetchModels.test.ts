import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { planDownload, remotePack } from '../../engine/pack/hub';
import {
  type PackByteStore,
  type PackDownloadState,
  PackDownloadError,
  continuePackDownload,
  newDownloadState,
  planPackDownload,
} from '../../engine/pack/packDownload';
import { FakeHub } from './fakeHub';
import { fetchPack } from './fetchModels';

/** A repo in the layout of Xenova/clip-vit-base-patch32, with made-up bytes (every variant). */
function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-repo-'));
  mkdirSync(join(dir, 'onnx'));
  const pack = remotePack('clip-vit-base-patch32')!;
  pack.configFiles.forEach((f, i) => writeFileSync(join(dir, f), `{"file": ${i}}`));
  let i = 0;
  for (const model of pack.models) {
    for (const suffix of ['', '_quantized', '_fp16']) writeFileSync(join(dir, 'onnx', `${model}${suffix}.onnx`), Buffer.alloc(200_000 + 1371 * i, ++i));
  }
  return dir;
}

/** The page's store, in memory: files as byte arrays, the state as a copy. */
function memoryStore(): PackByteStore & { files: Map<string, Buffer> } {
  const files = new Map<string, Buffer>();
  let state: PackDownloadState | null = null;
  return {
    files,
    readState: async () => (state ? structuredClone(state) : null),
    writeState: async (s) => {
      state = structuredClone(s);
    },
    storedBytes: async (_id, path) => files.get(path)?.length ?? 0,
    openAppend: async (_id, path, keep) => {
      files.set(path, (files.get(path) ?? Buffer.alloc(0)).subarray(0, keep));
      return { write: async (chunk) => void files.set(path, Buffer.concat([files.get(path)!, chunk])), close: async () => undefined };
    },
    readFile: async (_id, path) => new Uint8Array(files.get(path)!),
    removeFile: async (_id, path) => void files.delete(path),
  };
}

describe('pack downloads against a fake hub', () => {
  const repoDir = makeRepo();
  const hub = new FakeHub([{ repo: 'Xenova/clip-vit-base-patch32', dir: repoDir }]);
  const pack = remotePack('clip-vit-base-patch32')!;
  const fetchImpl = (url: string, init: { headers?: Record<string, string> }) => fetch(url, init);
  let url: string;
  beforeAll(async () => {
    url = await hub.start();
  });
  afterAll(() => hub.close());
  beforeEach(() => hub.reset());

  async function start(dtypes: ('q8' | 'fp16' | 'fp32')[] = ['q8', 'fp32']) {
    const plan = await planPackDownload(pack, url, dtypes, fetchImpl);
    return newDownloadState(pack, url, plan, '2026-11-23T00:00:00Z');
  }

  it('plans the variant the execution plan runs, with the sizes and hashes the tree lists', async () => {
    const state = await start(['q8', 'fp32']);
    expect(state.files.map((f) => f.path)).toEqual([...pack.configFiles, 'onnx/text_model_quantized.onnx', 'onnx/vision_model_quantized.onnx']);
    expect(state.dtypes).toEqual({ text_model: 'q8', vision_model: 'q8' });
    const listed = new Map(hub.filesOf(pack.repo).map((f) => [f.path, f]));
    expect(state.files.map((f) => f.bytes)).toEqual(state.files.map((f) => listed.get(f.path)!.bytes));
    // The hub gives a SHA-256 for LFS files (the models), not for the small JSON files.
    expect(state.files.filter((f) => f.sha256).map((f) => f.path)).toEqual(['onnx/text_model_quantized.onnx', 'onnx/vision_model_quantized.onnx']);
    expect((await start(['fp16', 'fp32'])).dtypes).toEqual({ text_model: 'fp16', vision_model: 'fp16' });
  });

  it('falls back to fp32 for a repo without the variant, and names a missing file', () => {
    const tree = new Map([...pack.configFiles, 'onnx/text_model.onnx', 'onnx/vision_model.onnx'].map((p) => [p, { bytes: 10 }]));
    const plan = planDownload(pack, tree, ['q8', 'fp32']);
    expect('files' in plan && plan.dtypes).toEqual({ text_model: 'fp32', vision_model: 'fp32' });
    tree.delete('tokenizer.json');
    expect(planDownload(pack, tree, ['q8'])).toEqual({ missing: 'tokenizer.json' });
  });

  it('downloads every file through the redirect and checks them', async () => {
    const store = memoryStore();
    const seen: string[] = [];
    const done = await continuePackDownload(await start(), { store, fetch: fetchImpl, onProgress: (p) => seen.push(`${p.file} ${p.loaded}/${p.total}`) });
    expect(done.status).toBe('complete');
    expect(done.files.every((f) => f.done)).toBe(true);
    for (const f of done.files) expect(store.files.get(f.path)!.equals(readFileSync(join(repoDir, f.path)))).toBe(true);
    // The models were redirected to the CDN path, as the real hub does with LFS files.
    expect(hub.requests.filter((r) => r.status === 302).map((r) => r.path)).toEqual([
      `/${pack.repo}/resolve/main/onnx/text_model_quantized.onnx`,
      `/${pack.repo}/resolve/main/onnx/vision_model_quantized.onnx`,
    ]);
    expect(seen.at(-1)).toBe(`onnx/vision_model_quantized.onnx ${done.files.at(-1)!.bytes}/${done.files.at(-1)!.bytes}`);
  });

  it('resumes a cut transfer with a Range request from the bytes stored', async () => {
    const store = memoryStore();
    const state = await start();
    hub.faults.cutAfter.set('onnx/vision_model_quantized.onnx', 70_000);
    const error = await continuePackDownload(state, { store, fetch: fetchImpl }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackDownloadError);
    expect((error as PackDownloadError).kind).toBe('interrupted');
    expect((error as PackDownloadError).message).toMatch(
      /^The download of onnx\/vision_model_quantized\.onnx broke off after .* What arrived is kept: Resume continues from it\.$/,
    );
    const stored = store.files.get('onnx/vision_model_quantized.onnx')!.length;
    expect(stored).toBeGreaterThanOrEqual(65_536);
    hub.requests.length = 0;
    const done = await continuePackDownload((await store.readState(pack.id)) ?? state, { store, fetch: fetchImpl });
    expect(done.status).toBe('complete');
    expect(hub.requests.map((r) => `${r.path} ${r.range} ${r.status}`)).toEqual([
      `/${pack.repo}/resolve/main/onnx/vision_model_quantized.onnx bytes=${stored}- 302`,
      `/cdn/${pack.repo}/onnx/vision_model_quantized.onnx bytes=${stored}- 206`,
    ]);
    expect(store.files.get('onnx/vision_model_quantized.onnx')!.equals(readFileSync(join(repoDir, 'onnx/vision_model_quantized.onnx')))).toBe(true);
  });

  it('starts a file over when the server ignores the Range', async () => {
    const store = memoryStore();
    const state = await start();
    hub.faults.cutAfter.set('onnx/text_model_quantized.onnx', 70_000);
    await continuePackDownload(state, { store, fetch: fetchImpl }).catch(() => undefined);
    hub.faults.ignoreRange = true;
    const done = await continuePackDownload((await store.readState(pack.id))!, { store, fetch: fetchImpl });
    expect(done.status).toBe('complete');
    expect(store.files.get('onnx/text_model_quantized.onnx')!.equals(readFileSync(join(repoDir, 'onnx/text_model_quantized.onnx')))).toBe(true);
  });

  it('deletes a file whose hash is wrong, and says so', async () => {
    const store = memoryStore();
    hub.faults.damaged.add('onnx/text_model_quantized.onnx');
    const error = (await continuePackDownload(await start(), { store, fetch: fetchImpl }).catch((e: unknown) => e)) as PackDownloadError;
    expect(error.kind).toBe('mismatch');
    expect(error.message).toBe(
      "onnx/text_model_quantized.onnx arrived damaged (its SHA-256 is not the one the hub lists), so it was deleted. Resume downloads it again; if it happens again, the mirror's copy is damaged.",
    );
    expect(store.files.has('onnx/text_model_quantized.onnx')).toBe(false);
  });

  it('names a file the hub does not have', async () => {
    const state = await start();
    hub.faults.notFound.add('tokenizer.json');
    const error = (await continuePackDownload(state, { store: memoryStore(), fetch: fetchImpl }).catch((e: unknown) => e)) as PackDownloadError;
    expect(error.kind).toBe('not-found');
    expect(error.message).toBe(
      `${url.slice(7)} has no file tokenizer.json in Xenova/clip-vit-base-patch32 (HTTP 404). Check the hub address in Settings: a mirror must hold the whole repo.`,
    );
  });

  it('models:fetch writes every variant into models/<id>, resumes after a cut, and leaves nothing half-done in models/<id>', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'models-'));
    hub.faults.cutAfter.set('onnx/vision_model_fp16.onnx', 100_000);
    await expect(fetchPack('clip-vit-base-patch32', { modelsDir, hub: url })).rejects.toThrow(/^The download of onnx\/vision_model_fp16\.onnx broke off after/);
    expect(existsSync(join(modelsDir, 'clip-vit-base-patch32'))).toBe(false);
    hub.requests.length = 0;
    const { dir, files } = await fetchPack('clip-vit-base-patch32', { modelsDir, hub: url });
    expect(files.map((f) => f.path).sort()).toEqual(
      hub
        .filesOf(pack.repo)
        .map((f) => f.path)
        .sort(),
    );
    for (const f of files) expect(readFileSync(join(dir, f.path)).equals(readFileSync(join(repoDir, f.path)))).toBe(true);
    // The second run asked only for what was missing.
    expect(hub.requests.filter((r) => !r.path.startsWith('/api/')).map((r) => r.path)).toEqual([
      `/${pack.repo}/resolve/main/onnx/vision_model_fp16.onnx`,
      `/cdn/${pack.repo}/onnx/vision_model_fp16.onnx`,
      `/${pack.repo}/resolve/main/onnx/text_model.onnx`,
      `/cdn/${pack.repo}/onnx/text_model.onnx`,
      `/${pack.repo}/resolve/main/onnx/vision_model.onnx`,
      `/cdn/${pack.repo}/onnx/vision_model.onnx`,
    ]);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { kind: string; files: unknown[] };
    expect(manifest.kind).toBe('clip');
    expect(existsSync(join(modelsDir, '.download', 'clip-vit-base-patch32'))).toBe(false);
  });

  it('fails with a clear message when the hub cannot be reached', async () => {
    // Port 9 (discard) on loopback: connection refused at once, as with no network.
    await expect(fetchPack('clip-vit-base-patch32', { modelsDir: mkdtempSync(join(tmpdir(), 'models-')), hub: 'http://127.0.0.1:9' })).rejects.toThrow(
      /^Could not reach 127\.0\.0\.1:9 \(/,
    );
  });

  it('gives up on a hub that accepts the connection but never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      await expect(
        fetchPack('clip-vit-base-patch32', { modelsDir: mkdtempSync(join(tmpdir(), 'models-')), hub: `http://127.0.0.1:${port}`, answerTimeoutMs: 300 }),
      ).rejects.toThrow(`Could not reach 127.0.0.1:${port} (no answer within 0.3 s).`);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses unknown packs by listing the known ones', async () => {
    await expect(fetchPack('gpt-7', { modelsDir: tmpdir(), hub: url })).rejects.toThrow(
      'Unknown pack "gpt-7". Known packs: clip-vit-base-patch32, vit-gpt2-image-captioning.',
    );
  });
});
