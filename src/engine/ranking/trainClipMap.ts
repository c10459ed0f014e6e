import { EngineError } from '../errors';
import { rankAmong, recallAtK } from '../metrics/dialogMetrics';
import { seededRandom } from '../random';
import { applyMap } from './clipMapRanker';
import { type EmbeddingMatrix, dot } from '../retrieval/vectors';
import { shuffleWith } from '../selection/protocols';

/**
 * Trains clip-map's response-side map, score = cosine(x, (W + aI) y) (PolyAI conversational-datasets,
 * the "map" baselines), in plain TypeScript: the in-batch softmax ("dot-product loss", Henderson et
 * al. 2017) over scale x cosine, Adam, W = 0 and a = 1 at the start (so epoch 0 is clip-sim), and
 * early stopping on valid 1-of-100 R@1. The one trainer of the map: `npm run heads:data` trains the
 * pack's clip-map here on the demo train split for models/scripts/heads/train_heads.py to read
 * (batch 64, scale 20, learning rate 1e-3); the page and `bench -- select` use that map.
 * Everything is deterministic for a seed.
 */

/** Context and response unit embeddings, row i of x paired with row i of y. */
export interface MapPairs {
  x: EmbeddingMatrix;
  y: EmbeddingMatrix;
}

export interface ClipMapTrainingOptions {
  maxEpochs?: number;
  batchSize?: number;
  learningRate?: number;
  /** Multiplies the cosines before the softmax (a fixed inverse temperature). */
  scale?: number;
  /** Epochs without a better valid R@1 before stopping. */
  patience?: number;
  seed?: number;
  /**
   * Whether the untrained map (epoch 0: W = 0, a = 1, which is clip-sim) may be kept (default true).
   * The heads' recipe keeps a trained epoch only: its valid R@1 dips for a few epochs before it climbs.
   */
  keepEpochZero?: boolean;
  onEpoch?: (epoch: ClipMapEpoch) => void;
}

interface ClipMapEpoch {
  epoch: number;
  /** Mean training loss over the epoch's batches (NaN for epoch 0, before any step). */
  loss: number;
  /** Valid 1-of-100 R@1, 0 to 1. */
  validR1: number;
}

export interface TrainedClipMap {
  /** Row-major dim x dim, as applyMap reads it. */
  w: Float32Array;
  a: number;
  bestEpoch: number;
  validR1: number;
  history: ClipMapEpoch[];
}

/**
 * The loss of one batch and its gradient. With m_j = (W + aI) y_j, n_j = m_j / |m_j| and logits
 * s_ij = scale x_i . n_j, the loss is the mean over i of -log softmax(s_i)_i. Backwards:
 * G = (softmax - I) / B, g_j = scale sum_i G_ij x_i, h_j = (g_j - n_j (n_j . g_j)) / |m_j|,
 * dL/dW = sum_j h_j y_j^T, dL/da = sum_j h_j . y_j. `gradW` is overwritten. The two dim x dim
 * products take four rows per pass, which V8 runs about twice as fast as the plain loops.
 */
