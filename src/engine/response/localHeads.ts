import type { IntentModel, IntentProbabilities } from './compose';
import { replyState } from './heads';
import { seededRandom } from '../random';
import type { ClipMapParams } from '../ranking/clipMapRanker';
import { contextVector } from '../ranking/ranker';
import type { ResponseState } from './types';
import { l2Normalize } from '../retrieval/vectors';
import { shuffleWith } from '../selection/protocols';

/**
 * The reply system a pack can have without Python: clip-map (trainClipMap) and an intent head
 * trained in plain TypeScript in the worker, on the demo train split and early-stopped on its valid
 * split, for packs that ship no heads (a downloaded real CLIP). The intent head here is softmax
 * regression: MMDialog eq. 4's I([U, R<j]) read as linear in [mean embedding of the latest turn, mean
 * embedding of the reply so far, reply state one-hot] -> text / image / stop. Smaller than the
 * Python transformer head, and trainable in seconds.
 */

/** 8 reply states (heads.ts replyState: min(elements, 3) * 2 + has image). */
const REPLY_STATES = 8;

export function intentFeatureCount(dim: number): number {
  return 2 * dim + REPLY_STATES;
}

/** The intent head's input for a state. */
export function intentFeatures(state: ResponseState): Float32Array {
  const context = contextVector(state);
  const dim = context.length;
  const out = new Float32Array(intentFeatureCount(dim));
  out.set(context, 0);
  if (state.partial.length > 0) {
    const sum = new Float32Array(dim);
    for (const e of state.partial) for (let i = 0; i < dim; i++) sum[i]! += e.embedding[i]!;
    out.set(l2Normalize(sum), dim);
  }
  out[2 * dim + replyState(state.partial)] = 1;
  return out;
}

export interface IntentSample {
  features: Float32Array;
  /** 0 text, 1 image, 2 stop (INTENTS). */
  label: number;
}

export interface LinearIntentParams {
  /** 3 x features, row-major. */
  weights: Float32Array;
  bias: Float32Array;
}

function logits(params: LinearIntentParams, x: Float32Array, out: Float64Array): void {
  const f = x.length;
  for (let k = 0; k < 3; k++) {
    let s = params.bias[k]!;
    const row = k * f;
    for (let i = 0; i < f; i++) s += params.weights[row + i]! * x[i]!;
    out[k] = s;
  }
}

function softmaxInPlace(v: Float64Array): void {
  const max = Math.max(v[0]!, v[1]!, v[2]!);
  let sum = 0;
  for (let k = 0; k < 3; k++) sum += v[k] = Math.exp(v[k]! - max);
  for (let k = 0; k < 3; k++) v[k]! /= sum;
}

export class LinearIntent implements IntentModel {
  readonly id = 'head' as const;
  constructor(readonly params: LinearIntentParams) {}

  probabilities(features: Float32Array): IntentProbabilities {
    const v = new Float64Array(3);
    logits(this.params, features, v);
    softmaxInPlace(v);
    return [v[0]!, v[1]!, v[2]!];
  }

  async predict(state: ResponseState): Promise<IntentProbabilities> {
    return this.probabilities(intentFeatures(state));
  }
}

/** Per-step accuracy and macro F1 over text / image / stop. */
export function intentFigures(model: LinearIntent, samples: readonly IntentSample[]): { accuracy: number; macroF1: number } {
  const tp = [0, 0, 0],
    fp = [0, 0, 0],
    fn = [0, 0, 0];
  let right = 0;
  for (const s of samples) {
    const p = model.probabilities(s.features);
    const predicted = p[0] >= p[1] && p[0] >= p[2] ? 0 : p[1] >= p[2] ? 1 : 2;
    if (predicted === s.label) {
      right++;
      tp[predicted]!++;
    } else {
      fp[predicted]!++;
      fn[s.label]!++;
    }
  }
  const f1 = [0, 1, 2].map((k) => (2 * tp[k]! + fp[k]! + fn[k]! === 0 ? 0 : (2 * tp[k]!) / (2 * tp[k]! + fp[k]! + fn[k]!)));
  return { accuracy: samples.length ? right / samples.length : 0, macroF1: (f1[0]! + f1[1]! + f1[2]!) / 3 };
}

export interface IntentTrainingOptions {
  maxEpochs?: number;
  patience?: number;
  batchSize?: number;
  learningRate?: number;
  /** L2 penalty on the weights. */
  weightDecay?: number;
  seed?: number;
  onEpoch?: (epoch: { epoch: number; loss: number; validAccuracy: number }) => void;
}

export interface TrainedIntent {
  model: LinearIntent;
  bestEpoch: number;
  validAccuracy: number;
  validMacroF1: number;
}

