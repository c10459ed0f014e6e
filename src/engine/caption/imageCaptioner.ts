import type { ImageToTextPipeline } from '@huggingface/transformers';
import { nowMs } from '../clock';
import { EngineError, errorMessage } from '../errors';
import type { RgbaImage } from '../image/rgbaImage';
import type { ExecutionPlan, ModelDtype } from '../onnx/executionPlan';
import { onnxFileName } from '../onnx/executionPlan';
import { ort } from '../onnx/ortSessions';
import { type FileProgress, type PackFileSource, readPackJson } from '../pack/fileSource';

// Present in workers and Node 18+; declared because the engine compiles without DOM types.
declare const Response: new (body: Uint8Array, init: { status: number; headers: Record<string, string> }) => unknown;

/** The files a Transformers.js VisionEncoderDecoder captioning pack (Xenova/vit-gpt2-image-captioning) needs. */
const CAPTIONER_JSON_FILES = ['config.json', 'generation_config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
const CAPTIONER_MODELS = ['encoder_model', 'decoder_model_merged'] as const;

export interface Caption {
  text: string;
  /** The greedy decode, decoder start token included, as transformers.js returns it. */
  tokenIds: number[];
  ms: number;
}

/**
 * The dtype both models are loaded in: the first of the plan's variants (q8 on WASM, fp16 on WebGPU with
 * shader-f16) that the pack has for both, else fp32. Always explicit, because the library's own default on
 * WASM is q8, which a pack without `_quantized` files does not have.
 */
export function chooseCaptionerDtype(plan: Pick<ExecutionPlan, 'dtypes'>, packFiles: ReadonlySet<string>): ModelDtype {
  for (const dtype of plan.dtypes) {
    if (CAPTIONER_MODELS.every((model) => packFiles.has(onnxFileName(model, dtype)))) return dtype;
  }
  return 'fp32';
}

/** Missing files named in one sentence, before the library gets a chance to fail on them one by one. */
function checkCaptionerFiles(location: string, packFiles: ReadonlySet<string>, dtype: ModelDtype): void {
  const missing = [...CAPTIONER_JSON_FILES, ...CAPTIONER_MODELS.map((model) => onnxFileName(model, dtype))].filter((file) => !packFiles.has(file));
  if (missing.length > 0) {
    throw new EngineError(
      'pack-file-missing',
      `The captioner pack ${location} lacks ${missing.join(', ')}, so it cannot caption photos. Download the pack again or remove it.`,
    );
  }
}

interface CaptionerConfig {
  model_type?: unknown;
}

// The library keeps one global env: files are answered from the pack now loading, and nothing is fetched.
const PACK_MODEL_ID = 'pack/captioner';
let currentSource: PackFileSource | null = null;
let onFileProgress: ((progress: FileProgress) => void) | undefined;

type Transformers = typeof import('@huggingface/transformers');
let library: Promise<Transformers> | null = null;

function loadLibrary(): Promise<Transformers> {
  library ??= (async () => {
    // transformers.js points onnxruntime-web at a CDN when no wasmPaths are set: keep ours (the bundled files).
    const wasmPaths = ort.env.wasm.wasmPaths;
    const lib = await import('@huggingface/transformers');
    const { env } = lib;
    // The library's onnxruntime env: ours in the bundle; in Node its own require() of the same package.
    const libraryWasm = (env.backends.onnx as { wasm?: { wasmPaths?: unknown } }).wasm;
    if (libraryWasm) libraryWasm.wasmPaths = wasmPaths;
    ort.env.wasm.wasmPaths = wasmPaths;
    // "Remote" files are answered by customCache from the pack; env.fetch answers 404 for anything else.
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = 'https://pack.invalid/';
    env.useBrowserCache = false;
    env.useFSCache = false;
    env.useWasmCache = false;
    env.fetch = () => Promise.resolve(new Response(new Uint8Array(0), { status: 404, headers: {} }));
    env.useCustomCache = true;
    env.customCache = {
      async match(key: string) {
        const cut = key.indexOf(`${PACK_MODEL_ID}/`);
        if (!currentSource || cut < 0) return undefined;
        const file = key.slice(cut + PACK_MODEL_ID.length + 1).replace(/^resolve\/[^/]+\//, '');
        try {
          const bytes = await currentSource.readBytes(file, onFileProgress);
          return new Response(bytes, { status: 200, headers: { 'content-length': String(bytes.length) } });
        } catch {
          return undefined;
        }
      },
      async put() {},
    } as unknown as typeof env.customCache;
    return lib;
  })();
  return library;
}

/** transformers.js names onnxruntime's WASM backend 'wasm' in its web build and 'cpu' in its Node build. */
function libraryDevice(provider: ExecutionPlan['provider']): 'webgpu' | 'wasm' | 'cpu' {
  if (provider === 'webgpu') return 'webgpu';
  const runtime = globalThis as { process?: { versions?: { node?: string } } };
  return typeof runtime.process?.versions?.node === 'string' ? 'cpu' : 'wasm';
}

/**
 * A Transformers.js image-to-text pack (ViT encoder + GPT-2 decoder with past key values) run by the
 * library's `image-to-text` pipeline on the same onnxruntime-web as the CLIP towers.
 */
export class ImageCaptioner {
  private constructor(
    private readonly pipe: ImageToTextPipeline,
    private readonly lib: Transformers,
    readonly dtype: ModelDtype,
    readonly provider: ExecutionPlan['provider'],
    readonly location: string,
  ) {}

  static async load(
    source: PackFileSource,
    packFiles: ReadonlySet<string>,
    plan: Pick<ExecutionPlan, 'provider' | 'dtypes'>,
    onProgress?: (progress: FileProgress) => void,
  ): Promise<ImageCaptioner> {
    const config = (await readPackJson(source, 'config.json')) as CaptionerConfig;
    if (config.model_type !== 'vision-encoder-decoder') {
      throw new EngineError(
        'pack-config-invalid',
        `${source.location}config.json says model_type ${JSON.stringify(config.model_type)}, not "vision-encoder-decoder", so it is not a captioner pack. Use a Transformers.js image-captioning pack such as Xenova/vit-gpt2-image-captioning.`,
      );
    }
    const dtype = chooseCaptionerDtype(plan, packFiles);
    checkCaptionerFiles(source.location, packFiles, dtype);
    const lib = await loadLibrary();
    currentSource = source;
    onFileProgress = onProgress;
    try {
      const pipe = await lib.pipeline('image-to-text', PACK_MODEL_ID, { device: libraryDevice(plan.provider), dtype });
      return new ImageCaptioner(pipe, lib, dtype, plan.provider, source.location);
    } catch (cause) {
      throw new EngineError(
        'backend-failed',
        `The captioner pack ${source.location} could not be loaded (${errorMessage(cause)}). Photos keep their grounded captions; replace the pack to try again.`,
        { cause },
      );
    } finally {
      currentSource = null;
      onFileProgress = undefined;
    }
  }

  /** Greedy decode (the pack's generation_config: no sampling, its max_length), as the pipeline runs it. */
  async caption(image: RgbaImage): Promise<Caption> {
    const started = nowMs();
    const raw = new this.lib.RawImage(new Uint8ClampedArray(image.data), image.width, image.height, 4).rgb();
    // The pipeline's own steps (processor, generate, decode), kept apart so the token ids can be returned.
    const { pixel_values } = (await this.pipe.processor(raw)) as { pixel_values: InstanceType<Transformers['Tensor']> };
    const output = (await this.pipe.model.generate({ inputs: pixel_values, do_sample: false })) as InstanceType<Transformers['Tensor']>;
    const tokenIds = Array.from(output.data as BigInt64Array, (id) => Number(id));
    const text = this.pipe.tokenizer.decode(tokenIds, { skip_special_tokens: true }).trim();
    return { text, tokenIds, ms: nowMs() - started };
  }

  async dispose(): Promise<void> {
    await this.pipe.dispose();
  }
}
