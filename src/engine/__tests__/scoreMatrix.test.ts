import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { seededRandom } from '../random';
import { DOT_KERNEL_WASM } from '../retrieval/dotKernel';
import { ScoreMatrix, simdSupported, topKRows } from '../retrieval/scoreMatrix';
import { type EmbeddingMatrix, type ScoredIndex, topKByDot } from '../retrieval/vectors';

function randomMatrix(rows: number, dim: number, seed: number): { matrix: EmbeddingMatrix; query: Float32Array } {
  const rand = seededRandom(seed);
  const data = Float32Array.from({ length: rows * dim }, () => rand() * 2 - 1); // signed, so scores are too
  const query = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
  return { matrix: { data, rows, dim }, query };
}

/** Exact ranking: f32 products are exact in f64 and a sum of at most a few thousand is off by ~1e-13. */
function reference(m: EmbeddingMatrix, query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
  const all: ScoredIndex[] = [];
  for (let r = 0; r < m.rows; r++) {
    if (exclude?.has(r)) continue;
    let s = 0;
    for (let j = 0; j < m.dim; j++) s += m.data[r * m.dim + j]! * query[j]!;
    all.push({ index: r, score: s });
  }
  return all.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, Math.max(0, k));
}

/**
 * Bound on an f32 dot product's error in any summation order (Higham, Accuracy and Stability of
 * Numerical Algorithms, eq. 3.5): |fl(x.y) - x.y| <= gamma_n * sum |x_i y_i|, gamma_n = n u / (1 - n u), u = 2^-24.
 */
function f32DotBound(m: EmbeddingMatrix, row: number, query: Float32Array): number {
  const u = 2 ** -24,
    n = Math.max(1, m.dim);
  let abs = 0;
  for (let j = 0; j < m.dim; j++) abs += Math.abs(m.data[row * m.dim + j]! * query[j]!);
  return ((n * u) / (1 - n * u)) * abs;
}

/** The kernel's order, emulated in f32: four lanes over every fourth product, (l0 + l1) + (l2 + l3), then the tail. */
function kernelOrderScore(m: EmbeddingMatrix, row: number, query: Float32Array): number {
  const f = Math.fround,
    base = row * m.dim,
    simdDim = m.dim - (m.dim % 4);
  const lanes = [0, 0, 0, 0];
  for (let j = 0; j < simdDim; j++) lanes[j % 4] = f(lanes[j % 4]! + f(m.data[base + j]! * query[j]!));
  let s = f(f(lanes[0]! + lanes[1]!) + f(lanes[2]! + lanes[3]!));
  for (let j = simdDim; j < m.dim; j++) s = f(s + f(m.data[base + j]! * query[j]!));
  return s;
}

describe('the WebAssembly SIMD kernel', () => {
  it('validates in this runtime (Node 20), so ScoreMatrix uses it by default', () => {
    expect(Array.from(DOT_KERNEL_WASM.subarray(0, 4))).toEqual([0x00, 0x61, 0x73, 0x6d]);
    expect(simdSupported()).toBe(true);
    expect(ScoreMatrix.allocate(3, 4).kernel).toBe('wasm-simd');
  });

  it('sums in the documented order, so its scores are exactly the f32 emulation of that order', () => {
    for (const [rows, dim] of [
      [9, 4],
      [6, 7],
      [5, 33],
      [13, 256],
    ] as const) {
      const { matrix, query } = randomMatrix(rows, dim, rows * 1000 + dim);
      const top = ScoreMatrix.of(matrix).topK(query, rows);
      for (const { index, score } of top) expect(score).toBe(kernelOrderScore(matrix, index, query));
    }
  });
});

describe('ScoreMatrix with SIMD against the scalar reference', () => {
  // n below, at and above the four-row block; dims with every remainder mod 4; k from 0 to past n.
  const cases: [rows: number, dim: number, k: number][] = [
    [1, 1, 1],
    [3, 2, 5],
    [4, 4, 4],
    [5, 7, 3],
    [8, 5, 8],
    [17, 3, 17],
    [101, 16, 10],
    [1000, 33, 50],
    [2003, 256, 10],
    [500, 513, 25],
    [64, 6, 0],
  ];
  for (const [rows, dim, k] of cases) {
    it(`ranks ${rows} x ${dim} for k = ${k}: the same rows, scores within the f32 bound`, () => {
      const { matrix, query } = randomMatrix(rows, dim, rows + 31 * dim);
      const simd = ScoreMatrix.of(matrix);
      expect(simd.kernel).toBe('wasm-simd');
      const expected = reference(matrix, query, k);
      const got = simd.topK(query, k);
      expect(got.map((x) => x.index)).toEqual(expected.map((x) => x.index));
      got.forEach((x, i) => expect(Math.abs(x.score - expected[i]!.score)).toBeLessThanOrEqual(f32DotBound(matrix, x.index, query)));
      // and the JS path ranks the same rows
      expect(topKByDot(matrix, query, k).map((x) => x.index)).toEqual(got.map((x) => x.index));
    });
  }

  it('keeps negative scores and never returns an excluded row', () => {
    const { matrix, query } = randomMatrix(301, 12, 5);
    const exclude = new Set([0, 7, 150, 299, 300]);
    const expected = reference(matrix, query, 301, exclude);
    const got = ScoreMatrix.of(matrix).topK(query, 301, exclude);
    expect(got).toHaveLength(296);
    expect(got.map((x) => x.index)).toEqual(expected.map((x) => x.index));
    expect(got.some((x) => exclude.has(x.index))).toBe(false);
    expect(got.at(-1)!.score).toBeLessThan(0);
  });

  it('breaks ties toward the lower row, across the four-row blocks and the rows after them', () => {
    const distinct = [
      [1, 0, 0, 0, 1],
      [0.5, 0.5, 0, 0, 0],
      [0, 0, 1, 0, 0],
    ];
    const rowOf = [0, 1, 2, 1, 0, 2, 1, 0, 1, 0]; // 10 rows: blocks 0-3 and 4-7, then 8 and 9 one at a time
    const matrix = { data: Float32Array.from(rowOf.flatMap((d) => distinct[d]!)), rows: rowOf.length, dim: 5 };
    const query = Float32Array.of(1, 0.25, 0.5, 0, 0.125);
    const got = ScoreMatrix.of(matrix).topK(query, 7);
    expect(got.map((x) => x.index)).toEqual([0, 4, 7, 9, 1, 3, 6]);
    expect(got.map((x) => x.score)).toEqual([1.125, 1.125, 1.125, 1.125, 0.625, 0.625, 0.625]);
    expect(got.map((x) => x.index)).toEqual(topKByDot(matrix, query, 7).map((x) => x.index));
  });
});