/** Softmax regression with Adam, early-stopped on valid accuracy; yields after every batch (see trainInSlices). */
export function* linearIntentSteps(
  train: readonly IntentSample[],
  valid: readonly IntentSample[],
  options: IntentTrainingOptions = {},
): Generator<void, TrainedIntent> {
  const f = train[0]?.features.length ?? 0;
  const maxEpochs = options.maxEpochs ?? 30;
  const patience = options.patience ?? 3;
  const batchSize = options.batchSize ?? 128;
  const lr = options.learningRate ?? 3e-3;
  const decay = options.weightDecay ?? 1e-4;
  const next = seededRandom(options.seed ?? 1);
  const params: LinearIntentParams = { weights: new Float32Array(3 * f), bias: new Float32Array(3) };
  const gradW = new Float64Array(3 * f),
    gradB = new Float64Array(3);
  const mW = new Float64Array(3 * f),
    vW = new Float64Array(3 * f),
    mB = new Float64Array(3),
    vB = new Float64Array(3);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  const order = Array.from({ length: train.length }, (_, i) => i);
  const p = new Float64Array(3);
  let step = 0;
  const snapshot = (): LinearIntentParams => ({ weights: Float32Array.from(params.weights), bias: Float32Array.from(params.bias) });
  let best = { params: snapshot(), epoch: 0, ...intentFigures(new LinearIntent(params), valid) };
  for (let epoch = 1, worse = 0; epoch <= maxEpochs && worse < patience; epoch++) {
    shuffleWith(order, next);
    let lossSum = 0;
    for (let start = 0; start < order.length; start += batchSize) {
      const rows = Math.min(batchSize, order.length - start);
      gradW.fill(0);
      gradB.fill(0);
      for (let r = 0; r < rows; r++) {
        const sample = train[order[start + r]!]!;
        logits(params, sample.features, p);
        softmaxInPlace(p);
        lossSum -= Math.log(Math.max(1e-12, p[sample.label]!));
        for (let k = 0; k < 3; k++) {
          const g = (p[k]! - (k === sample.label ? 1 : 0)) / rows;
          gradB[k]! += g;
          if (g === 0) continue;
          const row = k * f;
          const x = sample.features;
          for (let i = 0; i < f; i++) if (x[i] !== 0) gradW[row + i]! += g * x[i]!;
        }
      }
      // Adam (Kingma & Ba 2015) with bias correction; L2 on the weights.
      step++;
      const c1 = 1 - beta1 ** step,
        c2 = 1 - beta2 ** step;
      for (let i = 0; i < gradW.length; i++) {
        const gi = gradW[i]! + decay * params.weights[i]!;
        mW[i] = beta1 * mW[i]! + (1 - beta1) * gi;
        vW[i] = beta2 * vW[i]! + (1 - beta2) * gi * gi;
        params.weights[i]! -= (lr * (mW[i]! / c1)) / (Math.sqrt(vW[i]! / c2) + eps);
      }
      for (let k = 0; k < 3; k++) {
        mB[k] = beta1 * mB[k]! + (1 - beta1) * gradB[k]!;
        vB[k] = beta2 * vB[k]! + (1 - beta2) * gradB[k]! * gradB[k]!;
        params.bias[k]! -= (lr * (mB[k]! / c1)) / (Math.sqrt(vB[k]! / c2) + eps);
      }
      yield;
    }
    const figures = intentFigures(new LinearIntent(params), valid);
    options.onEpoch?.({ epoch, loss: lossSum / Math.max(1, order.length), validAccuracy: figures.accuracy });
    if (figures.accuracy > best.accuracy) {
      best = { params: snapshot(), epoch, ...figures };
      worse = 0;
    } else worse++;
  }
  return { model: new LinearIntent(best.params), bestEpoch: best.epoch, validAccuracy: best.accuracy, validMacroF1: best.macroF1 };
}

/** Runs a training generator, handing control back every `stepsPerSlice` steps (the worker keeps answering). */
export async function trainInSlices<T>(steps: Generator<void, T>, yieldControl: () => Promise<void>, stepsPerSlice = 8): Promise<T> {
  for (let n = 1; ; n++) {
    const next = steps.next();
    if (next.done) return next.value;
    if (n % stepsPerSlice === 0) await yieldControl();
  }
}

/** What the worker trained for a pack, and how it did on the valid split. */
export interface LocalHeads {
  intent: LinearIntent;
  clipMap: ClipMapParams;
  figures: LocalHeadsFigures;
}

export interface LocalHeadsFigures {
  intent: { validAccuracy: number; validMacroF1: number; majorityAccuracy: number; bestEpoch: number; trainSteps: number; validSteps: number; ms: number };
  clipMap: Record<'text' | 'image', { validR1: number; zeroShotR1: number; bestEpoch: number; trainPairs: number; validQueries: number; ms: number }>;
  encodeMs: number;
  totalMs: number;
}

/** The trained parameters as plain arrays, to cache them (IndexedDB) and read them back. */
export interface StoredLocalHeads {
  version: 1;
  dim: number;
  intent: { weights: Float32Array; bias: Float32Array };
  clipMap: { text: { w: Float32Array; a: number }; image: { w: Float32Array; a: number } };
  figures: LocalHeadsFigures;
}

export function storeLocalHeads(heads: LocalHeads): StoredLocalHeads {
  return {
    version: 1,
    dim: heads.clipMap.dim,
    intent: heads.intent.params,
    clipMap: { text: heads.clipMap.text, image: heads.clipMap.image },
    figures: heads.figures,
  };
}

export function readLocalHeads(stored: StoredLocalHeads | undefined, dim: number): LocalHeads | null {
  if (!stored || stored.version !== 1 || stored.dim !== dim || stored.intent.weights.length !== 3 * intentFeatureCount(dim)) return null;
  return { intent: new LinearIntent(stored.intent), clipMap: { dim, text: stored.clipMap.text, image: stored.clipMap.image }, figures: stored.figures };
}
