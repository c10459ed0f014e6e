import { describe, expect, it } from 'vitest';
import { l2Normalize, meanVector, stackRows, topKByDot } from '../retrieval/vectors';

describe('topKByDot', () => {
  const rows = [
    [1, 0],
    [0, 1],
    [0.6, 0.8],
    [0.8, 0.6],
    [-1, 0],
  ].map((r) => new Float32Array(r));
  const matrix = stackRows(rows);

  it('returns the k best rows, best first, with their dot products', () => {
    const top = topKByDot(matrix, new Float32Array([1, 0]), 3);
    expect(top.map((t) => t.index)).toEqual([0, 3, 2]);
    expect(top.map((t) => t.score)).toEqual([1, Math.fround(0.8), Math.fround(0.6)]);
  });

  it('skips excluded rows and handles k larger than the pool', () => {
    expect(topKByDot(matrix, new Float32Array([1, 0]), 2, new Set([0])).map((t) => t.index)).toEqual([3, 2]);
    expect(topKByDot(matrix, new Float32Array([0, 1]), 10)).toHaveLength(5);
  });

  it('agrees with a full sort on a random pool', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const pool = Array.from({ length: 500 }, () => l2Normalize(new Float32Array(Array.from({ length: 16 }, rand))));
    const query = l2Normalize(new Float32Array(Array.from({ length: 16 }, rand)));
    const full = pool.map((v, index) => ({ index, score: v.reduce((s, x, i) => s + x * query[i]!, 0) })).sort((a, b) => b.score - a.score);
    expect(topKByDot(stackRows(pool), query, 10).map((t) => t.index)).toEqual(full.slice(0, 10).map((t) => t.index));
  });
});

describe('vector helpers', () => {
  it('normalizes to unit length and leaves the zero vector at zero', () => {
    expect(Array.from(l2Normalize(new Float32Array([3, 4])))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(l2Normalize(new Float32Array([0, 0])))).toEqual([0, 0]);
  });

  it('averages vectors', () => {
    expect(Array.from(meanVector([new Float32Array([1, 2]), new Float32Array([3, 6])]))).toEqual([2, 4]);
  });
});

describe('topKByDot on blocks of rows', () => {
  it('matches a plain scan for every row count and an odd dimension, with exclusions', async () => {
    const { topKByDot, topKOfScores } = await import('../retrieval/vectors');
    for (const [rows, dim] of [
      [1, 3],
      [5, 3],
      [9, 4],
      [13, 5],
    ] as const) {
      const data = Float32Array.from({ length: rows * dim }, (_, i) => Math.sin(i * 1.7));
      const query = Float32Array.from({ length: dim }, (_, i) => Math.cos(i));
      const plain = Array.from({ length: rows }, (_, r) => data.subarray(r * dim, (r + 1) * dim).reduce((s, v, j) => s + v * query[j]!, 0));
      const exclude = new Set([0, rows - 1]);
      const fast = topKByDot({ data, rows, dim }, query, 4, exclude);
      const slow = topKOfScores(plain, 4, exclude);
      expect(fast.map((x) => x.index)).toEqual(slow.map((x) => x.index));
      fast.forEach((x, i) => expect(x.score).toBeCloseTo(slow[i]!.score, 5));
    }
  });
});

describe('topKOfScores', () => {
  it('matches a full sort with ties, exclusions, negatives and k past the length', async () => {
    const { topKOfScores } = await import('../retrieval/vectors');
    const scores = [0.5, -1, 0.5, 2, 0.5, -1, 2, 0.25, 0.5, -3];
    const exclude = new Set([3]);
    const full = scores
      .map((score, index) => ({ index, score }))
      .filter((x) => !exclude.has(x.index))
      .sort((a, b) => b.score - a.score || a.index - b.index);
    for (const k of [0, 1, 2, 3, 4, 9, 20]) expect(topKOfScores(Float32Array.from(scores), k, exclude)).toEqual(full.slice(0, k));
    // Equal scores after the k-th are refused, so the lower rows stay.
    expect(topKOfScores([1, 1, 1, 1], 2).map((x) => x.index)).toEqual([0, 1]);
  });
});
