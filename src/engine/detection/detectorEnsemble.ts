import type { RgbaImage } from '../image/rgbaImage';
import { iou, suppressDuplicates } from './decodeDetections';
import type { DetectionTimings } from './objectDetector';
import type { Detection, DetectionResult } from './types';

/** What the photo path needs of a detector: ObjectDetector is one, and so is the bench's recorded ensemble (bench -- detector-ensemble). */
export interface PhotoDetector {
  readonly fingerprint: string;
  detect(image: RgbaImage): Promise<DetectionResult & { timings: DetectionTimings }>;
}

/**
 * How two detectors' findings become one list. A class both found with overlapping boxes (IoU at least
 * `matchIou`) is one object, scored by `combine`: 'noisy-or' 1 - (1 - a)(1 - b) (both would have to be
 * wrong), or 'max-bonus' the higher score plus `bonus`; the second's finding counts as agreement only
 * from `secondMinScore`. What only the first found keeps its score; what only the second found is kept
 * at `secondOnlyWeight` times its score (0: dropped).
 */
export interface EnsembleRule {
  combine: 'noisy-or' | 'max-bonus';
  bonus: number;
  matchIou: number;
  secondMinScore: number;
  secondOnlyWeight: number;
}

export function mergeDetections(first: readonly Detection[], second: readonly Detection[], rule: EnsembleRule): Detection[] {
  const used = new Set<number>();
  const merged: Detection[] = [];
  for (const a of first) {
    let best = -1;
    let bestIou = rule.matchIou;
    for (const [j, b] of second.entries()) {
      if (used.has(j) || b.classIndex !== a.classIndex || b.score < rule.secondMinScore) continue;
      const overlap = iou(a.box, b.box);
      if (overlap >= bestIou) {
        best = j;
        bestIou = overlap;
      }
    }
    if (best < 0) {
      merged.push({ ...a });
      continue;
    }
    used.add(best);
    const b = second[best]!;
    const score = rule.combine === 'noisy-or' ? 1 - (1 - a.score) * (1 - b.score) : Math.min(1, Math.max(a.score, b.score) + rule.bonus);
    merged.push({ ...a, score });
  }
  if (rule.secondOnlyWeight > 0) {
    for (const [j, b] of second.entries()) if (!used.has(j)) merged.push({ ...b, score: b.score * rule.secondOnlyWeight });
  }
  return suppressDuplicates(merged);
}
