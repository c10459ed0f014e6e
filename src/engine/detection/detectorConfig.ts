import { EngineError } from '../errors';

/** What the engine needs from a detector folder's detector.json (written by models/scripts/detector/port_centernet.py). */
export interface DetectorConfig {
  name: string;
  inputName: string;
  /** The photo's longer side in the detector's input, in pixels. */
  maxSide: number;
  /** Each input side is padded to a multiple of this (the backbone's stride). */
  multiple: number;
  detectionsOutput: string;
  classes: readonly string[];
}

export const DETECTOR_CONFIG_FILE = 'detector.json';
const DETECTOR_VERSION = 1;

function positiveInteger(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max;
}

export function parseDetectorConfig(json: unknown, location: string): DetectorConfig {
  const bad = (what: string): never => {
    throw new EngineError('pack-config-invalid', `${location}${DETECTOR_CONFIG_FILE} ${what}. Restore the detector (npm run models:detector) and reload.`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) bad('is not an object');
  const j = json as Record<string, unknown>;
  if (j['version'] !== DETECTOR_VERSION) bad(`is version ${JSON.stringify(j['version'])}, and this app reads version ${DETECTOR_VERSION}`);
  const input = j['input'] as Record<string, unknown> | undefined;
  const outputs = j['outputs'] as Record<string, unknown> | undefined;
  const classes = j['classes'];
  if (typeof input?.['name'] !== 'string') bad('has no "input.name"');
  const maxSide = input?.['maxSide'];
  const multiple = input?.['multiple'];
  if (!positiveInteger(maxSide, 2048)) bad('has no valid "input.maxSide"');
  if (!positiveInteger(multiple, 2048) || (maxSide as number) % multiple !== 0) bad('has no valid "input.multiple" (it must divide input.maxSide)');
  if (input?.['layout'] !== 'NHWC') bad('has an "input.layout" other than "NHWC"');
  if (typeof outputs?.['detections'] !== 'string') bad('has no "outputs.detections"');
  if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === 'string' && c.length > 0)) bad('has no list of class names');
  return {
    name: typeof j['name'] === 'string' ? j['name'] : 'object detector',
    inputName: input!['name'] as string,
    maxSide: maxSide as number,
    multiple: multiple as number,
    detectionsOutput: outputs!['detections'] as string,
    classes: classes as string[],
  };
}
