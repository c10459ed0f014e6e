import { describe, expect, it } from 'vitest';
import { decodeNanodet } from '../detection/decodeNanodet';
import { type EnsembleRule, mergeDetections } from '../detection/detectorEnsemble';
import type { Detection } from '../detection/types';

/** Logits that put (almost) all the weight on one bin, or split it evenly over the first two. */
const at = (bin: number) => [0, 1, 2].map((k) => (k === bin ? 100 : -100));
const halfway = [0, 0, -1e9];

/** A 64 x 64 input, one stride-32 level (2 x 2 cells), 2 classes, regMax 2 (3 bins a side). */
function level(cells: { cell: number; scores: number[]; sides: number[][] }[]) {
  const scores = new Float32Array(4 * 2);
  const boxes = new Float32Array(4 * 4 * 3).fill(-100);
  for (const c of cells) {
    scores.set(c.scores, c.cell * 2);
    c.sides.forEach((logits, side) => boxes.set(logits, (c.cell * 4 + side) * 3));
  }
  return { stride: 32, scores, boxes };
}

const options = { inputSize: 64, regMax: 2, classes: ['cat', 'dog'], minScore: 0.15, width: 128, height: 64 };

describe('decodeNanodet', () => {
  it('puts a box at the expected side distances from the cell centre, in the stretched photo', () => {
    // Cell 3 is row 1, column 1: centre (48, 48) in the input. Left 1 stride, top 0, right 0.5, bottom 2.
    const found = decodeNanodet([level([{ cell: 3, scores: [0.05, 0.9], sides: [at(1), at(0), halfway, at(2)] }])], options);
    expect(found).toHaveLength(1);
    expect(found[0]!.label).toBe('dog');
    expect(found[0]!.score).toBeCloseTo(0.9, 6);
    // x is stretched by 2 (a 128-wide photo in a 64-wide input); y2 (48 + 64) is clipped to the photo.
    expect(found[0]!.box.x1).toBeCloseTo(32, 4);
    expect(found[0]!.box.y1).toBeCloseTo(48, 4);
    expect(found[0]!.box.x2).toBeCloseTo(128, 4);
    expect(found[0]!.box.y2).toBe(64);
  });

  it('drops scores under the bar and a weaker box of the same class over the same object', () => {
    const found = decodeNanodet(
      [
        level([
          { cell: 0, scores: [0.3, 0.1], sides: [at(0), at(0), halfway, halfway] },
          { cell: 3, scores: [0, 0.8], sides: [at(1), at(1), at(0), at(0)] },
          { cell: 2, scores: [0, 0.6], sides: [at(0), at(1), at(1), at(0)] },
        ]),
      ],
      options,
    );
    expect(found.map((d) => [d.label, Number(d.score.toFixed(2))])).toEqual([
      ['dog', 0.8],
      ['cat', 0.3],
    ]);
  });

  it('says which output does not fit the grid', () => {
    const bad = { stride: 32, scores: new Float32Array(7), boxes: new Float32Array(48) };
    expect(() => decodeNanodet([bad], options)).toThrow(/stride-32 outputs hold 7 scores/);
  });
});

const dog = (score: number, x1: number): Detection => ({ classIndex: 16, label: 'dog', score, box: { x1, y1: 0, x2: x1 + 100, y2: 100 } });
const cat = (score: number): Detection => ({ classIndex: 15, label: 'cat', score, box: { x1: 300, y1: 0, x2: 400, y2: 100 } });

describe('mergeDetections', () => {
  const noisyOr: EnsembleRule = { combine: 'noisy-or', bonus: 0, matchIou: 0.5, secondMinScore: 0, secondOnlyWeight: 0 };

  it('scores a class both found on overlapping boxes 1 - (1 - a)(1 - b)', () => {
    const merged = mergeDetections([dog(0.44, 0)], [dog(0.4, 10)], noisyOr);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.score).toBeCloseTo(1 - 0.56 * 0.6, 6);
    expect(merged[0]!.box.x1).toBe(0);
  });

  it('leaves boxes that do not overlap enough, or of another class, apart', () => {
    expect(mergeDetections([dog(0.44, 0)], [dog(0.4, 80)], noisyOr).map((d) => d.score)).toEqual([0.44]);
    expect(mergeDetections([dog(0.44, 0)], [cat(0.4)], noisyOr).map((d) => d.label)).toEqual(['dog']);
  });

  it('counts the second as agreeing only from its own bar', () => {
    expect(mergeDetections([dog(0.44, 0)], [dog(0.4, 10)], { ...noisyOr, secondMinScore: 0.45 }).map((d) => d.score)).toEqual([0.44]);
  });

  it('keeps what only the second found at its weight, or drops it', () => {
    const half = mergeDetections([dog(0.44, 0)], [cat(0.6)], { ...noisyOr, secondOnlyWeight: 0.5 });
    expect(half.map((d) => [d.label, d.score])).toEqual([
      ['dog', 0.44],
      ['cat', 0.3],
    ]);
  });

  it('max plus a bonus, capped at 1', () => {
    const rule: EnsembleRule = { combine: 'max-bonus', bonus: 0.1, matchIou: 0.3, secondMinScore: 0, secondOnlyWeight: 0 };
    expect(mergeDetections([dog(0.44, 0)], [dog(0.4, 10)], rule)[0]!.score).toBeCloseTo(0.54, 6);
    expect(mergeDetections([dog(0.95, 0)], [dog(0.4, 10)], rule)[0]!.score).toBe(1);
  });
});
