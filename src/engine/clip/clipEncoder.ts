import { nowMs } from '../clock';
import { hashBytes, hashText } from '../pool/contentHash';
import { EngineError, errorMessage } from '../errors';
import { clipPixelValues } from '../image/clipPreprocess';
import type { RgbaImage } from '../image/rgbaImage';
import { type ClipTower, type ExecutionPlan, type ModelDtype, pickOnnxFile, wasmFallbackPlan } from '../onnx/executionPlan';
import { type OrtSession, type SessionFactory, createOrtSession, ort } from '../onnx/ortSessions';
import { type FileProgress, type PackFileSource, readPackJson } from '../pack/fileSource';
import { type ClipImageConfig, type ClipPackConfig, parseClipConfig, parseImageConfig } from '../pack/packConfig';
import { ClipTokenizer } from './tokenizer';

export interface BackendState {
  provider: ExecutionPlan['provider'];
  dtypes: Record<ClipTower, ModelDtype>;
  reason: string;
  /** Set when the pack runs on WASM because WebGPU failed. */
  fallbackFrom: 'webgpu' | null;
}

export interface LoadTimings {
  totalMs: number;
  sessionMs: number;
}

export interface LoadOptions {
  onProgress?: (progress: FileProgress) => void;
  onBackendChange?: (state: BackendState) => void;
  createSession?: SessionFactory;
}

/** Files every CLIP pack has (Hugging Face / Transformers.js layout). */
export const PACK_CONFIG_FILES = ['config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

/**
 * CLIP's two towers over onnxruntime-web, with the tokenizer and image preprocessing of the pack.
 * If WebGPU fails when the sessions are created or during a run, the towers are reloaded on WASM
 * and the request is retried, so callers only see the backend change, not the failure.
 */
export class ClipEncoder {
  private sessions: Record<ClipTower, OrtSession>;
  private backendState: BackendState;
  private fallback: Promise<void> | null = null;
  /** onnxruntime-web runs one inference at a time per runtime; runs are queued here. */
  private runQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly config: ClipPackConfig,
    readonly imageConfig: ClipImageConfig,
    readonly tokenizer: ClipTokenizer,
    private readonly source: PackFileSource,
    private readonly packFiles: ReadonlySet<string>,
    private plan: ExecutionPlan,
    private readonly options: LoadOptions,
    loaded: { sessions: Record<ClipTower, OrtSession>; state: BackendState },
    readonly timings: LoadTimings,
    /** Changes whenever the embeddings could change (configs, tokenizer, weights): keys the pool's embedding cache. */
    readonly fingerprint: string,
  ) {
    this.sessions = loaded.sessions;
    this.backendState = loaded.state;
  }

  static async load(source: PackFileSource, packFiles: readonly string[], plan: ExecutionPlan, options: LoadOptions = {}): Promise<ClipEncoder> {
    const start = nowMs();
    const files = new Set(packFiles);
    for (const required of PACK_CONFIG_FILES) {
      if (!files.has(required)) {
        throw new EngineError('pack-file-missing', `${source.location}${required} is missing, so the model pack cannot be loaded. Restore the pack (see README, "Model packs") and reload.`);
      }
    }
    const [configJson, imageJson, tokenizerJson, tokenizerConfig] = await Promise.all(
      PACK_CONFIG_FILES.map((file) => readPackJson(source, file)),
    );
    const config = parseClipConfig(configJson);
    const imageConfig = parseImageConfig(imageJson);
    const tokenizer = new ClipTokenizer(tokenizerJson, tokenizerConfig, config.maxTextLength);
    const sessionStart = nowMs();
    let loaded: LoadedTowers;
    try {
      loaded = await createTowers(source, files, plan, options);
    } catch (error) {
      if (plan.provider !== 'webgpu' || !isBackendFailure(error)) throw error;
      plan = wasmFallbackPlan(plan, errorMessage(error));
      loaded = await createTowers(source, files, plan, options, 'webgpu');
    }
    const end = nowMs();
    const fingerprint = hashText(JSON.stringify([configJson, imageJson, tokenizerJson, tokenizerConfig, loaded.fileHashes]));
    return new ClipEncoder(config, imageConfig, tokenizer, source, files, plan, options, loaded, {
      totalMs: end - start,
      sessionMs: end - sessionStart,
    }, fingerprint);
  }

  get backend(): BackendState {
    return this.backendState;
  }

  /** Raw (unnormalized) text_embeds, one per text. */
  async encodeTexts(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batch = this.tokenizer.encodeBatch(texts);
    const shape = [batch.batchSize, batch.sequenceLength];
    const output = await this.run('text_model', () => ({
      input_ids: new ort.Tensor('int64', batch.inputIds, shape),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, shape),
    }), 'text_embeds');
    return splitRows(output, texts.length);
  }

  /** Raw image_embeds from pixel_values [n, 3, H, W] that were already preprocessed. */
  async encodePixelValues(pixelValues: Float32Array, count: number): Promise<Float32Array[]> {
    if (count === 0) return [];
    const { cropHeight, cropWidth } = this.imageConfig;
    const output = await this.run('vision_model', () => ({
      pixel_values: new ort.Tensor('float32', pixelValues, [count, 3, cropHeight, cropWidth]),
    }), 'image_embeds');
    return splitRows(output, count);
  }

  /** Raw image_embeds of decoded images (CLIP preprocessing included). */
  async encodeImages(images: readonly RgbaImage[]): Promise<Float32Array[]> {
    return this.encodePixelValues(clipPixelValues(images, this.imageConfig), images.length);
  }

  /** Moves to WASM after WebGPU failed outside a run (for example, the GPU device was lost). */
  async fallBackToWasm(failure: string): Promise<void> {
    if (this.backendState.provider !== 'webgpu') return;
    this.fallback ??= (async () => {
      this.plan = wasmFallbackPlan(this.plan, failure);
      const loaded = await createTowers(this.source, this.packFiles, this.plan, this.options, 'webgpu');
      const old = this.sessions;
      this.sessions = loaded.sessions;
      this.backendState = loaded.state;
      await Promise.allSettled([old.text_model.release(), old.vision_model.release()]);
    })().finally(() => {
      this.fallback = null;
    });
    await this.fallback;
  }

  async release(): Promise<void> {
    await Promise.allSettled([this.sessions.text_model.release(), this.sessions.vision_model.release()]);
  }

  private run(tower: ClipTower, feeds: () => Record<string, ort.Tensor>, outputName: string): Promise<Float32Array> {
    const result = this.runQueue.then(() => this.runNow(tower, feeds, outputName));
    this.runQueue = result.catch(() => undefined);
    return result;
  }

  private async runNow(tower: ClipTower, feeds: () => Record<string, ort.Tensor>, outputName: string): Promise<Float32Array> {
    if (this.fallback) await this.fallback;
    try {
      return await runSession(this.sessions[tower], feeds(), outputName);
    } catch (error) {
      if (this.backendState.provider !== 'webgpu') throw runError(tower, error);
      await this.fallBackToWasm(errorMessage(error));
      return await runSession(this.sessions[tower], feeds(), outputName).catch((e: unknown) => {
        throw runError(tower, e);
      });
    }
  }
}

