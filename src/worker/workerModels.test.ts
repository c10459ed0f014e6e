import 'fake-indexeddb/auto';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../engine/errors';
import { chooseExecutionPlan } from '../engine/onnx/executionPlan';
import type { FileProgress } from '../engine/pack/fileSource';
import { FsPackSource } from '../node/tools/fsPackSource';
import type { WorkerMethods } from '../protocol/protocol';
import { WorkerModels } from './workerModels';

const WASM = () => chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });

/** The packs under /models/ and the demo pool and its dialogues from public/, as the page's server serves them. */
let server: { baseUrl: string; close: () => void };
beforeAll(async () => {
  const http = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = path.startsWith('/models/') ? join('models', path.slice('/models/'.length)) : join('public', path);
    readFile(file).then(
      (bytes) => response.end(bytes),
      () => {
        response.statusCode = 404;
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  server = { baseUrl: `http://127.0.0.1:${(http.address() as { port: number }).port}/`, close: () => http.close() };
});
afterAll(() => server.close());

async function loadParams(): Promise<WorkerMethods['loadPack']['params']> {
  return {
    pack: { id: 'mini-clip', baseUrl: `${server.baseUrl}models/mini-clip/`, files: [...(await new FsPackSource(join('models', 'mini-clip')).listFiles())] },
    // With the detector, as the page loads it: the pool's shipped rows were made through it (their fingerprint says so).
    detector: { baseUrl: `${server.baseUrl}models/detector/`, files: [...(await new FsPackSource(join('models', 'detector')).listFiles())] },
    pool: { kind: 'demo', baseUrl: `${server.baseUrl}pool/` },
    forceWasm: true,
  };
}

/** A call's context that cancels it when `cancelWhen` first says so of a progress report. */
function cancelledAt(cancelWhen: (progress: FileProgress) => boolean) {
  const controller = new AbortController();
  const seen: string[] = [];
  return {
    seen,
    context: {
      signal: controller.signal,
      progress: (p: FileProgress) => {
        seen.push(p.file);
        if (!controller.signal.aborted && cancelWhen(p)) controller.abort('cancelled');
      },
    },
  };
}

/** How a handler ends when its call is cancelled: with the signal's reason, or the engine's own sentence saying it stopped (the request handler answers the page 'cancelled' either way). */
const stopped = (error: unknown) => error === 'cancelled' || (error instanceof EngineError && error.code === 'cancelled');

/** BM25 on the pool's shipped counts: its reply does not move while the pool's CLIP rows are computed after Ready. */
const hello = (): WorkerMethods['reply']['params'] => ({ history: [], texts: ['I love my dog'], images: [], method: 'bm25' });
const running = () => ({ signal: new AbortController().signal, progress: () => undefined });

describe("the worker's owner of the pack and its pool (WorkerModels, in Node on the shipped mini-clip and demo pool)", () => {
  it('stops loadPack when its call is cancelled while the pool loads, keeps no half-made pool, then loads on the next call; a cancelled usePool keeps the pool in use', async () => {
    const models = new WorkerModels(async () => WASM());
    const params = await loadParams();

    // Cancelled before it starts: nothing is loaded.
    await expect(models.loadPack(params, { signal: AbortSignal.abort('cancelled'), progress: () => undefined })).rejects.toBe('cancelled');
    await expect(models.reply(hello(), running())).rejects.toThrow('The model is still loading');

    // Cancelled once the towers are made and the pool's files are being read.
    const duringPool = cancelledAt((p) => p.file.startsWith('pool '));
    expect(stopped(await models.loadPack(params, duringPool.context).catch((error: unknown) => error))).toBe(true);
    expect(duringPool.seen.some((file) => file.startsWith('pool '))).toBe(true);
    await expect(models.reply(hello(), running())).rejects.toThrow('The model is still loading');

    const loaded = await models.loadPack(params, running());
    expect(loaded.pool.poolId).toBe('demo');
    const before = await models.reply(hello(), running());
    expect(before.elements.length).toBeGreaterThan(0);

    // usePool cancelled while it reads the pool: the pool in use stays, and replies as before.
    const switching = cancelledAt((p) => p.file.startsWith('pool '));
    expect(stopped(await models.usePool({ pool: params.pool }, switching.context).catch((error: unknown) => error))).toBe(true);
    const after = await models.reply(hello(), running());
    expect(after.elements.map((e) => e.kind === 'text' && e.text)).toEqual(before.elements.map((e) => e.kind === 'text' && e.text));
  }, 180_000);
});
