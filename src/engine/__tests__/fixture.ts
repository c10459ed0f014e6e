import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import type { RgbaImage } from '../image/rgbaImage';

export const MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models');
export const TEST_PACK_DIR = join(MODELS_DIR, 'test-tiny-clip');

export interface ReferenceFixture {
  seed: number;
  texts: { text: string; input_ids: number[]; text_embeds: number[] }[];
  /** grounding: what the image tower was fed besides the pixels, for towers that take the detector's caption (mini-clip v2). */
  images: { file: string; size: [number, number]; crop_file: string; image_embeds: number[]; grounding?: { caption: string | null; score: number } }[];
}

/** Reference values computed in PyTorch and Pillow by the script that made the pack. */
export function loadReference(packDir = TEST_PACK_DIR): ReferenceFixture {
  return JSON.parse(readFileSync(join(packDir, 'fixture', 'reference.json'), 'utf8')) as ReferenceFixture;
}

export function readPng(relativePath: string, packDir = TEST_PACK_DIR): RgbaImage {
  const png = PNG.sync.read(readFileSync(join(packDir, relativePath)));
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
}

export function readBytes(relativePath: string, packDir = TEST_PACK_DIR): Uint8Array {
  return new Uint8Array(readFileSync(join(packDir, relativePath)));
}

function unit(v: ArrayLike<number>): number[] {
  const norm = Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0)) || 1;
  return Array.from(v, (x) => x / norm);
}

/**
 * Largest difference between the directions of two embeddings. CLIP embeddings are only ever used
 * through cosines, and a tower's output scale is arbitrary (mini-clip's image embeddings have norms
 * near 30), so tolerances are stated on unit vectors.
 */
export function maxUnitDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return maxAbsDiff(unit(a), unit(b));
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
