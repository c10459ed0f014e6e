/**
 * The page of `npm run bench -- vs-transformers` (served by benchVsTransformers.ts): the engine's
 * ClipEncoder, exactly as the worker loads it (FetchPackSource, the execution plan, the onnxruntime
 * artifacts it picks, configureWasm), and Hugging Face transformers.js as an app would use it (its own
 * import of onnxruntime-web/webgpu, with its default artifacts), on the same pack files, the same
 * backend (WASM) and the same threads, run alternately in one page. Returns times and the embeddings'
 * agreement.
 */
import { AutoProcessor, AutoTokenizer, CLIPTextModelWithProjection, CLIPVisionModelWithProjection, RawImage, Tensor, env } from '@huggingface/transformers';
import { ClipEncoder } from '../../../engine/clip/clipEncoder';
import { chooseExecutionPlan } from '../../../engine/onnx/executionPlan';
import { configureWasm } from '../../../engine/onnx/ortSessions';
import { decodeImage } from '../../../worker/decodeImage';
import { FetchPackSource } from '../../../worker/fetchPackSource';

export interface VsTransformersConfig {
  packId: string;
  files: string[];
  threads: number;
  runs: number;
  texts: string[];
  imageUrls: string[];
}

interface Timed {
  engine: number[];
  transformers: number[];
  cosine: number;
}

export interface VsTransformersResult {
  crossOriginIsolated: boolean;
  threads: number;
  loadMs: { engine: number; transformers: number };
  firstTextMs: { engine: number; transformers: number };
  textsBatch1: Timed;
  textsBatch32: Timed;
  images: Timed;
}

const now = () => performance.now();
/** onnxruntime-web's .wasm and .mjs files as the dev server serves them. */
const ORT_FILES = `${location.origin}/node_modules/onnxruntime-web/dist/`;

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** The smallest cosine between the engine's and the library's embedding of the same inputs. */
function agreement(engine: Float32Array[], library: Float32Array, dim: number): number {
  return Math.min(...engine.map((e, i) => cosine(e, library.subarray(i * dim, (i + 1) * dim))));
}

async function run(config: VsTransformersConfig): Promise<VsTransformersResult> {
  const base = `${location.origin}/models/${config.packId}/`;
  // The engine: the worker's own loading path, WASM with the threads asked for.
  let t = now();
  const plan = chooseExecutionPlan({
    webgpuAdapter: false,
    shaderF16: false,
    crossOriginIsolated: config.threads > 1,
    hardwareConcurrency: config.threads + 1,
    forceWasm: true,
  });
  // The artifacts the worker runs: the bundle's own build.
  configureWasm(plan.wasmThreads, ORT_FILES);
  const encoder = await ClipEncoder.load(new FetchPackSource(base), config.files, plan);
  const engineLoad = now() - t;
  t = now();
  await encoder.encodeTexts([config.texts[0]!]);
  const engineFirst = now() - t;

  // transformers.js: the same files, from this server only, on WASM, the same threads.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = '/models/';
  env.useBrowserCache = false;
  const onnxEnv = env.backends.onnx as { wasm?: { numThreads?: number; wasmPaths?: string } };
  onnxEnv.wasm ??= {};
  onnxEnv.wasm.numThreads = config.threads;
  onnxEnv.wasm.wasmPaths = ORT_FILES;
  t = now();
  const options = { device: 'wasm' as const, dtype: 'fp32' as const };
  const tokenizer = await AutoTokenizer.from_pretrained(config.packId);
  const textModel = await CLIPTextModelWithProjection.from_pretrained(config.packId, options);
  const processor = await AutoProcessor.from_pretrained(config.packId);
  const visionModel = await CLIPVisionModelWithProjection.from_pretrained(config.packId, options);
  const libraryLoad = now() - t;
  const libraryTexts = async (texts: string[]) => {
    const inputs = tokenizer(texts, { padding: true, truncation: true });
    const { text_embeds } = (await textModel(inputs)) as { text_embeds: Tensor };
    return text_embeds;
  };
  t = now();
  await libraryTexts([config.texts[0]!]);
  const libraryFirst = now() - t;

  const dim = (await encoder.encodeTexts(['dim'])).at(0)!.length;
  // Alternating runs, so a slower phase of the machine falls on both alike.
  const alternate = async (engineRun: () => Promise<Float32Array[]>, libraryRun: () => Promise<Float32Array>): Promise<Timed> => {
    const timed: Timed = { engine: [], transformers: [], cosine: 1 };
    for (let i = 0; i < config.runs; i++) {
      t = now();
      const e = await engineRun();
      timed.engine.push(now() - t);
      t = now();
      const l = await libraryRun();
      timed.transformers.push(now() - t);
      if (i === 0) timed.cosine = agreement(e, l, dim);
    }
    return timed;
  };
  const one = [config.texts[1]!];
  const batch = config.texts.slice(0, 32);
  const textsBatch1 = await alternate(
    () => encoder.encodeTexts(one),
    async () => (await libraryTexts(one)).data as Float32Array,
  );
  const textsBatch32 = await alternate(
    () => encoder.encodeTexts(batch),
    async () => (await libraryTexts(batch)).data as Float32Array,
  );

  // Images: from the same encoded file each time, decode included, as a shared photo is handled.
  const blobs = await Promise.all(config.imageUrls.map(async (url) => (await fetch(url)).blob()));
  let next = 0;
  const images = await alternate(
    async () => {
      const blob = blobs[next % blobs.length]!;
      const { pixels } = await decodeImage({ name: 'photo', blob });
      return encoder.encodeImages([pixels]);
    },
    async () => {
      const blob = blobs[next++ % blobs.length]!;
      const image = await RawImage.fromBlob(blob);
      const { pixel_values } = (await processor(image)) as { pixel_values: Tensor };
      // mini-clip's vision tower also takes the detector's grounding; zeros, as the engine feeds without a caption.
      const batchSize = pixel_values.dims[0]!;
      const extra = {
        grounding_embeds: new Tensor('float32', new Float32Array(batchSize * dim), [batchSize, dim]),
        grounding_score: new Tensor('float32', new Float32Array(batchSize), [batchSize, 1]),
      };
      const { image_embeds } = (await visionModel({ pixel_values, ...extra })) as { image_embeds: Tensor };
      return image_embeds.data as Float32Array;
    },
  );
  return {
    crossOriginIsolated: self.crossOriginIsolated,
    threads: config.threads,
    loadMs: { engine: engineLoad, transformers: libraryLoad },
    firstTextMs: { engine: engineFirst, transformers: libraryFirst },
    textsBatch1,
    textsBatch32,
    images,
  };
}

(globalThis as unknown as { runVsTransformers: typeof run }).runVsTransformers = run;
