/**
 * The page of `npm run bench -- gpu-rank` and of e2e/gpu-ranking.spec.ts: one Int8Matrix ranked by
 * the WASM SIMD kernel and by the WebGPU scorer (the engine's classes), on the same queries. Returns
 * whether each query's top-10 is the same and how long each took.
 */
import { seededRandom } from '../../../engine/random';
import { GpuInt8Scorer } from '../../../engine/retrieval/gpuInt8Scorer';
import { Int8Matrix } from '../../../engine/retrieval/int8Matrix';

export interface GpuRankConfig {
  rows: number;
  dim: number;
  queries: number;
  seed: number;
}

export interface GpuRankResult {
  adapter: string;
  sameTop10: boolean[];
  sameScores: number;
  wasmMs: number[];
  gpuMs: number[];
  uploadMs: number;
}

/** Unit rows of seeded noise around a few hundred centres, so scores have structure (not all near-ties). */
function fill(matrix: Int8Matrix, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const centres = Array.from({ length: 300 }, () => Float32Array.from({ length: matrix.dim }, () => random() - 0.5));
  const row = new Float32Array(matrix.dim);
  for (let r = 0; r < matrix.rows; r++) {
    const c = centres[r % centres.length]!;
    let norm = 0;
    for (let j = 0; j < matrix.dim; j++) {
      row[j] = c[j]! + (random() - 0.5) * 0.4;
      norm += row[j]! * row[j]!;
    }
    for (let j = 0; j < matrix.dim; j++) row[j]! /= Math.sqrt(norm);
    matrix.setRow(r, row);
  }
  return centres;
}

async function run(config: GpuRankConfig): Promise<GpuRankResult> {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new Error('This browser offers no WebGPU adapter.');
  const device = await adapter.requestDevice({
    requiredLimits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize },
  });
  const matrix = Int8Matrix.allocate(config.rows, config.dim);
  const centres = fill(matrix, config.seed);
  let t = performance.now();
  const gpu = GpuInt8Scorer.create(device, matrix);
  await device.queue.onSubmittedWorkDone();
  const uploadMs = performance.now() - t;
  const random = seededRandom(config.seed + 1);
  const result: GpuRankResult = {
    adapter: `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim(),
    sameTop10: [],
    sameScores: 0,
    wasmMs: [],
    gpuMs: [],
    uploadMs,
  };
  for (let q = 0; q < config.queries; q++) {
    const query = Float32Array.from(centres[Math.floor(random() * centres.length)]!, (v) => v + (random() - 0.5) * 0.3);
    t = performance.now();
    const wasmTop = matrix.topK(query, 10);
    result.wasmMs.push(performance.now() - t);
    t = performance.now();
    const gpuTop = await gpu.topK(query, 10);
    result.gpuMs.push(performance.now() - t);
    result.sameTop10.push(wasmTop.every((s, i) => s.index === gpuTop[i]!.index));
    if (q === 0) {
      const wasmScores = Float32Array.from(matrix.scores(query).scores);
      const gpuScores = (await gpu.scores(query)).scores;
      result.sameScores = wasmScores.reduce((n, s, i) => n + (s === gpuScores[i] ? 1 : 0), 0) / wasmScores.length;
    }
  }
  gpu.destroy();
  device.destroy();
  return result;
}

(globalThis as unknown as { runGpuRank: typeof run }).runGpuRank = run;
