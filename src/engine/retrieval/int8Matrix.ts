import { EngineError } from '../errors';
import { INT8_KERNEL_WASM } from './int8Kernel';
import { type DotKernel, simdSupported } from './scoreMatrix';
import { type ScoredIndex, topKOfScores } from './vectors';

/**
 * A large candidate matrix held as int8: each row scaled by its own largest magnitude to [-127, 127]
 * (symmetric, per-row scale), a quarter of f32's memory (1,000,000 x 256 is 256 MB, not 1 GB).
 * The query is quantized to int16 (so only the rows are coarse); each row's score is its exact
 * integer dot product with the query, times the row's scale, in f32: fround(fround(dot) * scale).
 * Ranking by it needs no f32 rows.
 *
 * With `refine` (the default), a second int8 code per value holds what the first missed (the
 * residual, at 1/254 of the row's step), and topK re-scores a shortlist (the 10k best by the int8
 * scores, at least 100) with both codes and the f32 query: close to exact f32 scores, for 512 MB
 * rather than 1 GB at 1,000,000 x 256. The residual lives outside the kernel's memory.
 *
 * What int8 costs in ranking (a row's rank can move between near-ties) is measured by
 * `npm run bench -- perf` against the exact f32 scores on the pack's own embeddings.
 */

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: { env: { memory: WasmMemory } }) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  validate(bytes: Uint8Array): boolean;
}
const wasmApi = () => (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
const MAX_DIM = Math.floor(0x7fffffff / (127 * 32767));
const MAX_PAGES = 65536;
const align16 = (n: number) => Math.ceil(n / 16) * 16;
let compiled: object | undefined;

/** Symmetric codes of a vector in [-limit, limit] and the scale that maps them back: value ≈ code * scale. */
function quantize(values: ArrayLike<number>, out: Int8Array | Int16Array, limit: number): number {
  let max = 0;
  for (let j = 0; j < values.length; j++) max = Math.max(max, Math.abs(values[j]!));
  const scale = max / limit;
  for (let j = 0; j < values.length; j++) out[j] = scale === 0 ? 0 : Math.max(-limit, Math.min(limit, Math.round(values[j]! / scale)));
  return Math.fround(scale);
}

/** A row's int8 codes and scale. */
export const quantizeInt8 = (values: ArrayLike<number>, out: Int8Array) => quantize(values, out, 127);
/** A query's int16 codes and scale. */
export const quantizeInt16 = (values: ArrayLike<number>, out: Int16Array) => quantize(values, out, 32767);

export interface Int8MatrixOptions {
  kernel?: DotKernel;
  /** Keep residual codes and re-score the shortlist with them (default true); false halves the memory. */
  refine?: boolean;
}

/** The shortlist refine re-scores: the 10k best by int8 scores, at least this many. */
const MIN_SHORTLIST = 100;

export class Int8Matrix {
  /** Bytes per row in memory: dim rounded up to 16 (the kernel's step), padded with zeros. */
  readonly stride: number;
  /** The codes, row-major with `stride` bytes a row. */
  readonly codes: Int8Array;
  readonly scales: Float32Array;
  private readonly query: Int16Array;
  private readonly out: Float32Array;
  private readonly run: (() => void) | null;
  readonly kernel: DotKernel;
  /** The residual codes (row-major, `dim` a row) and their scales; null without `refine`. */
  private readonly residual: { codes: Int8Array; scales: Float32Array } | null;

  private constructor(
    readonly rows: number,
    readonly dim: number,
    options: Int8MatrixOptions,
  ) {
    if (!Number.isInteger(rows) || !Number.isInteger(dim) || rows < 0 || dim <= 0)
      throw new EngineError('invalid-input', `An int8 matrix needs whole sizes, at least one dimension, not ${rows} x ${dim}.`);
    // Integer sums must fit i32: |sum| <= 127 * 32767 * dim.
    if (dim > MAX_DIM)
      throw new EngineError('invalid-input', `An int8 matrix holds at most ${MAX_DIM} dimensions (its integer sums must fit 32 bits), not ${dim}.`);
    this.stride = align16(dim);
    const api = wasmApi();
    const queryAt = 0,
      scalesAt = 2 * this.stride,
      outAt = align16(scalesAt + rows * 4),
      codesAt = align16(outAt + rows * 4);
    const pages = Math.max(1, Math.ceil((codesAt + rows * this.stride) / PAGE));
    let memory: WasmMemory | null = null;
    if ((options.kernel ?? 'wasm-simd') === 'wasm-simd' && api && simdSupported() && api.validate(INT8_KERNEL_WASM) && pages <= MAX_PAGES) {
      try {
        memory = new api.Memory({ initial: pages, maximum: pages });
      } catch {
        memory = null; // refused (too large for this tab): the JS scan over ordinary arrays
      }
    }
    if (api && memory) {
      compiled ??= new api.Module(INT8_KERNEL_WASM);
      const scores8 = new api.Instance(compiled, { env: { memory } }).exports['scores8'] as (
        q: number,
        m: number,
        rows: number,
        stride: number,
        scales: number,
        out: number,
      ) => void;
      this.query = new Int16Array(memory.buffer, queryAt, this.stride);
      this.scales = new Float32Array(memory.buffer, scalesAt, rows);
      this.out = new Float32Array(memory.buffer, outAt, rows);
      this.codes = new Int8Array(memory.buffer, codesAt, rows * this.stride);
      this.run = () => scores8(queryAt, codesAt, rows, this.stride, scalesAt, outAt);
      this.kernel = 'wasm-simd';
    } else {
      this.query = new Int16Array(this.stride);
      this.scales = new Float32Array(rows);
      this.out = new Float32Array(rows);
      this.codes = new Int8Array(rows * this.stride);
      this.run = null;
      this.kernel = 'js';
    }
    this.residual = (options.refine ?? true) ? { codes: new Int8Array(rows * dim), scales: new Float32Array(rows) } : null;
  }

  /** An empty matrix to fill row by row with setRow, so a million f32 rows never have to be held at once. */
  static allocate(rows: number, dim: number, options: Int8MatrixOptions = {}): Int8Matrix {
    return new Int8Matrix(rows, dim, options);
  }

  /** Quantizes a whole f32 matrix (row-major). */
  static fromFloat32(data: Float32Array, rows: number, dim: number, options: Int8MatrixOptions = {}): Int8Matrix {
    if (data.length < rows * dim) throw new EngineError('invalid-input', `The matrix has ${data.length} values, fewer than ${rows} x ${dim}.`);
    const out = new Int8Matrix(rows, dim, options);
    for (let r = 0; r < rows; r++) out.setRow(r, data.subarray(r * dim, (r + 1) * dim));
    return out;
  }

  /**
   * Rows already quantized (a shipped int8 file: `codes` row-major, one scale per row), copied in as
   * they are: re-quantizing their decoded values cost the load half a second for 115k rows. The
   * values are exactly code * scale, so the residual is zero.
   */
  static fromCodes(codes: Int8Array, scales: Float32Array, rows: number, dim: number, options: Int8MatrixOptions = {}): Int8Matrix {
    if (codes.length < rows * dim || scales.length < rows)
      throw new EngineError('invalid-input', `The codes hold ${codes.length} values and ${scales.length} scales, fewer than ${rows} x ${dim}.`);
    const out = new Int8Matrix(rows, dim, options);
    if (out.stride === dim) out.codes.set(codes.subarray(0, rows * dim));
    else for (let r = 0; r < rows; r++) out.codes.set(codes.subarray(r * dim, (r + 1) * dim), r * out.stride);
    out.scales.set(scales.subarray(0, rows));
    return out;
  }

  setRow(r: number, row: ArrayLike<number>): void {
    if (row.length !== this.dim) throw new EngineError('invalid-input', `Row ${r} has ${row.length} values, not ${this.dim}.`);
    const codes = this.codes.subarray(r * this.stride, r * this.stride + this.dim);
    const scale = quantizeInt8(row, codes);
    this.scales[r] = scale;
    if (!this.residual) return;
    const rest = new Float64Array(this.dim);
    for (let j = 0; j < this.dim; j++) rest[j] = row[j]! - codes[j]! * scale;
    this.residual.scales[r] = quantizeInt8(rest, this.residual.codes.subarray(r * this.dim, (r + 1) * this.dim));
  }

  /** Bytes of the residual codes and scales (0 without refine). */
  get residualBytes(): number {
    return this.residual ? this.residual.codes.byteLength + this.residual.scales.byteLength : 0;
  }

  /** Bytes the matrix holds: codes, scales, the score buffer and the residual. */
  get bytes(): number {
    const residual = this.residual ? this.residual.codes.byteLength + this.residual.scales.byteLength : 0;
    return this.codes.byteLength + this.scales.byteLength + this.out.byteLength + this.query.byteLength + residual;
  }

  /**
   * Every row's score in int8 units (fround(fround(dot) * rowScale)), in a view the next call
   * overwrites, and the query's own scale (multiply by it for an estimate of the f32 dot product).
   */
  scores(query: Float32Array): { scores: Float32Array; queryScale: number } {
    if (query.length !== this.dim) throw new EngineError('invalid-input', `The query has ${query.length} dimensions, the matrix ${this.dim}.`);
    const queryScale = quantizeInt16(query, this.query.subarray(0, this.dim));
    if (this.run) this.run();
    else this.scanJs();
    return { scores: this.out, queryScale };
  }

  /**
   * The k best rows, best first. Scores estimate the f32 dot product: with refine, both codes against
   * the f32 query (the shortlist re-scored); without, the int8 score times the query's scale.
   */
  topK(query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
    const { scores, queryScale } = this.scores(query);
    return this.rankScores(scores, queryScale, query, k, exclude);
  }

  /** The k best rows from int8 scores computed elsewhere (the WebGPU scorer) the same way as scores(). */
  rankScores(scores: ArrayLike<number>, queryScale: number, query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
    if (!this.residual) return topKOfScores(scores, k, exclude).map((s) => ({ index: s.index, score: s.score * queryScale }));
    const shortlist = topKOfScores(scores, Math.max(MIN_SHORTLIST, 10 * k), exclude);
    const { codes: rest, scales: restScales } = this.residual;
    const rescored = shortlist.map(({ index }) => {
      let main = 0,
        residual = 0;
      const at = index * this.stride,
        restAt = index * this.dim;
      for (let j = 0; j < this.dim; j++) {
        main += this.codes[at + j]! * query[j]!;
        residual += rest[restAt + j]! * query[j]!;
      }
      return { index, score: main * this.scales[index]! + residual * restScales[index]! };
    });
    return rescored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, k);
  }

  /** The same arithmetic as the kernel: integer sums are exact in a double, then the same two f32 roundings. */
  private scanJs(): void {
    const { codes, query, scales, out, stride, dim } = this;
    for (let r = 0; r < this.rows; r++) {
      let dot = 0;
      const base = r * stride;
      for (let j = 0; j < dim; j++) dot += codes[base + j]! * query[j]!;
      out[r] = Math.fround(Math.fround(dot) * scales[r]!);
    }
  }
}
