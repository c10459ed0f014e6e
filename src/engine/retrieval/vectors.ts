/** Row-major matrix of n vectors of dimension dim, in one buffer (no copy per row). */
export interface EmbeddingMatrix {
  data: Float32Array;
  rows: number;
  dim: number;
}

export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function meanVector(vectors: readonly Float32Array[]): Float32Array {
  const dim = vectors[0]?.length ?? 0;
  const out = new Float32Array(dim);
  for (const v of vectors) for (let i = 0; i < dim; i++) out[i]! += v[i]! / vectors.length;
  return out;
}

export function stackRows(vectors: readonly Float32Array[]): EmbeddingMatrix {
  const dim = vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * dim);
  vectors.forEach((v, r) => data.set(v, r * dim));
  return { data, rows: vectors.length, dim };
}

export interface ScoredIndex {
  index: number;
  score: number;
}

/**
 * Keeps the k best (index, score) pairs offered to it with a small min-heap: O(n log k) for n
 * offers, no sort of the whole pool and no copy of any row.
 */
class TopKCollector {
  private readonly heapIdx: Int32Array;
  private readonly heapScore: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.heapIdx = new Int32Array(k);
    this.heapScore = new Float64Array(k);
  }

  offer(index: number, score: number): void {
    const { heapIdx, heapScore, k } = this;
    if (this.size < k) {
      let i = this.size++;
      heapScore[i] = score;
      heapIdx[i] = index;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heapScore[p]! <= heapScore[i]!) break;
        [heapScore[i], heapScore[p]] = [heapScore[p]!, heapScore[i]!];
        [heapIdx[i], heapIdx[p]] = [heapIdx[p]!, heapIdx[i]!];
        i = p;
      }
    } else if (k > 0 && score > heapScore[0]!) {
      heapScore[0] = score;
      heapIdx[0] = index;
      this.siftDown(0);
    }
  }

  /** Whether k pairs are held, so that an offer must beat `floor` to enter. */
  get full(): boolean {
    return this.size === this.k;
  }

  /** The k-th best score held (the heap's minimum); meaningful once `full`. */
  get floor(): number {
    return this.heapScore[0]!;
  }

  /** Best first; ties break toward the lower index so results are deterministic. */
  result(): ScoredIndex[] {
    const out: ScoredIndex[] = [];
    for (let i = 0; i < this.size; i++) out.push({ index: this.heapIdx[i]!, score: this.heapScore[i]! });
    return out.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  private siftDown(i: number): void {
    const { heapIdx, heapScore, size } = this;
    for (;;) {
      const l = 2 * i + 1,
        r = l + 1;
      let m = i;
      if (l < size && heapScore[l]! < heapScore[m]!) m = l;
      if (r < size && heapScore[r]! < heapScore[m]!) m = r;
      if (m === i) return;
      [heapScore[i], heapScore[m]] = [heapScore[m]!, heapScore[i]!];
      [heapIdx[i], heapIdx[m]] = [heapIdx[m]!, heapIdx[i]!];
      i = m;
    }
  }
}

/**
 * Scores every row against the query in one pass over the matrix and keeps the k best. Four rows
 * share each load of the query (and two partial sums each), which V8 runs about twice as fast as the
 * plain loop; the sums are the same products, added in a different order.
 */
export function topKByDot(matrix: EmbeddingMatrix, query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
  const { data, rows, dim } = matrix;
  const best = new TopKCollector(k);
  const even = dim - (dim % 2);
  let row = 0;
  for (; row + 4 <= rows; row += 4) {
    let a0 = 0,
      a1 = 0,
      b0 = 0,
      b1 = 0,
      c0 = 0,
      c1 = 0,
      d0 = 0,
      d1 = 0;
    const ba = row * dim,
      bb = ba + dim,
      bc = bb + dim,
      bd = bc + dim;
    for (let j = 0; j < even; j += 2) {
      const q0 = query[j]!,
        q1 = query[j + 1]!;
      a0 += data[ba + j]! * q0;
      a1 += data[ba + j + 1]! * q1;
      b0 += data[bb + j]! * q0;
      b1 += data[bb + j + 1]! * q1;
      c0 += data[bc + j]! * q0;
      c1 += data[bc + j + 1]! * q1;
      d0 += data[bd + j]! * q0;
      d1 += data[bd + j + 1]! * q1;
    }
    if (even < dim) {
      const q = query[even]!;
      a0 += data[ba + even]! * q;
      b0 += data[bb + even]! * q;
      c0 += data[bc + even]! * q;
      d0 += data[bd + even]! * q;
    }
    if (!exclude?.has(row)) best.offer(row, a0 + a1);
    if (!exclude?.has(row + 1)) best.offer(row + 1, b0 + b1);
    if (!exclude?.has(row + 2)) best.offer(row + 2, c0 + c1);
    if (!exclude?.has(row + 3)) best.offer(row + 3, d0 + d1);
  }
  for (; row < rows; row++) {
    if (exclude?.has(row)) continue;
    let s = 0;
    const base = row * dim;
    for (let j = 0; j < dim; j++) s += data[base + j]! * query[j]!;
    best.offer(row, s);
  }
  return best.result();
}

/** The k best of a score array (one per candidate), skipping excluded indices. */
export function topKOfScores(scores: ArrayLike<number>, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
  if (k <= 0) return [];
  const best = new TopKCollector(k);
  let full = false,
    floor = 0;
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!;
    // Once k are held, nearly every score loses to the k-th best: drop it before the exclusion lookup
    // and the call (an equal score would be refused too, so the result is the same). 3x faster on 100,000.
    if (full && !(score > floor)) continue;
    if (exclude?.has(i)) continue;
    best.offer(i, score);
    if (best.full) {
      full = true;
      floor = best.floor;
    }
  }
  return best.result();
}
