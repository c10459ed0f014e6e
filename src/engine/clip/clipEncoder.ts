import { nowMs } from '../clock';
import { hashText } from '../pool/contentHash';
import { EngineError } from '../errors';
import { clipPixelValues } from '../image/clipPreprocess';
import type { RgbaImage } from '../image/rgbaImage';
import type { ClipTower, ExecutionPlan } from '../onnx/executionPlan';
import { float32ToFloat16Bits } from '../onnx/float16';
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

export type LoadOptions = Omit<SessionsOptions<ClipTower>, 'missingAdvice'> & {
  /** Run one text through the text tower while loading (default true); tests of the first run turn it off. */
  warmUp?: boolean;
};

const TOWERS: readonly ModelSpec<ClipTower>[] = [
  { key: 'text_model', file: 'text_model', label: 'text encoder' },
  { key: 'vision_model', file: 'vision_model', label: 'image encoder' },
];

/**
 * What the object detector said about an image, for image towers that take it as input (mini-clip
 * v2 declares the inputs below; a real CLIP's vision model does not, and is fed pixels only).
 */
export interface ImageGrounding {
  /** The grounded caption, or null when nothing was found with confidence. */
  caption: string | null;
  /** The strongest detection's score, 0 when there is none. */
  score: number;
}

const GROUNDING_INPUTS = { embeds: 'grounding_embeds', score: 'grounding_score' } as const;

/** Files every CLIP pack has (Hugging Face / Transformers.js layout). */
const PACK_CONFIG_FILES = ['config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

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
        throw new EngineError(
          'pack-file-missing',
          `${source.location}${required} is missing, so the model pack cannot be loaded. ${source.repairAdvice ?? 'Restore the pack (see docs/models.md, "Model packs") and reload.'}`,
        );
      }
    }
    const [configJson, imageJson, tokenizerJson, tokenizerConfig] = await Promise.all(PACK_CONFIG_FILES.map((file) => readPackJson(source, file)));
    const config = parseClipConfig(configJson);
    const imageConfig = parseImageConfig(imageJson);
    const tokenizer = new ClipTokenizer(tokenizerJson, tokenizerConfig, config.maxTextLength);
    const sessionStart = nowMs();
    const sessions = await ModelSessions.load(source, files, TOWERS, plan, {
      ...options,
      missingAdvice: `the model pack cannot be loaded. ${source.repairAdvice ?? 'Restore the pack (see docs/models.md, "Model packs") and reload.'}`,
    });
    const fingerprint = hashText(JSON.stringify([configJson, imageJson, tokenizerJson, tokenizerConfig, sessions.fileHashes]));
    const timings = { totalMs: 0, sessionMs: 0 };
    const encoder = new ClipEncoder(config, imageConfig, tokenizer, sessions, timings, fingerprint);
    // The first run of a session pays for onnxruntime's allocations and the tokenizer's first pass
    // (100-270 ms measured): paid here, during load, so the first text after Ready is as fast as any.
    // A failure here is left to the first real run, which reports it (or falls back to WASM) where it is handled.
    if (options.warmUp ?? true) await encoder.encodeTexts(['a photo']).catch(() => undefined);
    const end = nowMs();
    Object.assign(timings, { totalMs: end - start, sessionMs: end - sessionStart });
    return encoder;
  }

  get backend(): BackendState {
    return this.sessions.state;
  }

  /** Raw (unnormalized) text_embeds, one per text. */
  async encodeTexts(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batch = this.tokenizer.encodeBatch(texts);
    const shape = [batch.batchSize, batch.sequenceLength];
    // Xenova's export takes input_ids only: padding is end-of-text after the pooled token, and the mask is causal.
    const takesMask = this.sessions.inputNames('text_model').includes('attention_mask');
    const results = await this.sessions.run('text_model', () => ({
      input_ids: new ort.Tensor('int64', batch.inputIds, shape),
      ...(takesMask ? { attention_mask: new ort.Tensor('int64', batch.attentionMask, shape) } : {}),
    }));
    return splitRows(floatOutput(results, 'text_embeds', 'a CLIP text model'), texts.length);
  }

  /** Whether the image tower takes what the object detector found (mini-clip v2 does; real CLIP does not). */
  get takesGrounding(): boolean {
    return this.sessions.inputNames('vision_model').includes(GROUNDING_INPUTS.embeds);
  }

  /**
   * Raw image_embeds from pixel_values [n, 3, H, W] that were already preprocessed. A tower that
   * takes grounding gets each image's grounded caption as this pack's text embedding of it, and its
   * detection score; without them it sees "nothing found" and answers from the pixels alone.
   */
  async encodePixelValues(pixelValues: Float32Array, count: number, grounding?: readonly ImageGrounding[]): Promise<Float32Array[]> {
    if (count === 0) return [];
    if (grounding && grounding.length !== count) throw new EngineError('invalid-input', 'encodePixelValues: one grounding per image is needed.');
    const { cropHeight, cropWidth } = this.imageConfig;
    const groundingFeeds = this.takesGrounding
      ? await this.groundingFeeds(grounding ?? Array.from({ length: count }, () => ({ caption: null, score: 0 })))
      : {};
    const results = await this.sessions.run('vision_model', () => ({
      pixel_values:
        this.sessions.inputType('vision_model', 'pixel_values') === 'float16'
          ? new ort.Tensor('float16', float32ToFloat16Bits(pixelValues), [count, 3, cropHeight, cropWidth])
          : new ort.Tensor('float32', pixelValues, [count, 3, cropHeight, cropWidth]),
      ...groundingFeeds,
    }));
    return splitRows(floatOutput(results, 'image_embeds', 'a CLIP vision model'), count);
  }

  /** Raw image_embeds of decoded images (CLIP preprocessing included). */
  async encodeImages(images: readonly RgbaImage[], grounding?: readonly ImageGrounding[]): Promise<Float32Array[]> {
    return this.encodePixelValues(clipPixelValues(images, this.imageConfig), images.length, grounding);
  }

  /** A caption of null is fed as an all-zero embedding, so the tower's grounding branch adds nothing. */
  private async groundingFeeds(grounding: readonly ImageGrounding[]): Promise<Record<string, ort.Tensor>> {
    const dim = this.config.projectionDim;
    const captioned = grounding.flatMap((g, i) => (g.caption === null ? [] : [{ i, caption: g.caption }]));
    const embeds = new Float32Array(grounding.length * dim);
    (await this.encodeTexts(captioned.map((c) => c.caption))).forEach((e, j) => embeds.set(e, captioned[j]!.i * dim));
    return {
      [GROUNDING_INPUTS.embeds]: new ort.Tensor('float32', embeds, [grounding.length, dim]),
      [GROUNDING_INPUTS.score]: new ort.Tensor(
        'float32',
        Float32Array.from(grounding, (g) => (g.caption === null ? 0 : g.score)),
        [grounding.length, 1],
      ),
    };
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