function runError(tower: ClipTower, error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  return new EngineError('backend-failed', `The ${tower === 'text_model' ? 'text' : 'image'} encoder failed: ${errorMessage(error)}. Reload the page; if it happens again, switch to WASM in settings.`, { cause: error });
}

async function runSession(session: OrtSession, feeds: Record<string, ort.Tensor>, outputName: string): Promise<Float32Array> {
  const results = await session.run(feeds);
  const output = results[outputName];
  if (!output) throw new EngineError('pack-file-corrupt', `The model has no output named "${outputName}"; this is not a CLIP-format pack.`);
  const data = output.data;
  if (!(data instanceof Float32Array)) throw new EngineError('pack-file-corrupt', `The model's "${outputName}" is ${output.type}, not float32.`);
  return data;
}

function splitRows(data: Float32Array, rows: number): Float32Array[] {
  const dim = data.length / rows;
  return Array.from({ length: rows }, (_, r) => data.slice(r * dim, (r + 1) * dim));
}

/** Errors from onnxruntime itself (not from reading files) are what a WASM retry can cure. */
function isBackendFailure(error: unknown): boolean {
  return !(error instanceof EngineError) || error.code === 'backend-failed';
}

async function createTowers(
  source: PackFileSource,
  files: ReadonlySet<string>,
  plan: ExecutionPlan,
  options: LoadOptions,
  fallbackFrom: 'webgpu' | null = null,
): Promise<LoadedTowers> {
  const createSession = options.createSession ?? createOrtSession;
  const towers: ClipTower[] = ['text_model', 'vision_model'];
  const picked = towers.map((tower) => {
    const choice = pickOnnxFile(tower, plan.dtypes, files);
    if (!choice) {
      throw new EngineError('pack-file-missing', `${source.location}onnx/${tower}.onnx is missing, so the model pack cannot be loaded. Restore the pack (see README, "Model packs") and reload.`);
    }
    return choice;
  });
  const settled = await Promise.allSettled(
    picked.map(async ({ file }) => {
      const bytes = await source.readBytes(file, options.onProgress);
      const hash = `${file}:${hashBytes(bytes)}`;
      try {
        return { session: await createSession(bytes, plan.provider), hash };
      } catch (cause) {
        if (plan.provider === 'webgpu') throw cause; // the caller retries on WASM
        throw new EngineError('pack-file-corrupt', `${source.location}${file} could not be loaded as an ONNX model (${errorMessage(cause)}). The file is damaged or incomplete: restore it and reload.`, { cause });
      }
    }),
  );
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    // Do not leak the tower that did load: the caller may retry on another provider.
    await Promise.allSettled(settled.map((r) => (r.status === 'fulfilled' ? r.value.session.release() : undefined)));
    throw failure.reason;
  }
  const loaded = settled.map((r) => (r as PromiseFulfilledResult<{ session: OrtSession; hash: string }>).value);
  const sessions = loaded.map((l) => l.session);
  const state: BackendState = {
    provider: plan.provider,
    dtypes: { text_model: picked[0]!.dtype, vision_model: picked[1]!.dtype },
    reason: plan.reason,
    fallbackFrom,
  };
  options.onBackendChange?.(state);
  return { sessions: { text_model: sessions[0]!, vision_model: sessions[1]! }, state, fileHashes: loaded.map((l) => l.hash) };
}

interface LoadedTowers {
  sessions: Record<ClipTower, OrtSession>;
  state: BackendState;
  fileHashes: string[];
}