describe('ScoreMatrix edge cases', () => {
  it('ranks an empty pool, k = 0 and k past the pool', () => {
    const empty = ScoreMatrix.allocate(0, 8);
    expect(empty.topK(new Float32Array(8), 5)).toEqual([]);
    expect(ScoreMatrix.fromRows([]).topK(new Float32Array(0), 3)).toEqual([]);
    const { matrix, query } = randomMatrix(6, 4, 1);
    const simd = ScoreMatrix.of(matrix);
    expect(simd.topK(query, 0)).toEqual([]);
    expect(
      simd
        .topK(query, 100)
        .map((x) => x.index)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses a query of another dimension, and rows of unequal length', () => {
    const simd = ScoreMatrix.of(randomMatrix(4, 8, 2).matrix);
    expect(() => simd.topK(new Float32Array(7), 1)).toThrow(EngineError);
    expect(() => ScoreMatrix.fromRows([new Float32Array(3), new Float32Array(2)])).toThrow(/Row 1 has 2 values, not 3/);
  });

  it('holds its own copy: several matrices alive at once each rank their own rows', () => {
    const a = randomMatrix(50, 12, 11),
      b = randomMatrix(70, 12, 12);
    const ma = ScoreMatrix.of(a.matrix),
      mb = ScoreMatrix.of(b.matrix);
    const topA = ma.topK(a.query, 5),
      topB = mb.topK(a.query, 5);
    a.matrix.data.fill(0); // the source changes after the copy; the ScoreMatrix does not see it
    expect(ma.topK(a.query, 5)).toEqual(topA);
    expect(mb.topK(a.query, 5)).toEqual(topB);
    expect(topB.map((x) => x.index)).toEqual(reference(b.matrix, a.query, 5).map((x) => x.index));
    expect(ScoreMatrix.of(ma)).toBe(ma); // no second copy of a ScoreMatrix
  });

  it("gives every row's score: with SIMD exactly those topK ranks by, with either kernel within the f32 bound", () => {
    const { matrix, query } = randomMatrix(37, 9, 5);
    for (const kernel of ['wasm-simd', 'js'] as const) {
      const m = ScoreMatrix.of(matrix, { kernel });
      const scores = m.scores(query);
      expect(scores).toHaveLength(37);
      if (kernel === 'wasm-simd') for (const { index, score } of m.topK(query, 37)) expect(scores[index]).toBe(score);
      reference(matrix, query, 37).forEach(({ index, score }) =>
        expect(Math.abs(scores[index]! - score)).toBeLessThanOrEqual(f32DotBound(matrix, index, query)),
      );
    }
    expect(() => ScoreMatrix.of(matrix).scores(new Float32Array(8))).toThrow(EngineError);
  });

  it('is filled in place through data after allocate', () => {
    const m = ScoreMatrix.allocate(5, 3);
    m.data.set([0, 0, 1], 3 * 3);
    expect(m.topK(Float32Array.of(0, 0, 2), 1)).toEqual([{ index: 3, score: 2 }]);
  });
});

describe('the JS fallback', () => {
  it('is chosen when the runtime does not validate the SIMD kernel, and ranks exactly as topKByDot', () => {
    const seen: Uint8Array[] = [];
    const { matrix, query } = randomMatrix(203, 10, 9);
    const fallback = ScoreMatrix.of(matrix, { validate: (bytes) => (seen.push(bytes), false) });
    expect(seen).toEqual([DOT_KERNEL_WASM]); // it asks about the very module that would run
    expect(fallback.kernel).toBe('js');
    const exclude = new Set([3, 4]);
    expect(fallback.topK(query, 20, exclude)).toEqual(topKByDot(matrix, query, 20, exclude));
    expect(fallback.topK(query, 20, exclude).map((x) => x.index)).toEqual(
      ScoreMatrix.of(matrix)
        .topK(query, 20, exclude)
        .map((x) => x.index),
    );
  });

  it('is chosen when the feature test throws, or when asked for', () => {
    const m = randomMatrix(8, 4, 3).matrix;
    expect(
      ScoreMatrix.of(m, {
        validate: () => {
          throw new Error('no WebAssembly');
        },
      }).kernel,
    ).toBe('js');
    expect(ScoreMatrix.of(m, { kernel: 'js' }).kernel).toBe('js');
    expect(simdSupported(() => false)).toBe(false);
  });

  it('topKRows ranks a plain matrix with the JS scan and a ScoreMatrix with its kernel', () => {
    const { matrix, query } = randomMatrix(40, 9, 4);
    expect(topKRows(matrix, query, 3)).toEqual(topKByDot(matrix, query, 3));
    const simd = ScoreMatrix.of(matrix);
    expect(topKRows(simd, query, 3)).toEqual(simd.topK(query, 3));
  });
});
