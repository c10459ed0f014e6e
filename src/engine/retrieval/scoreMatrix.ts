import { EngineError } from '../errors';
import { DOT_KERNEL_WASM } from './dotKernel';
import { type EmbeddingMatrix, type ScoredIndex, topKByDot, topKOfScores } from './vectors';

/**
 * The part of the WebAssembly JS API used here. The engine compiles with the ES2022 lib, which has
 * no WebAssembly types; an ambient `declare namespace WebAssembly` would have to repeat the DOM's
 * and Node's declarations member for member wherever the engine is compiled beside them, so the
 * global is read through this interface under names of its own instead.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: { env: { memory: WasmMemory } }) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

function wasmApi(): WasmApi | undefined {
  return (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
}

/** How a matrix scores a query: the WebAssembly SIMD kernel, or the JS scan (topKByDot) where SIMD is missing. */
export type DotKernel = 'wasm-simd' | 'js';

export interface ScoreMatrixOptions {
  /** Force a kernel (the benchmark compares both); by default SIMD where the runtime validates it. */
  kernel?: DotKernel;
  /** The feature test, WebAssembly.validate by default (tests inject one that fails). */
  validate?: (bytes: Uint8Array) => boolean;
}

let defaultSimd: boolean | undefined;

/** Whether this runtime runs the SIMD kernel: it validates exactly the module that would run. */
export function simdSupported(validate?: (bytes: Uint8Array) => boolean): boolean {
  const check = (test: (bytes: Uint8Array) => boolean) => {
    try {
      return test(DOT_KERNEL_WASM);
    } catch {
      return false;
    }
  };
  if (validate) return check(validate);
  const api = wasmApi();
  defaultSimd ??= api !== undefined && check((bytes) => api.validate(bytes));
  return defaultSimd;
}

let compiled: object | undefined;
const PAGE = 65536;
const MAX_PAGES = 65536; // 4 GiB, the most a 32-bit memory addresses
const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

/** One kernel instance with its own memory: [query | scores | rows], sized once, never grown. */
class SimdScorer {
  readonly rowsView: Float32Array;
  private readonly queryView: Float32Array;
  private readonly scoresView: Float32Array;
  private readonly run: () => void;

  /** Null when the memory cannot be had (too large for 32-bit addressing, or refused). */
  static create(api: WasmApi, rows: number, dim: number): SimdScorer | null {
    const queryAt = 0,
      scoresAt = align16(dim * 4),
      rowsAt = scoresAt + align16(rows * 4);
    const pages = Math.max(1, Math.ceil((rowsAt + rows * dim * 4) / PAGE));
    if (pages > MAX_PAGES) return null;
    let memory: WasmMemory;
    try {
      memory = new api.Memory({ initial: pages, maximum: pages });
    } catch {
      return null;
    }
    compiled ??= new api.Module(DOT_KERNEL_WASM); // a few hundred bytes: synchronous compilation is allowed everywhere
    const scores = new api.Instance(compiled, { env: { memory } }).exports['scores'] as (
      query: number,
      matrix: number,
      rows: number,
      dim: number,
      out: number,
    ) => void;
    return new SimdScorer(memory, { queryAt, scoresAt, rowsAt }, rows, dim, () => scores(queryAt, rowsAt, rows, dim, scoresAt));
  }

  private constructor(memory: WasmMemory, at: { queryAt: number; scoresAt: number; rowsAt: number }, rows: number, dim: number, run: () => void) {
    // The memory is never grown, so these views never go stale (a grow would detach them).
    this.queryView = new Float32Array(memory.buffer, at.queryAt, dim);
    this.scoresView = new Float32Array(memory.buffer, at.scoresAt, rows);
    this.rowsView = new Float32Array(memory.buffer, at.rowsAt, rows * dim);
    this.run = run;
  }

  /** Every row's score, in a view that the next call overwrites. */
  scores(query: Float32Array): Float32Array {
    this.queryView.set(query);
    this.run();
    return this.scoresView;
  }
}

