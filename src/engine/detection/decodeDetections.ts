import type { Box, Detection } from './types';
import type { LetterboxPlacement } from './letterbox';

/** Below this score a peak is not reported at all (the caption and the Inspector apply their own, higher bars). */
export const MIN_DETECTION_SCORE = 0.15;
/** Same-class boxes overlapping more than this are one object found twice (the usual NMS threshold). */
const SAME_CLASS_IOU = 0.5;
/**
 * Boxes of different classes overlapping more than this are one object the detector could not
 * decide on (a car that is also a truck): the weaker is dropped. Set high so a person on a horse
 * or a cat on a bed, whose boxes overlap a lot but less than this, both stay.
 */
export const CROSS_CLASS_IOU = 0.7;

export function iou(a: Box, b: Box): number {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return union > 0 ? inter / union : 0;
}

export interface DecodeOptions {
  minScore?: number;
  /** The shared photo's size, to clip boxes to it. */
  width: number;
  height: number;
}

/**
 * The detector's rows (x1, y1, x2, y2, score, class in input pixels, strongest first) as detections
 * in the photo's pixels, after non-maximum suppression within a class and across classes.
 */
export function decodeDetections(rows: Float32Array, placement: LetterboxPlacement, classes: readonly string[], options: DecodeOptions): Detection[] {
  const minScore = options.minScore ?? MIN_DETECTION_SCORE;
  const candidates: Detection[] = [];
  for (let r = 0; r + 6 <= rows.length; r += 6) {
    const score = rows[r + 4]!;
    const classIndex = Math.round(rows[r + 5]!);
    if (!(score >= minScore) || classIndex < 0 || classIndex >= classes.length) continue;
    const toPhoto = (v: number, shift: number, limit: number) => Math.min(limit, Math.max(0, (v - shift) / placement.scale));
    const box = {
      x1: toPhoto(rows[r]!, placement.dx, options.width),
      y1: toPhoto(rows[r + 1]!, placement.dy, options.height),
      x2: toPhoto(rows[r + 2]!, placement.dx, options.width),
      y2: toPhoto(rows[r + 3]!, placement.dy, options.height),
    };
    // A box wholly inside the black padding, or squeezed to nothing by clipping, shows nothing.
    if (box.x2 - box.x1 < 1 || box.y2 - box.y1 < 1) continue;
    candidates.push({ classIndex, label: classes[classIndex]!, score, box });
  }
  return suppressDuplicates(candidates);
}

/** Non-maximum suppression within a class and across classes (sorts `candidates` in place), strongest first. */
export function suppressDuplicates(candidates: Detection[]): Detection[] {
  candidates.sort((a, b) => b.score - a.score || a.classIndex - b.classIndex);
  const kept: Detection[] = [];
  for (const d of candidates) {
    const duplicate = kept.some((k) => iou(k.box, d.box) > (k.classIndex === d.classIndex ? SAME_CLASS_IOU : CROSS_CLASS_IOU));
    if (!duplicate) kept.push(d);
  }
  return kept;
}
