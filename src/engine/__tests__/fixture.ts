import { readFileSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { ClipEncoder } from '../clip/clipEncoder';
import type { RgbaImage } from '../image/rgbaImage';
import { chooseExecutionPlan } from '../onnx/executionPlan';
import { configureWasm } from '../onnx/ortSessions';
import type { PackFileSource } from '../pack/fileSource';

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

/** A model folder read from disk, for engine tests (they do not depend on the Node tools in src/node). */
export function folderSource(dir: string): PackFileSource & { listFiles(): Promise<string[]> } {
  return {
    location: dir.endsWith(sep) ? dir : dir + sep,
    readBytes: async (path) => new Uint8Array(await readFile(join(dir, path))),
    // Paths relative to the folder with forward slashes, as a pack's manifest lists them.
    listFiles: async () =>
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((p) => statSync(join(dir, p)).isFile())
        .map((p) => p.split(sep).join('/'))
        .sort(),
  };
}

/** A pack as the Node tools run it: WASM, one thread. */
export async function loadWasmTestPack(dir: string): Promise<{ encoder: ClipEncoder; source: PackFileSource; files: string[] }> {
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  configureWasm(plan.wasmThreads);
  const source = folderSource(dir);
  const files = await source.listFiles();
  return { encoder: await ClipEncoder.load(source, files, plan), source, files };
}
