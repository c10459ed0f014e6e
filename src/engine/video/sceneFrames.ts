/**
 * Which of a video's sampled frames go through the photo path (detector and image tower), chosen by
 * scene change: a frame that looks like the last one analysed reuses its analysis. A visitor's clip
 * of one scene then costs one detector run, not eight (issue 38: a video answered at booth speed).
 * The coloured-blob finder, the photo check and the sound still read every frame.
 */
import type { RgbaImage } from '../image/rgbaImage';

/** Frames are compared as this many × this many cells of mean luma. */
const THUMB_CELLS = 16;
/**
 * Mean absolute luma change (0–1) over the cells that makes a new scene. Set by reasoning, not tuned on
 * data: re-encoding noise and a hand's shake move a cell by a few hundredths; a cut, a pan to
 * something else or a person walking in moves many cells by tenths.
 */
export const SCENE_CHANGE = 0.06;
/** At most this many frames are analysed: the first, then the largest changes. */
export const MAX_ANALYSED_FRAMES = 4;

/** Mean luma (0–1) of each of THUMB_CELLS² cells, reading every other pixel. */
export function lumaCells(image: RgbaImage): Float32Array {
  const cells = new Float32Array(THUMB_CELLS * THUMB_CELLS);
  const counts = new Uint32Array(cells.length);
  const { width, height, data } = image;
  for (let y = 0; y < height; y += 2) {
    const row = Math.min(THUMB_CELLS - 1, Math.floor((y * THUMB_CELLS) / height)) * THUMB_CELLS;
    for (let x = 0; x < width; x += 2) {
      const p = (y * width + x) * 4;
      const cell = row + Math.min(THUMB_CELLS - 1, Math.floor((x * THUMB_CELLS) / width));
      // Rec. 601 luma.
      cells[cell]! += (0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!) / 255;
      counts[cell]!++;
    }
  }
  for (let i = 0; i < cells.length; i++) cells[i] = counts[i] ? cells[i]! / counts[i]! : 0;
  return cells;
}

function change(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/**
 * For each frame, the index of the frame whose photo-path analysis it takes (its own when it is
 * analysed). Frame 0 is always analysed; a later frame is when it changed by SCENE_CHANGE or more from
 * the last analysed one; past MAX_ANALYSED_FRAMES, only the largest changes are kept.
 */
export function sceneKeyFrames(images: readonly RgbaImage[]): number[] {
  if (images.length === 0) return [];
  const cells = images.map(lumaCells);
  const changes: { frame: number; change: number }[] = [];
  let last = 0;
  for (let i = 1; i < images.length; i++) {
    const c = change(cells[i]!, cells[last]!);
    if (c >= SCENE_CHANGE) {
      changes.push({ frame: i, change: c });
      last = i;
    }
  }
  const kept = new Set([
    0,
    ...changes
      .sort((a, b) => b.change - a.change)
      .slice(0, MAX_ANALYSED_FRAMES - 1)
      .map((c) => c.frame),
  ]);
  let key = 0;
  return images.map((_, i) => (kept.has(i) ? (key = i) : key));
}
