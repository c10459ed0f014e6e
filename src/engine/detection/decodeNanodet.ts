import { MIN_DETECTION_SCORE, suppressDuplicates } from './decodeDetections';
import type { Detection } from './types';

/** One stride's outputs of NanoDet: per cell (row-major), the class scores and the box-side logits. */
export interface NanodetLevel {
  stride: number;
  /** cells x classes, sigmoid scores. */
  scores: Float32Array;
  /** cells x 4 x (regMax + 1): for the left, top, right and bottom sides, logits over distances 0..regMax strides. */
  boxes: Float32Array;
}

export interface NanodetDecodeOptions {
  /** The square input's side, in pixels. */
  inputSize: number;
  regMax: number;
  classes: readonly string[];
  minScore?: number;
  /** The photo's size: the input is the photo stretched to the square. */
  width: number;
  height: number;
}

/** A side's distance in strides: the expectation of the softmax over its bins (GFL, Li et al. 2020, eq. 5). */
function expectedDistance(logits: Float32Array, offset: number, bins: number): number {
  let max = -Infinity;
  for (let k = 0; k < bins; k++) max = Math.max(max, logits[offset + k]!);
  let sum = 0;
  let weighted = 0;
  for (let k = 0; k < bins; k++) {
    const e = Math.exp(logits[offset + k]! - max);
    sum += e;
    weighted += e * k;
  }
  return weighted / sum;
}

/**
 * NanoDet's outputs (a GFL head: models/scripts/detector/port_nanodet.py) as detections in the photo's
 * pixels, after the same non-maximum suppression as the CenterNet's. A cell's centre is (col + 0.5,
 * row + 0.5) strides; each side lies at its expected distance from it.
 */
export function decodeNanodet(levels: readonly NanodetLevel[], options: NanodetDecodeOptions): Detection[] {
  const minScore = options.minScore ?? MIN_DETECTION_SCORE;
  const classCount = options.classes.length;
  const bins = options.regMax + 1;
  const sx = options.width / options.inputSize;
  const sy = options.height / options.inputSize;
  const candidates: Detection[] = [];
  for (const { stride, scores, boxes } of levels) {
    const grid = Math.round(options.inputSize / stride);
    const cells = grid * grid;
    if (scores.length !== cells * classCount || boxes.length !== cells * 4 * bins) {
      throw new Error(
        `NanoDet's stride-${stride} outputs hold ${scores.length} scores and ${boxes.length} box logits; a ${grid} x ${grid} grid needs ${cells * classCount} and ${cells * 4 * bins}.`,
      );
    }
    for (let cell = 0; cell < cells; cell++) {
      let box: Detection['box'] | null = null;
      for (let c = 0; c < classCount; c++) {
        const score = scores[cell * classCount + c]!;
        if (!(score >= minScore)) continue;
        if (!box) {
          const cx = ((cell % grid) + 0.5) * stride;
          const cy = (Math.floor(cell / grid) + 0.5) * stride;
          const side = (k: number) => expectedDistance(boxes, (cell * 4 + k) * bins, bins) * stride;
          box = {
            x1: Math.max(0, (cx - side(0)) * sx),
            y1: Math.max(0, (cy - side(1)) * sy),
            x2: Math.min(options.width, (cx + side(2)) * sx),
            y2: Math.min(options.height, (cy + side(3)) * sy),
          };
        }
        if (box.x2 - box.x1 < 1 || box.y2 - box.y1 < 1) break;
        candidates.push({ classIndex: c, label: options.classes[c]!, score, box: { ...box } });
      }
    }
  }
  return suppressDuplicates(candidates);
}