export function clipMapBatchLoss(
  w: Float64Array,
  a: number,
  x: Float64Array,
  y: Float64Array,
  rows: number,
  dim: number,
  scale: number,
  gradW: Float64Array,
): { loss: number; gradA: number } {
  const d = dim,
    B = rows;
  const n = new Float64Array(B * d);
  const norms = new Float64Array(B);
  const d4 = d - (d % 4);
  for (let j = 0; j < B; j++) {
    const yj = j * d;
    let i = 0;
    for (; i < d4; i += 4) {
      const w0 = i * d,
        w1 = w0 + d,
        w2 = w1 + d,
        w3 = w2 + d;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let k = 0; k < d; k++) {
        const yk = y[yj + k]!;
        s0 += w[w0 + k]! * yk;
        s1 += w[w1 + k]! * yk;
        s2 += w[w2 + k]! * yk;
        s3 += w[w3 + k]! * yk;
      }
      n[yj + i] = s0;
      n[yj + i + 1] = s1;
      n[yj + i + 2] = s2;
      n[yj + i + 3] = s3;
    }
    for (; i < d; i++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += w[i * d + k]! * y[yj + k]!;
      n[yj + i] = s;
    }
    let sq = 0;
    for (let k = 0; k < d; k++) {
      const v = (n[yj + k]! += a * y[yj + k]!);
      sq += v * v;
    }
    const norm = Math.sqrt(sq) || 1e-12;
    norms[j] = norm;
    for (let k = 0; k < d; k++) n[yj + k]! /= norm;
  }
  // Logits, then G = (softmax - I) / B in place.
  const g = new Float64Array(B * B);
  let loss = 0;
  for (let i = 0; i < B; i++) {
    const xi = i * d,
      gi = i * B;
    let max = -Infinity;
    for (let j = 0; j < B; j++) {
      const nj = j * d;
      let s0 = 0,
        s1 = 0;
      let k = 0;
      for (; k + 1 < d; k += 2) {
        s0 += x[xi + k]! * n[nj + k]!;
        s1 += x[xi + k + 1]! * n[nj + k + 1]!;
      }
      if (k < d) s0 += x[xi + k]! * n[nj + k]!;
      const s = (s0 + s1) * scale;
      g[gi + j] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let j = 0; j < B; j++) sum += Math.exp(g[gi + j]! - max);
    loss += max + Math.log(sum) - g[gi + i]!;
    for (let j = 0; j < B; j++) g[gi + j] = (Math.exp(g[gi + j]! - max) / sum - (i === j ? 1 : 0)) / B;
  }
  // h_j, then the gradients of W and a.
  const h = new Float64Array(B * d);
  let gradA = 0;
  for (let j = 0; j < B; j++) {
    const base = j * d;
    for (let i = 0; i < B; i++) {
      const c = scale * g[i * B + j]!;
      const xi = i * d;
      for (let k = 0; k < d; k++) h[base + k]! += c * x[xi + k]!;
    }
    let along = 0;
    for (let k = 0; k < d; k++) along += n[base + k]! * h[base + k]!;
    const inv = 1 / norms[j]!;
    for (let k = 0; k < d; k++) {
      h[base + k] = (h[base + k]! - n[base + k]! * along) * inv;
      gradA += h[base + k]! * y[base + k]!;
    }
  }
  const B4 = B - (B % 4);
  for (let i = 0; i < d; i++) {
    const wi = i * d;
    for (let k = 0; k < d; k++) gradW[wi + k] = 0;
    let j = 0;
    for (; j < B4; j += 4) {
      const y0 = j * d,
        y1 = y0 + d,
        y2 = y1 + d,
        y3 = y2 + d;
      const h0 = h[y0 + i]!,
        h1 = h[y1 + i]!,
        h2 = h[y2 + i]!,
        h3 = h[y3 + i]!;
      for (let k = 0; k < d; k++) gradW[wi + k]! += h0 * y[y0 + k]! + h1 * y[y1 + k]! + h2 * y[y2 + k]! + h3 * y[y3 + k]!;
    }
    for (; j < B; j++) {
      const hj = h[j * d + i]!;
      for (let k = 0; k < d; k++) gradW[wi + k]! += hj * y[j * d + k]!;
    }
  }
  return { loss: loss / B, gradA };
}

/** A learned map, as applyMap reads it. */
export interface ClipMap {
  w: Float32Array;
  a: number;
}

/** One valid query of a map: the context vector, its reference response and the record's own negatives (rows of one matrix). */
export interface MapQuery {
  x: Float32Array;
  target: number;
  negatives: readonly number[];
}

/**
 * R@1 of each query's reference among its own negatives (MMDialog's records carry 999; the heads use
 * the first 99), ties at their expected rank. Every row is mapped once per call.
 */
export function mapRecallAmongNegatives(params: ClipMap, rows: EmbeddingMatrix, queries: readonly MapQuery[]): number {
  const d = rows.dim;
  const mapped = new Map<number, Float32Array>();
  const key = (r: number) => {
    let m = mapped.get(r);
    if (!m) mapped.set(r, (m = applyMap(params, rows.data.subarray(r * d, (r + 1) * d))));
    return m;
  };
  let hits = 0;
  for (const q of queries)
    hits += recallAtK(
      rankAmong(
        Float64Array.from([q.target, ...q.negatives], (r) => dot(q.x, key(r))),
        0,
      ),
      1,
    );
  return queries.length ? hits / queries.length : 0;
}

/** 1-of-100 R@1 of a map on pairs in consecutive batches of 100 (a last, smaller batch of at least 2 counts too), ties at their expected rank. */
export function mapOneOfHundred(params: ClipMap, pairs: MapPairs): number {
  const { x, y } = pairs;
  const d = x.dim;
  const row = (m: EmbeddingMatrix, r: number) => m.data.subarray(r * d, (r + 1) * d);
  let hits = 0,
    count = 0;
  for (let start = 0; start < x.rows; start += 100) {
    const end = Math.min(x.rows, start + 100);
    if (end - start < 2) break;
    const mapped: Float32Array[] = [];
    for (let r = start; r < end; r++) mapped.push(applyMap(params, row(y, r)));
    for (let r = start; r < end; r++) {
      const xr = row(x, r);
      hits += recallAtK(
        rankAmong(
          Float64Array.from(mapped, (m) => dot(xr, m)),
          r - start,
        ),
        1,
      );
      count++;
    }
  }
  return count ? hits / count : 0;
}

/**
 * `valid` picks the epoch: pairs scored 1-of-100 in batches of 100 (mapOneOfHundred), or any R@1 of
 * a map (the heads' data use mapRecallAmongNegatives).
 */
