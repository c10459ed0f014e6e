import { nowMs } from '../../engine/clock';
import { seededRandom } from '../../engine/random';
import { Int8Matrix } from '../../engine/retrieval/int8Matrix';
import { ScoreMatrix } from '../../engine/retrieval/scoreMatrix';
import { type ScoredIndex, topKByDot, topKOfScores } from '../../engine/retrieval/vectors';

/**
 * Ranking a million candidates (part of `npm run bench -- perf`): the int8 matrix with its WASM SIMD
 * kernel (Int8Matrix, what a pool that large would use), next to the f32 kernel the app uses for its
 * pools, the JS scan, and the naive way; its memory; and how far int8 changes the top-10.
 *
 * The rows are the pack's own pool embeddings, each taken again with its own random perturbation
 * (row r = normalize(pool row r mod P + noise of norm `spread`)), so the scores have the structure of
 * real embeddings rather than of uniform noise, where every score is a near-tie.
 */
const MB = 1024 * 1024;
const rss = () => process.memoryUsage().rss / MB;

function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
}

/** Writes row r of the synthetic matrix into `out`: a pool row with its own noise, unit length. */
function syntheticRow(pool: Float32Array, poolRows: number, dim: number, r: number, spread: number, out: Float32Array): void {
  const random = seededRandom(1_000_003 + r);
  const base = (r % poolRows) * dim;
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    // Sum of two uniforms, centred: close enough to a normal for a perturbation.
    const noise = (random() + random() - 1) * spread * Math.sqrt(6 / dim);
    out[j] = pool[base + j]! + noise;
    norm += out[j]! * out[j]!;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < dim; j++) out[j]! *= inv;
}

export async function scaleBench(pool: Float32Array, poolRows: number, dim: number, rows: number, queries = 20, spread = 0.5): Promise<void> {
  const row = new Float32Array(dim);
  const queryVectors = Array.from({ length: queries }, (_, q) => {
    const v = new Float32Array(dim);
    // A query is a pool row with a perturbation of its own (not one of the rows' perturbations).
    syntheticRow(pool, poolRows, dim, 7919 * (q + 1) + rows, spread, v);
    return v;
  });

  // Memory first, with nothing else of this size held: the int8 matrix filled row by row.
  global.gc?.();
  const before = rss();
  let t = nowMs();
  const int8 = Int8Matrix.allocate(rows, dim); // with the residual codes (refine), as a pool would hold it
  for (let r = 0; r < rows; r++) {
    syntheticRow(pool, poolRows, dim, r, spread, row);
    int8.setRow(r, row);
  }
  const buildMs = nowMs() - t;
  const after = rss();

  const time = (runs: number, rank: (q: Float32Array) => ScoredIndex[]) => {
    const ms: number[] = [];
    const tops: ScoredIndex[][] = [];
    for (let i = 0; i < runs; i++) {
      const q = queryVectors[i % queryVectors.length]!;
      t = nowMs();
      tops.push(rank(q));
      ms.push(nowMs() - t);
    }
    return { ...stats(ms), tops };
  };
  const int8Simd = time(3 * queries, (q) => int8.topK(q, 10));
  // The same codes without the refining step: the int8 scores alone (the coarse ranking refine starts from).
  const coarse = time(queries, (q) => {
    const { scores, queryScale } = int8.scores(q);
    return topKOfScores(scores, 10).map((s) => ({ index: s.index, score: s.score * queryScale }));
  });

  // The f32 matrix for the other ways and for the exact top-10 (a gigabyte: only for comparison).
  const data = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    syntheticRow(pool, poolRows, dim, r, spread, row);
    data.set(row, r * dim);
  }
  const f32 = ScoreMatrix.of({ data, rows, dim });
  const f32Simd = time(queries, (q) => f32.topK(q, 10));
  const jsScan = time(Math.min(queries, 5), (q) => topKByDot({ data, rows, dim }, q, 10));
  const naive = time(2, (q) => {
    const scored: ScoredIndex[] = [];
    for (let r = 0; r < rows; r++) {
      const v = Array.from(data.subarray(r * dim, (r + 1) * dim)); // a copy per candidate
      let s = 0;
      for (let j = 0; j < dim; j++) s += v[j]! * q[j]!;
      scored.push({ index: r, score: s });
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, 10); // a sort of the whole pool
  });

  // How far int8 moves the top-10, against the f32 kernel's (exact to f32 rounding).
  const agreement = (tops: ScoredIndex[][]) => {
    let recall = 0,
      sameFirst = 0,
      sameOrder = 0;
    for (let q = 0; q < queries; q++) {
      const exact = f32Simd.tops[q]!.map((s) => s.index);
      const approx = tops[q]!.map((s) => s.index);
      recall += exact.filter((i) => approx.includes(i)).length / 10;
      if (exact[0] === approx[0]) sameFirst++;
      if (exact.every((i, j) => approx[j] === i)) sameOrder++;
    }
    return `recall@10 ${((100 * recall) / queries).toFixed(1)}%, same first candidate for ${sameFirst} of ${queries} queries, the same top-10 in the same order for ${sameOrder}`;
  };

  const line = (label: string, r: { median: number; p95: number }, note = '') =>
    `  ${label.padEnd(60)} median ${r.median.toFixed(1).padStart(8)} ms   p95 ${r.p95.toFixed(1).padStart(8)} ms${note}`;
  console.log(`rank ${rows.toLocaleString('en-US')} candidates x ${dim} (the pack's pool rows, each perturbed; ${queries} queries), top-10, one thread`);
  console.log(
    line(`int8 + WASM SIMD, shortlist refined (Int8Matrix, ${int8.kernel})`, int8Simd, `   target 50 ms: ${int8Simd.median <= 50 ? 'met' : 'NOT met'}`),
  );
  console.log(line('int8 + WASM SIMD, coarse scores only', coarse));
  console.log(line("f32 + WASM SIMD (ScoreMatrix, the app's pools)", f32Simd, `   (${(f32Simd.median / int8Simd.median).toFixed(1)}x the int8 time)`));
  console.log(line('JS scan over f32 (topKByDot)', jsScan, `   (${(jsScan.median / int8Simd.median).toFixed(1)}x)`));
  console.log(line('naive (copy per candidate + full sort)', naive, `   (${(naive.median / int8Simd.median).toFixed(0)}x)`));
  console.log(`  refined against f32: ${agreement(int8Simd.tops)}`);
  console.log(`  coarse against f32: ${agreement(coarse.tops)}`);
  console.log(
    `  memory, int8: matrix ${(int8.bytes / MB).toFixed(0)} MB (codes ${(int8.codes.byteLength / MB).toFixed(0)} MB, residual codes and scales ${(int8.residualBytes / MB).toFixed(0)} MB, scales, scores and query ${((int8.bytes - int8.codes.byteLength - int8.residualBytes) / MB).toFixed(0)} MB); process RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after building it (+${(after - before).toFixed(0)} MB, built in ${(buildMs / 1000).toFixed(1)} s); target under 600 MB for the matrix: ${int8.bytes / MB < 600 ? 'met' : 'NOT met'}`,
  );
  console.log(`  memory, f32 for comparison: ${((rows * dim * 4) / MB).toFixed(0)} MB of rows (and the same again inside the SIMD kernel's memory)`);
}