/**
 * A pool's embedding matrix held for ranking: one copy of the rows, made when the matrix is built
 * (in the kernel's WebAssembly memory for SIMD), and per query only the query vector is copied.
 * Ranking is the kernel's scores for every row, then a partial top-k; nothing is sorted but the k.
 * The SIMD scores are f32 sums (order in dotKernel.ts); the JS ones are f64 sums of the same
 * products, so the two agree to f32 rounding and rank the same rows except between near-ties.
 */
export class ScoreMatrix implements EmbeddingMatrix {
  private constructor(
    readonly rows: number,
    readonly dim: number,
    /** The rows, row-major; write through it to fill a matrix made by `allocate`. */
    readonly data: Float32Array,
    readonly kernel: DotKernel,
    private readonly simd: SimdScorer | null,
  ) {}

  /** A matrix of zero rows to be filled through `data`, so the rows are written once, in place. */
  static allocate(rows: number, dim: number, options: ScoreMatrixOptions = {}): ScoreMatrix {
    if (!Number.isInteger(rows) || !Number.isInteger(dim) || rows < 0 || dim < 0)
      throw new EngineError('invalid-input', `A score matrix needs whole, non-negative sizes, not ${rows} x ${dim}.`);
    const api = wasmApi();
    const wantSimd = (options.kernel ?? 'wasm-simd') === 'wasm-simd' && api !== undefined && simdSupported(options.validate);
    const simd = wantSimd ? SimdScorer.create(api, rows, dim) : null;
    return simd ? new ScoreMatrix(rows, dim, simd.rowsView, 'wasm-simd', simd) : new ScoreMatrix(rows, dim, new Float32Array(rows * dim), 'js', null);
  }

  /** A copy of a matrix, or the matrix itself when it already is a ScoreMatrix with the kernel asked for. */
  static of(matrix: EmbeddingMatrix, options: ScoreMatrixOptions = {}): ScoreMatrix {
    if (matrix instanceof ScoreMatrix && options.kernel === undefined && options.validate === undefined) return matrix;
    const out = ScoreMatrix.allocate(matrix.rows, matrix.dim, options);
    out.data.set(matrix.data.subarray(0, matrix.rows * matrix.dim));
    return out;
  }

  /** Rows of equal length stacked into one matrix (dim 0 when there are none). */
  static fromRows(rows: readonly Float32Array[], options: ScoreMatrixOptions = {}): ScoreMatrix {
    const dim = rows[0]?.length ?? 0;
    const out = ScoreMatrix.allocate(rows.length, dim, options);
    rows.forEach((row, r) => {
      if (row.length !== dim) throw new EngineError('invalid-input', `Row ${r} has ${row.length} values, not ${dim} like the first.`);
      out.data.set(row, r * dim);
    });
    return out;
  }

  /** Every row's dot product with the query, in a new array: with SIMD the very scores topK ranks by. */
  scores(query: Float32Array): Float64Array {
    if (query.length !== this.dim) throw new EngineError('invalid-input', `The query has ${query.length} dimensions, the matrix ${this.dim}.`);
    if (this.simd) return Float64Array.from(this.simd.scores(query));
    const out = new Float64Array(this.rows);
    for (let r = 0; r < this.rows; r++) {
      let s = 0;
      const base = r * this.dim;
      for (let j = 0; j < this.dim; j++) s += this.data[base + j]! * query[j]!;
      out[r] = s;
    }
    return out;
  }

  /** The k best rows by dot product with the query, best first, never one in `exclude`. */
  topK(query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
    if (query.length !== this.dim) throw new EngineError('invalid-input', `The query has ${query.length} dimensions, the matrix ${this.dim}.`);
    if (!this.simd) return topKByDot(this, query, k, exclude);
    return topKOfScores(this.simd.scores(query), k, exclude);
  }
}

/** The k best rows of any matrix: a ScoreMatrix with its kernel, a plain one with the JS scan (no copy). */
export function topKRows(matrix: EmbeddingMatrix, query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
  return matrix instanceof ScoreMatrix ? matrix.topK(query, k, exclude) : topKByDot(matrix, query, k, exclude);
}
