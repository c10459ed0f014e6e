import { nowMs } from '../clock';
import type { RgbaImage } from '../image/rgbaImage';
import type { ExecutionPlan } from '../onnx/executionPlan';
import { ModelSessions, type SessionsOptions, type SessionsState, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { hashText } from '../pool/contentHash';
import { EngineError } from '../errors';
import { DETECTOR_CONFIG_FILE, type DetectorConfig, parseDetectorConfig } from './detectorConfig';
import { MIN_DETECTION_SCORE, decodeDetections } from './decodeDetections';
import { type DetectorInput, LETTERBOX_VERSION, letterboxInput } from './letterbox';
import type { DetectionResult } from './types';

/** Where the app serves the detector (models/detector/), beside the CLIP packs. */
export const DETECTOR_DIR = 'detector';

export type DetectorBackend = SessionsState<'detector'>;

/** What one photo cost, for the Inspector and the benchmark. */
export interface DetectionTimings {
  preprocessMs: number;
  inferenceMs: number;
}

/**
 * The COCO object detector (models/detector/: CenterNet with a MobileNetV3 backbone, ported from
 * TF.js to ONNX by models/scripts/detector/port_centernet.py) on onnxruntime-web, with the same
 * WebGPU -> WASM fallback as the CLIP towers. Every shared photo goes through it; its detections
 * ground the photo's caption and feed the image tower of packs that take them.
 */
export class ObjectDetector {
  private constructor(
    readonly config: DetectorConfig,
    private readonly sessions: ModelSessions<'detector'>,
    /** Changes when the model or its config changes: part of the fingerprint of packs that use detections. */
    readonly fingerprint: string,
  ) {}

  static async load(
    source: PackFileSource,
    files: readonly string[],
    plan: ExecutionPlan,
    options: Omit<SessionsOptions<'detector'>, 'missingAdvice'> = {},
  ): Promise<ObjectDetector> {
    const fileSet = new Set(files);
    const advice = 'photos are described by the image encoder alone. Restore models/detector (npm run models:detector) and reload.';
    if (!fileSet.has(DETECTOR_CONFIG_FILE)) throw new EngineError('pack-file-missing', `${source.location}${DETECTOR_CONFIG_FILE} is missing, so ${advice}`);
    const configJson = await readPackJson(source, DETECTOR_CONFIG_FILE);
    const config = parseDetectorConfig(configJson, source.location);
    const sessions = await ModelSessions.load(source, fileSet, [{ key: 'detector', file: 'model', label: 'object detector' }], plan, {
      ...options,
      missingAdvice: advice,
    });
    return new ObjectDetector(config, sessions, hashText(JSON.stringify([configJson, sessions.fileHashes, LETTERBOX_VERSION])));
  }

  get backend(): DetectorBackend {
    return this.sessions.state;
  }

  /** The model's raw outputs for one photo (the parity test compares them with TF.js). */
  async run(image: RgbaImage): Promise<{ outputs: Record<string, ort.Tensor>; input: DetectorInput; timings: DetectionTimings }> {
    if (image.width < 1 || image.height < 1) throw new EngineError('image-corrupt', 'The photo has no pixels, so there is nothing to detect.');
    const start = nowMs();
    const input = letterboxInput(image, this.config.maxSide, this.config.multiple);
    const prepared = nowMs();
    const outputs = await this.runInput(input);
    return { outputs, input, timings: { preprocessMs: prepared - start, inferenceMs: nowMs() - prepared } };
  }

  /** The model on an input already prepared (any size whose sides are multiples of 32). */
  runInput(input: DetectorInput): Promise<Record<string, ort.Tensor>> {
    return this.sessions.run('detector', () => ({
      [this.config.inputName]: new ort.Tensor('float32', input.pixels, [1, input.inputHeight, input.inputWidth, 3]),
    }));
  }

  /** The objects in a photo, strongest first, boxes in the photo's pixels. */
  async detect(image: RgbaImage, minScore = MIN_DETECTION_SCORE): Promise<DetectionResult & { timings: DetectionTimings }> {
    const { outputs, input, timings } = await this.run(image);
    const rows = floatOutput(outputs, this.config.detectionsOutput, 'the object detector');
    const detections = decodeDetections(rows, input.placement, this.config.classes, { minScore, width: image.width, height: image.height });
    return { width: image.width, height: image.height, detections, timings };
  }

  fallBackToWasm(failure: string): Promise<void> {
    return this.sessions.fallBackToWasm(failure);
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}
