import { describe, expect, it } from 'vitest';
import { seededRandom } from '../random';
import { type EmbeddingMatrix, l2Normalize } from '../retrieval/vectors';
import { type MapQuery, clipMapBatchLoss, mapOneOfHundred, mapRecallAmongNegatives, trainClipMap } from '../ranking/trainClipMap';

function randomUnitRows(rows: number, dim: number, next: () => number): Float64Array {
  const out = new Float64Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const v = l2Normalize(Float32Array.from({ length: dim }, () => next() - 0.5));
    out.set(v, r * dim);
  }
  return out;
}

/** y random; x = the unit vector of y with its coordinates rotated by one (plus a little noise): clip-sim cannot see it, a map W = P - I can. */
function rotatedPairs(rows: number, dim: number, seed: number): { x: EmbeddingMatrix; y: EmbeddingMatrix } {
  const next = seededRandom(seed);
  const y = Float32Array.from(randomUnitRows(rows, dim, next));
  const x = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const v = Float32Array.from({ length: dim }, (_, k) => y[r * dim + ((k + dim - 1) % dim)]! + 0.05 * (next() - 0.5));
    x.set(l2Normalize(v), r * dim);
  }
  return { x: { data: x, rows, dim }, y: { data: y, rows, dim } };
}

describe('clip-map trainer', () => {
  it('computes the gradient of the in-batch softmax loss (central differences agree)', () => {
    const next = seededRandom(3);
    const d = 5,
      B = 4,
      scale = 7;
    const w = Float64Array.from({ length: d * d }, () => 0.4 * (next() - 0.5));
    const a = 0.8;
    const x = randomUnitRows(B, d, next);
    const y = randomUnitRows(B, d, next);
    const gradW = new Float64Array(d * d);
    const { loss, gradA } = clipMapBatchLoss(w, a, x, y, B, d, scale, gradW);
    expect(loss).toBeGreaterThan(0);
    const scratch = new Float64Array(d * d);
    const lossAt = (ww: Float64Array, aa: number) => clipMapBatchLoss(ww, aa, x, y, B, d, scale, scratch).loss;
    const eps = 1e-6;
    for (let i = 0; i < d * d; i++) {
      const plus = Float64Array.from(w),
        minus = Float64Array.from(w);
      plus[i]! += eps;
      minus[i]! -= eps;
      expect(gradW[i]!).toBeCloseTo((lossAt(plus, a) - lossAt(minus, a)) / (2 * eps), 6);
    }
    expect(gradA).toBeCloseTo((lossAt(w, a + eps) - lossAt(w, a - eps)) / (2 * eps), 6);
  });

  it('learns a map that clip-sim lacks: valid 1-of-100 R@1 from 0.004 to 1, the same W for the same seed', () => {
    const train = rotatedPairs(2000, 8, 1);
    const valid = rotatedPairs(500, 8, 2);
    const identity = mapOneOfHundred({ w: new Float32Array(64), a: 1 }, valid);
    const options = { maxEpochs: 30, learningRate: 0.01, patience: 5, seed: 4 };
    const trained = trainClipMap(train, valid, options);
    expect(trained.history[0]).toEqual({ epoch: 0, loss: NaN, validR1: identity });
    expect(identity).toBe(0.004); // 2 of 500, below chance (0.01): x points away from its own y
    expect(trained.validR1).toBe(1);
    expect(trained.bestEpoch).toBe(3);
    expect(mapOneOfHundred(trained, valid)).toBe(trained.validR1);
    // The learned W + aI is close to the rotation: row k puts its weight on coordinate k - 1.
    for (let k = 0; k < 8; k++) {
      const row = Array.from({ length: 8 }, (_, j) => trained.w[k * 8 + j]! + (j === k ? trained.a : 0));
      expect(row.indexOf(Math.max(...row))).toBe((k + 7) % 8);
    }
    const again = trainClipMap(train, valid, options);
    expect(again.w).toEqual(trained.w);
    expect(again.a).toBe(trained.a);
  });

  it('keeps the identity map (clip-sim) when training never beats it on valid', () => {
    // Valid pairs are unrelated to the train pairs' rotation: x = y, where the identity is already perfect.
    const train = rotatedPairs(400, 8, 5);
    const y = rotatedPairs(200, 8, 6).y;
    const trained = trainClipMap(train, { x: y, y }, { maxEpochs: 6, learningRate: 0.01, patience: 2 });
    expect(trained.bestEpoch).toBe(0);
    expect(trained.a).toBe(1);
    expect([...trained.w].every((v) => v === 0)).toBe(true);
    expect(trained.history.length).toBeLessThanOrEqual(4);
    // The heads' recipe keeps a trained epoch even then.
    const trainedOnly = trainClipMap(train, { x: y, y }, { maxEpochs: 6, learningRate: 0.01, patience: 2, keepEpochZero: false });
    expect(trainedOnly.bestEpoch).toBeGreaterThan(0);
    expect([...trainedOnly.w].some((v) => v !== 0)).toBe(true);
  });

  it("picks the epoch by R@1 among each reference's own negatives, as the heads' clip-map is (npm run heads:data)", () => {
    const train = rotatedPairs(2000, 8, 1);
    const valid = rotatedPairs(300, 8, 2);
    // Each valid x against its own y and 9 other y rows of the valid set, as a record's negatives.
    const queries: MapQuery[] = Array.from({ length: 300 }, (_, r) => ({
      x: valid.x.data.subarray(r * 8, (r + 1) * 8),
      target: r,
      negatives: Array.from({ length: 9 }, (_, k) => (r + 1 + k * 31) % 300),
    }));
    const identity = mapRecallAmongNegatives({ w: new Float32Array(64), a: 1 }, valid.y, queries);
    const trained = trainClipMap(train, (map) => mapRecallAmongNegatives(map, valid.y, queries), { maxEpochs: 30, learningRate: 0.01, patience: 5, seed: 4 });
    expect(trained.history[0]!.validR1).toBe(identity);
    expect(identity).toBeLessThan(0.2); // chance is 0.1: x points away from its own y
    expect(trained.validR1).toBe(1);
    expect(trained.validR1).toBe(mapRecallAmongNegatives(trained, valid.y, queries));
  });

  it('says what is wrong with its input', () => {
    const p = rotatedPairs(1, 8, 1);
    expect(() => trainClipMap(p, p)).toThrow('trainClipMap: 1 train and 1 valid pairs; the in-batch loss and 1-of-100 need at least 2 of each.');
  });
});
