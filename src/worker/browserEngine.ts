import { ClipEncoder } from '../engine/clip/clipEncoder';
import { EngineError, errorMessage } from '../engine/errors';
import { type BackendCapabilities, chooseExecutionPlan } from '../engine/onnx/executionPlan';
import { configureWasm, ort } from '../engine/onnx/ortSessions';
import { parseTextPool } from '../engine/pool/textPool';
import { TextPoolIndex, nearestTextReply } from '../engine/reply/nearestReply';
import { nowMs } from '../engine/clock';
import { decodeImage } from './decodeImage';
import { FetchPackSource } from './fetchPackSource';
import type { WorkerEngine } from './requestHandler';
import type { BackendState } from './protocol';

async function detectCapabilities(forceWasm: boolean): Promise<BackendCapabilities> {
  const base = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency || 1, forceWasm };
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (forceWasm || !gpu) return { ...base, webgpuAdapter: false, shaderF16: false };
  try {
    const adapter = await gpu.requestAdapter();
    return { ...base, webgpuAdapter: adapter !== null, shaderF16: adapter?.features.has('shader-f16') ?? false };
  } catch {
    return { ...base, webgpuAdapter: false, shaderF16: false };
  }
}

/** The engine as the browser worker runs it: packs over fetch, images via createImageBitmap. */
export class BrowserEngine implements WorkerEngine {
  private encoder: ClipEncoder | null = null;
  private pool: TextPoolIndex | null = null;

  async loadPack(params: Parameters<WorkerEngine['loadPack']>[0], onProgress: Parameters<WorkerEngine['loadPack']>[1], onBackend: (b: BackendState) => void) {
    const start = nowMs();
    const caps = await detectCapabilities(params.forceWasm);
    const plan = chooseExecutionPlan(caps);
    configureWasm(plan.wasmThreads);
    await this.encoder?.release();
    this.encoder = null;
    this.pool = null;
    const encoder = await ClipEncoder.load(new FetchPackSource(params.pack.baseUrl), params.pack.files, plan, { onProgress, onBackendChange: onBackend });
    if (encoder.backend.provider === 'webgpu') this.watchDeviceLoss(encoder);
    const poolResponse = await fetch(params.poolUrl).catch(() => null);
    if (!poolResponse?.ok) throw new EngineError('pack-file-missing', `The candidate pool ${params.poolUrl} could not be loaded. Reload the page.`);
    const pool = parseTextPool(await poolResponse.json(), params.poolUrl);
    this.pool = await TextPoolIndex.build(encoder, pool.texts);
    this.encoder = encoder;
    return { packId: params.pack.id, backend: encoder.backend, loadMs: nowMs() - start, poolSize: this.pool.size, projectionDim: encoder.config.projectionDim };
  }

  async checkImage(params: Parameters<WorkerEngine['checkImage']>[0]) {
    const { header } = await decodeImage(params.image);
    return header;
  }

  async reply(params: Parameters<WorkerEngine['reply']>[0]) {
    const { encoder, pool } = this.ready();
    const start = nowMs();
    const images = await Promise.all(params.images.map(async (image) => (await decodeImage(image)).pixels));
    const decodeMs = nowMs() - start;
    const reply = await nearestTextReply(encoder, pool, { texts: params.texts, images });
    return {
      text: reply.text,
      score: reply.score,
      candidates: reply.candidates.map(({ text, score }) => ({ text, score })),
      timings: { ...reply.timings, decodeMs, totalMs: nowMs() - start },
      backend: encoder.backend,
    };
  }

  async encodeTexts(params: Parameters<WorkerEngine['encodeTexts']>[0]) {
    const { encoder } = this.ready();
    const embeddings = await encoder.encodeTexts(params.texts);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  async encodeImages(params: Parameters<WorkerEngine['encodeImages']>[0]) {
    const { encoder } = this.ready();
    const images = await Promise.all(params.images.map(async (image) => (await decodeImage(image)).pixels));
    const embeddings = await encoder.encodeImages(images);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  private ready(): { encoder: ClipEncoder; pool: TextPoolIndex } {
    if (!this.encoder || !this.pool) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return { encoder: this.encoder, pool: this.pool };
  }

  /** A lost GPU device (driver reset, tab in background on some systems) moves the pack to WASM. */
  private watchDeviceLoss(encoder: ClipEncoder): void {
    void (async () => {
      try {
        const device = await (ort.env.webgpu as { device?: GPUDevice | Promise<GPUDevice> }).device;
        const info = await device?.lost;
        if (info && this.encoder === encoder) await encoder.fallBackToWasm(`GPU device lost: ${info.message || info.reason}`);
      } catch (error) {
        console.warn('Could not watch the WebGPU device for loss:', errorMessage(error));
      }
    })();
  }
}
