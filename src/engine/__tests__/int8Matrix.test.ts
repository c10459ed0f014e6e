import { describe, expect, it } from 'vitest';
import { Int8Matrix, quantizeInt16, quantizeInt8 } from '../retrieval/int8Matrix';
import { INT8_KERNEL_WASM } from '../retrieval/int8Kernel';
import { seededRandom } from '../random';

/** Seeded numbers in [-1, 1), so every run scores the same matrix. */
function randomMatrix(rows: number, dim: number, seed: number): Float32Array {
  const next = seededRandom(seed);
  return Float32Array.from({ length: rows * dim }, () => next() * 2 - 1);
}

/** The scores by the definition: exact integer dot of the codes, then fround(fround(dot) * scale). */
function referenceScores(data: Float32Array, rows: number, dim: number, query: Float32Array): number[] {
  const q = new Int16Array(dim);
  quantizeInt16(query, q);
  const codes = new Int8Array(dim);
  return Array.from({ length: rows }, (_, r) => {
    const scale = quantizeInt8(data.subarray(r * dim, (r + 1) * dim), codes);
    let dot = 0;
    for (let j = 0; j < dim; j++) dot += codes[j]! * q[j]!;
    return Math.fround(Math.fround(dot) * scale);
  });
}

describe('quantizeInt8', () => {
  it('maps the largest magnitude to ±127 and a zero row to zeros', () => {
    const out = new Int8Array(4);
    expect(quantizeInt8([0.5, -1, 0.25, 0], out)).toBe(Math.fround(1 / 127));
    expect(Array.from(out)).toEqual([64, -127, 32, 0]);
    expect(quantizeInt8([0, 0, 0, 0], out)).toBe(0);
    expect(Array.from(out)).toEqual([0, 0, 0, 0]);
  });
});

describe('Int8Matrix', () => {
  it('is a valid WebAssembly SIMD module', () => {
    expect(WebAssembly.validate(INT8_KERNEL_WASM as Uint8Array<ArrayBuffer>)).toBe(true);
  });

  // 257 rows (four-row blocks and a remainder) of 37 dimensions (padded to a stride of 48).
  const rows = 257,
    dim = 37;
  const data = randomMatrix(rows, dim, 7);
  const query = randomMatrix(1, dim, 11);

  it('scores every row exactly as defined, with the SIMD kernel and with the JS scan', () => {
    const expected = referenceScores(data, rows, dim, query);
    const simd = Int8Matrix.fromFloat32(data, rows, dim);
    const js = Int8Matrix.fromFloat32(data, rows, dim, { kernel: 'js' });
    expect(simd.kernel).toBe('wasm-simd');
    expect(js.kernel).toBe('js');
    expect(simd.stride).toBe(48);
    expect(Array.from(simd.scores(query).scores)).toEqual(expected);
    expect(Array.from(js.scores(query).scores)).toEqual(expected);
  });

  it('finds a planted near-copy of the query first, with an estimate of its f32 score, and honours exclude', () => {
    const planted = Float32Array.from(data);
    for (let j = 0; j < dim; j++) planted[100 * dim + j] = query[j]! * 0.9;
    const m = Int8Matrix.fromFloat32(planted, rows, dim);
    const exactTop = query.reduce((s, v) => s + v * v * 0.9, 0);
    const top = m.topK(query, 2);
    expect(top[0]!.index).toBe(100);
    expect(Math.abs(top[0]!.score - exactTop)).toBeLessThan(0.02 * exactTop);
    expect(m.topK(query, 1, new Set([100]))[0]!.index).toBe(top[1]!.index);
  });

  it('fills row by row and refuses sizes and rows that do not fit', () => {
    const m = Int8Matrix.allocate(2, 3, { kernel: 'js' });
    m.setRow(0, [1, 0, 0]);
    m.setRow(1, [0, 1, 0]);
    expect(m.topK(Float32Array.of(0, 1, 0), 1)[0]!.index).toBe(1);
    expect(() => m.setRow(0, [1, 2])).toThrow('Row 0 has 2 values, not 3.');
    expect(() => m.scores(Float32Array.of(1, 2))).toThrow('The query has 2 dimensions, the matrix 3.');
    expect(() => Int8Matrix.allocate(2, 0)).toThrow('An int8 matrix needs whole sizes, at least one dimension, not 2 x 0.');
    expect(() => Int8Matrix.allocate(2, 600)).toThrow('An int8 matrix holds at most 516 dimensions (its integer sums must fit 32 bits), not 600.');
  });
});
