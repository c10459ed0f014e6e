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
 * Scores every row against the query (one pass over the matrix) and keeps the k best with a
 * small min-heap: O(n log k), no sort of the whole pool, no copy of any row.
 */
export function topKByDot(matrix: EmbeddingMatrix, query: Float32Array, k: number, exclude?: ReadonlySet<number>): ScoredIndex[] {
  const { data, rows, dim } = matrix;
  const heapIdx = new Int32Array(k);
  const heapScore = new Float64Array(k);
  let size = 0;
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < size && heapScore[l]! < heapScore[m]!) m = l;
      if (r < size && heapScore[r]! < heapScore[m]!) m = r;
      if (m === i) return;
      [heapScore[i], heapScore[m]] = [heapScore[m]!, heapScore[i]!];
      [heapIdx[i], heapIdx[m]] = [heapIdx[m]!, heapIdx[i]!];
      i = m;
    }
  };
  for (let row = 0; row < rows; row++) {
    if (exclude?.has(row)) continue;
    let s = 0;
    const base = row * dim;
    for (let j = 0; j < dim; j++) s += data[base + j]! * query[j]!;
    if (size < k) {
      let i = size++;
      heapScore[i] = s;
      heapIdx[i] = row;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heapScore[p]! <= heapScore[i]!) break;
        [heapScore[i], heapScore[p]] = [heapScore[p]!, heapScore[i]!];
        [heapIdx[i], heapIdx[p]] = [heapIdx[p]!, heapIdx[i]!];
        i = p;
      }
    } else if (k > 0 && s > heapScore[0]!) {
      heapScore[0] = s;
      heapIdx[0] = row;
      siftDown(0);
    }
  }
  const out: ScoredIndex[] = [];
  for (let i = 0; i < size; i++) out.push({ index: heapIdx[i]!, score: heapScore[i]! });
  // Ties break toward the lower index so results are deterministic.
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}
