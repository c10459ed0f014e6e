import { describe, expect, it } from 'vitest';
import { expectedRank, expectedReciprocalRank, intentF1, mmRelevance, rankAmong, recallAtK, summarizeRanks } from '../metrics/dialogMetrics';

const v = (...xs: number[]) => new Float32Array(xs);

describe('MM-Relevance (MMDialog eqs. 2-3)', () => {
  it('aligns from the left and takes the F1 of sum/J and sum/L', () => {
    // Predicted [a, b, c] against reference [a', b']: cos(a,a') = 1, cos(b,b') = 0.6; c has no partner.
    const predicted = [v(1, 0), v(0.6, 0.8), v(0, 1)];
    const reference = [v(1, 0), v(1, 0)];
    const m = mmRelevance(predicted, reference);
    expect(m.pairScores.map((s) => Number(s.toFixed(4)))).toEqual([100, 60]);
    expect(m.precision).toBeCloseTo(160 / 3, 4); // 53.33
    expect(m.recall).toBeCloseTo(80, 4);
    expect(m.f1).toBeCloseTo((2 * (160 / 3) * 80) / (160 / 3 + 80), 4); // 64.0
    expect(m.f1).toBeCloseTo(64, 3);
  });

  it('is 0 for an empty prediction and symmetric in swapping roles of P and R', () => {
    expect(mmRelevance([], [v(1, 0)]).f1).toBe(0);
    const a = mmRelevance([v(1, 0)], [v(1, 0), v(0, 1)]);
    const b = mmRelevance([v(1, 0), v(0, 1)], [v(1, 0)]);
    expect(a.f1).toBeCloseTo(b.f1, 6);
    expect(a.f1).toBeCloseTo((2 * 100 * 50) / 150, 4);
  });
});

describe('ranks with ties broken at random in expectation', () => {
  it('counts higher and tied candidates', () => {
    expect(rankAmong([0.2, 0.9, 0.5, 0.5, 0.1], 2)).toEqual({ higher: 1, ties: 1 });
  });

  it('gives chance figures when every candidate scores the same', () => {
    const r = rankAmong(new Array(100).fill(0), 0); // 1 of 100, all tied
    expect(recallAtK(r, 1)).toBeCloseTo(0.01, 10);
    expect(recallAtK(r, 10)).toBeCloseTo(0.1, 10);
    expect(expectedRank(r)).toBe(50.5);
  });

  it('computes recall, reciprocal rank and mean rank by hand', () => {
    const first = { higher: 0, ties: 0 }; // rank 1
    const tied = { higher: 1, ties: 1 }; // rank 2 or 3
    expect(recallAtK(tied, 1)).toBe(0);
    expect(recallAtK(tied, 2)).toBe(0.5);
    expect(expectedReciprocalRank(tied)).toBeCloseTo((1 / 2 + 1 / 3) / 2, 12);
    const s = summarizeRanks([first, tied], [1, 5]);
    expect(s.recallAt[1]).toBe(0.5);
    expect(s.recallAt[5]).toBe(1);
    expect(s.mrr).toBeCloseTo((1 + 5 / 12) / 2, 12);
    expect(s.meanRank).toBe((1 + 2.5) / 2);
  });
});

describe('Intent F1 (MMDialog eq. 1)', () => {
  it('aligns the modality sequences from the left, by hand', () => {
    // predicted [text, image, image] vs reference [text, text]: one match; P = 1/3, R = 1/2, F1 = 0.4.
    const r = intentF1(['text', 'image', 'image'], ['text', 'text']);
    expect(r.precision).toBeCloseTo(100 / 3, 10);
    expect(r.recall).toBe(50);
    expect(r.f1).toBeCloseTo(40, 10);
    expect(intentF1(['image', 'text'], ['image', 'text']).f1).toBe(100);
    expect(intentF1([], ['text']).f1).toBe(0);
  });
});

describe('a target that was not ranked (wrong intent)', () => {
  it('counts as a miss at every k, with reciprocal rank 0 and the last rank', () => {
    const miss = { higher: 1, ties: 0, miss: true as const };
    expect(recallAtK(miss, 100)).toBe(0);
    expect(expectedReciprocalRank(miss)).toBe(0);
    expect(expectedRank(miss)).toBe(2);
  });
});
