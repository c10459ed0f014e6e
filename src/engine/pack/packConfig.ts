import { EngineError } from '../errors';

/** What the engine needs from config.json and preprocessor_config.json of a CLIP pack. */
export interface ClipPackConfig {
  projectionDim: number;
  logitScale: number;
  maxTextLength: number;
}

export interface ClipImageConfig {
  shortestEdge: number;
  cropHeight: number;
  cropWidth: number;
  rescaleFactor: number;
  mean: [number, number, number];
  std: [number, number, number];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(file: string, field: string, expected: string): never {
  throw new EngineError('pack-config-invalid', `${file}: "${field}" should be ${expected}. The model pack looks damaged; restore it and reload.`);
}

function numberAt(file: string, obj: Json, key: string, fallback?: number): number {
  const value = obj[key];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(file, key, 'a number');
  return value;
}

function tripleAt(file: string, obj: Json, key: string): [number, number, number] {
  const value = obj[key];
  if (!Array.isArray(value) || value.length !== 3 || !value.every((v) => typeof v === 'number')) {
    fail(file, key, 'a list of three numbers');
  }
  return [value[0] as number, value[1] as number, value[2] as number];
}

export function parseClipConfig(json: unknown): ClipPackConfig {
  const file = 'config.json';
  if (!isObject(json)) fail(file, '(root)', 'an object');
  const text = json['text_config'];
  if (!isObject(text)) fail(file, 'text_config', 'an object');
  return {
    projectionDim: numberAt(file, json, 'projection_dim'),
    logitScale: Math.exp(numberAt(file, json, 'logit_scale_init_value', Math.log(100))),
    maxTextLength: numberAt(file, text, 'max_position_embeddings', 77),
  };
}

/** Reads either {shortest_edge} or a bare number for size, and crop_size as {height,width} or a number. */
export function parseImageConfig(json: unknown): ClipImageConfig {
  const file = 'preprocessor_config.json';
  if (!isObject(json)) fail(file, '(root)', 'an object');
  const size = json['size'];
  const shortestEdge =
    typeof size === 'number' ? size : isObject(size) ? numberAt(file, size, 'shortest_edge') : fail(file, 'size', 'a number or {shortest_edge}');
  const crop = json['crop_size'] ?? shortestEdge;
  const [cropHeight, cropWidth] =
    typeof crop === 'number'
      ? [crop, crop]
      : isObject(crop)
        ? [numberAt(file, crop, 'height'), numberAt(file, crop, 'width')]
        : fail(file, 'crop_size', 'a number or {height,width}');
  return {
    shortestEdge,
    cropHeight,
    cropWidth,
    rescaleFactor: numberAt(file, json, 'rescale_factor', 1 / 255),
    mean: tripleAt(file, json, 'image_mean'),
    std: tripleAt(file, json, 'image_std'),
  };
}