export function trainClipMap(train: MapPairs, valid: MapPairs | ((map: ClipMap) => number), options: ClipMapTrainingOptions = {}): TrainedClipMap {
  const steps = clipMapTrainingSteps(train, valid, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * The same training, handing control back every `batchesPerSlice` batches: the worker trains in the
 * background this way and still answers the chat between slices.
 */
export async function trainClipMapInSlices(
  train: MapPairs,
  valid: MapPairs | ((map: ClipMap) => number),
  options: ClipMapTrainingOptions,
  yieldControl: () => Promise<void>,
  batchesPerSlice = 4,
): Promise<TrainedClipMap> {
  const steps = clipMapTrainingSteps(train, valid, options);
  for (let batch = 1; ; batch++) {
    const next = steps.next();
    if (next.done) return next.value;
    if (batch % batchesPerSlice === 0) await yieldControl();
  }
}

/** trainClipMap as a generator that yields after every batch. */
function* clipMapTrainingSteps(
  train: MapPairs,
  valid: MapPairs | ((map: ClipMap) => number),
  options: ClipMapTrainingOptions,
): Generator<void, TrainedClipMap> {
  const d = train.x.dim;
  const validPairs = typeof valid === 'function' ? null : valid;
  if (
    train.x.rows !== train.y.rows ||
    train.y.dim !== d ||
    (validPairs && (validPairs.x.rows !== validPairs.y.rows || validPairs.x.dim !== d || validPairs.y.dim !== d))
  ) {
    throw new EngineError('invalid-input', 'trainClipMap: x and y must have the same rows and dimension.');
  }
  if (validPairs && (train.x.rows < 2 || validPairs.x.rows < 2))
    throw new EngineError(
      'invalid-input',
      `trainClipMap: ${train.x.rows} train and ${validPairs.x.rows} valid pairs; the in-batch loss and 1-of-100 need at least 2 of each.`,
    );
  if (train.x.rows < 2) throw new EngineError('invalid-input', `trainClipMap: ${train.x.rows} train pairs; the in-batch loss needs at least 2.`);
  const maxEpochs = options.maxEpochs ?? 40;
  const batchSize = options.batchSize ?? 64;
  const lr = options.learningRate ?? 1e-3;
  const scale = options.scale ?? 20;
  const patience = options.patience ?? 5;
  const next = seededRandom(options.seed ?? 1);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];

  const w = new Float64Array(d * d);
  let a = 1;
  const gradW = new Float64Array(d * d);
  const mW = new Float64Array(d * d),
    vW = new Float64Array(d * d);
  let mA = 0,
    vA = 0,
    step = 0;
  const xBatch = new Float64Array(batchSize * d),
    yBatch = new Float64Array(batchSize * d);
  const order = Array.from({ length: train.x.rows }, (_, i) => i);

  const validR1 = validPairs ? (map: ClipMap) => mapOneOfHundred(map, validPairs) : (valid as (map: ClipMap) => number);
  const evaluate = () => validR1({ w: Float32Array.from(w), a });
  const history: ClipMapEpoch[] = [{ epoch: 0, loss: NaN, validR1: evaluate() }];
  options.onEpoch?.(history[0]!);
  const untrained = { w: Float32Array.from(w), a, epoch: 0, validR1: history[0]!.validR1 };
  let best = options.keepEpochZero === false ? null : untrained;
  for (let epoch = 1, worse = 0; epoch <= maxEpochs && worse < patience; epoch++) {
    shuffleWith(order, next);
    let lossSum = 0,
      batches = 0;
    for (let start = 0; start + 2 <= order.length; start += batchSize) {
      const rows = Math.min(batchSize, order.length - start);
      for (let r = 0; r < rows; r++) {
        const src = order[start + r]! * d;
        xBatch.set(train.x.data.subarray(src, src + d), r * d);
        yBatch.set(train.y.data.subarray(src, src + d), r * d);
      }
      const { loss, gradA } = clipMapBatchLoss(w, a, xBatch, yBatch, rows, d, scale, gradW);
      lossSum += loss;
      batches++;
      // Adam (Kingma & Ba 2015) with bias correction.
      step++;
      const c1 = 1 - beta1 ** step,
        c2 = 1 - beta2 ** step;
      for (let i = 0; i < w.length; i++) {
        const gi = gradW[i]!;
        mW[i] = beta1 * mW[i]! + (1 - beta1) * gi;
        vW[i] = beta2 * vW[i]! + (1 - beta2) * gi * gi;
        w[i]! -= (lr * (mW[i]! / c1)) / (Math.sqrt(vW[i]! / c2) + eps);
      }
      mA = beta1 * mA + (1 - beta1) * gradA;
      vA = beta2 * vA + (1 - beta2) * gradA * gradA;
      a -= (lr * (mA / c1)) / (Math.sqrt(vA / c2) + eps);
      yield;
    }
    const entry = { epoch, loss: lossSum / Math.max(1, batches), validR1: evaluate() };
    history.push(entry);
    options.onEpoch?.(entry);
    if (!best || entry.validR1 > best.validR1) {
      best = { w: Float32Array.from(w), a, epoch, validR1: entry.validR1 };
      worse = 0;
    } else worse++;
  }
  const kept = best ?? untrained; // no epoch trained (maxEpochs 0)
  return { w: kept.w, a: kept.a, bestEpoch: kept.epoch, validR1: kept.validR1, history };
}
