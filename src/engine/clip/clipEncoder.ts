import { nowMs } from '../clock';
import { hashText } from '../pool/contentHash';
import { EngineError } from '../errors';
import { clipPixelValues } from '../image/clipPreprocess';
import type { RgbaImage } from '../image/rgbaImage';
import type { ClipTower, ExecutionPlan } from '../onnx/executionPlan';
import { type ModelSpec, ModelSessions, type SessionsOptions, type SessionsState, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { type ClipImageConfig, type ClipPackConfig, parseClipConfig, parseImageConfig } from '../pack/packConfig';
import { ClipTokenizer } from './tokenizer';

/** The execution provider of a pack's two towers and why. */
export type BackendState = SessionsState<ClipTower>;

export interface LoadTimings {
  totalMs: number;
  sessionMs: number;
}

export type LoadOptions = Omit<SessionsOptions<ClipTower>, 'missingAdvice'>;

const TOWERS: readonly ModelSpec<ClipTower>[] = [
  { key: 'text_model', file: 'text_model', label: 'text encoder' },
  { key: 'vision_model', file: 'vision_model', label: 'image encoder' },
];

/** Files every CLIP pack has (Hugging Face / Transformers.js layout). */
export const PACK_CONFIG_FILES = ['config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

/**
 * CLIP's two towers over onnxruntime-web, with the tokenizer and image preprocessing of the pack.
 * If WebGPU fails when the sessions are created or during a run, the towers are reloaded on WASM
 * and the request is retried, so callers only see the backend change, not the failure.
 */
export class ClipEncoder {
  private constructor(
    readonly config: ClipPackConfig,
    readonly imageConfig: ClipImageConfig,
    readonly tokenizer: ClipTokenizer,
    private readonly sessions: ModelSessions<ClipTower>,
    readonly timings: LoadTimings,
    /** Changes whenever the embeddings could change (configs, tokenizer, weights): keys the pool's embedding cache. */
    readonly fingerprint: string,
  ) {}

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
    const sessions = await ModelSessions.load(source, files, TOWERS, plan, {
      ...options,
      missingAdvice: 'the model pack cannot be loaded. Restore the pack (see README, "Model packs") and reload.',
    });
    const end = nowMs();
    const fingerprint = hashText(JSON.stringify([configJson, imageJson, tokenizerJson, tokenizerConfig, sessions.fileHashes]));
    return new ClipEncoder(config, imageConfig, tokenizer, sessions, { totalMs: end - start, sessionMs: end - sessionStart }, fingerprint);
  }

  get backend(): BackendState {
    return this.sessions.state;
  }

  /** Raw (unnormalized) text_embeds, one per text. */
  async encodeTexts(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batch = this.tokenizer.encodeBatch(texts);
    const shape = [batch.batchSize, batch.sequenceLength];
    const results = await this.sessions.run('text_model', () => ({
      input_ids: new ort.Tensor('int64', batch.inputIds, shape),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, shape),
    }));
    return splitRows(floatOutput(results, 'text_embeds', 'a CLIP text model'), texts.length);
  }

  /** Raw image_embeds from pixel_values [n, 3, H, W] that were already preprocessed. */
  async encodePixelValues(pixelValues: Float32Array, count: number): Promise<Float32Array[]> {
    if (count === 0) return [];
    const { cropHeight, cropWidth } = this.imageConfig;
    const results = await this.sessions.run('vision_model', () => ({
      pixel_values: new ort.Tensor('float32', pixelValues, [count, 3, cropHeight, cropWidth]),
    }));
    return splitRows(floatOutput(results, 'image_embeds', 'a CLIP vision model'), count);
  }

  /** Raw image_embeds of decoded images (CLIP preprocessing included). */
  async encodeImages(images: readonly RgbaImage[]): Promise<Float32Array[]> {
    return this.encodePixelValues(clipPixelValues(images, this.imageConfig), images.length);
  }

  /** Moves to WASM after WebGPU failed outside a run (for example, the GPU device was lost). */
  fallBackToWasm(failure: string): Promise<void> {
    return this.sessions.fallBackToWasm(failure);
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}

function splitRows(data: Float32Array, rows: number): Float32Array[] {
  const dim = data.length / rows;
  return Array.from({ length: rows }, (_, r) => data.slice(r * dim, (r + 1) * dim));
}
