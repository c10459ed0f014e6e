import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { DETECTOR_CONFIG_FILE } from '../../engine/detection/detectorConfig';
import { DETECTOR_DIR, ObjectDetector } from '../../engine/detection/objectDetector';
import { EngineError } from '../../engine/errors';
import { type ModelDtype, chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { PhotoAnalyzer } from '../../engine/perception/photoAnalyzer';
import { choiceOption } from '../tools/cliArgs';
import { FsPackSource } from '../tools/fsPackSource';
import { loadWasmPack } from '../data/poolFiles';

/**
 * How the Node tools (benchmarks, pool builder) get the app's photo path: the pack's CLIP towers and
 * the object detector of models/detector/, both on WASM with one thread as every Node tool runs
 * them, joined in the engine's PhotoAnalyzer, the same class the worker uses.
 */
export interface NodePhotoAnalyzer {
  analyzer: PhotoAnalyzer;
  encoder: ClipEncoder;
  detector: ObjectDetector | null;
  /** One line for the output: which detector runs, or why none does. */
  detectorNote: string;
  source: FsPackSource;
  files: string[];
}

const WASM_PLAN = () => chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });

/**
 * Which ONNX variant a benchmark loads, so int8 (q8, onnx/<model>_quantized.onnx) and float can be
 * compared through the page's own loader. Unset: the page's WASM choice (q8 where the folder has it, else fp32).
 */
export interface VariantChoice {
  /** The pack's CLIP towers; a tower without that variant loads fp32 (the output says which ran). */
  dtype?: ModelDtype;
  /** The object detector; it must have the variant asked for. */
  detectorDtype?: ModelDtype;
}

const VARIANTS = ['fp32', 'q8'] as const;
export const VARIANT_USAGE = '[--dtype fp32|q8] [--detector-dtype fp32|q8]';
export const VARIANT_OPTIONS = { dtype: { type: 'string' }, 'detector-dtype': { type: 'string' } } as const;

/** --dtype and --detector-dtype of a benchmark's command line. */
export function variantChoice(values: { dtype?: string; 'detector-dtype'?: string }, usage: string): VariantChoice {
  return {
    dtype: values.dtype === undefined ? undefined : choiceOption(values.dtype, 'dtype', VARIANTS, usage),
    detectorDtype: values['detector-dtype'] === undefined ? undefined : choiceOption(values['detector-dtype'], 'detector-dtype', VARIANTS, usage),
  };
}

/**
 * The detector of models/detector/, or null with the reason when its folder or files are missing
 * (photos then get an image embedding and no grounded caption). A detector that is there but
 * cannot load is an error.
 */
async function loadWasmDetector(dir = join('models', DETECTOR_DIR), dtype?: ModelDtype): Promise<{ detector: ObjectDetector | null; note: string }> {
  const missing = (why: string) => ({
    detector: null,
    note: `no object detector (${why}): photos are embedded without detections and get no grounded caption`,
  });
  if (!existsSync(join(dir, DETECTOR_CONFIG_FILE))) return missing(`${join(dir, DETECTOR_CONFIG_FILE)} is missing`);
  const source = new FsPackSource(dir);
  try {
    const detector = await ObjectDetector.load(source, await source.listFiles(), dtype ? { ...WASM_PLAN(), dtypes: [dtype] } : WASM_PLAN());
    const loaded = detector.backend.dtypes.detector;
    if (dtype && loaded !== dtype) {
      await detector.release();
      throw new Error(
        `${dir}/ has no ${dtype} variant of the detector (it loaded ${loaded}); make it with models/scripts/quantize_int8.py (docs/models.md, "int8 variants").`,
      );
    }
    return { detector, note: `object detector ${dir}/ (${detector.config.name}, ${detector.backend.provider} ${loaded}, fingerprint ${detector.fingerprint})` };
  } catch (error) {
    if (error instanceof EngineError && error.code === 'pack-file-missing') return missing(error.message);
    throw error;
  }
}

/**
 * A pack (id under models/ or a folder) and the detector as one PhotoAnalyzer. `detector`: true
 * (default) loads it when models/detector/ has it; false never; 'if-grounding' only when the pack's
 * image tower takes grounding, for callers that need the embeddings alone (they are the same
 * without the detector for any other tower, and so is the analyzer's fingerprint).
 */
export async function loadWasmPhotoAnalyzer(
  pack: string,
  options: { detector?: boolean | 'if-grounding'; variants?: VariantChoice } = {},
): Promise<NodePhotoAnalyzer> {
  const dir = pack.includes('/') ? pack : join('models', pack);
  if (!existsSync(join(dir, 'config.json'))) {
    const packs = readdirSync('models').filter((d) => existsSync(join('models', d, 'config.json')));
    throw new Error(`There is no model pack at ${dir}/ (no config.json). Packs here: ${packs.join(', ') || 'none'}; or give a pack folder with a slash.`);
  }
  const variants = options.variants ?? {};
  const { encoder, source, files } = await loadWasmPack(pack, variants.dtype && [variants.dtype]);
  if (variants.dtype && !Object.values(encoder.backend.dtypes).includes(variants.dtype)) {
    await encoder.release();
    throw new Error(`${dir}/ has no ${variants.dtype} variant of its towers; make one with models/scripts/quantize_int8.py (docs/models.md, "int8 variants").`);
  }
  const wanted = options.detector ?? true;
  const { detector, note } =
    wanted === false
      ? { detector: null, note: 'no object detector (not asked for)' }
      : wanted === 'if-grounding' && !encoder.takesGrounding
        ? { detector: null, note: 'no object detector needed (this image tower takes no grounding, so its embeddings are the same without it)' }
        : await loadWasmDetector(undefined, variants.detectorDtype);
  return { analyzer: new PhotoAnalyzer(encoder, detector), encoder, detector, detectorNote: note, source, files };
}

/** Releases the sessions of a loaded analyzer. */
export async function releasePhotoAnalyzer({ encoder, detector }: Pick<NodePhotoAnalyzer, 'encoder' | 'detector'>): Promise<void> {
  await detector?.release();
  await encoder.release();
}
