import { describe, expect, it } from 'vitest';
import {
  LinearIntent,
  type IntentSample,
  intentFeatureCount,
  intentFeatures,
  intentFigures,
  linearIntentSteps,
  readLocalHeads,
  storeLocalHeads,
  trainInSlices,
} from '../response/localHeads';
import { seededRandom } from '../random';

/** Three classes told apart by which of three features is on, with noise elsewhere. */
function toy(n: number, seed: number): IntentSample[] {
  const next = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const label = i % 3;
    const features = Float32Array.from({ length: 6 }, () => (next() - 0.5) * 0.2);
    features[label] = 1;
    return { features, label };
  });
}

function run<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

describe('the intent head trained in the worker', () => {
  it('learns a separable problem, deterministically', () => {
    const options = { seed: 3, maxEpochs: 20, learningRate: 0.05 };
    const trained = run(linearIntentSteps(toy(90, 1), toy(30, 2), options));
    expect(trained.validAccuracy).toBe(1);
    expect(trained.validMacroF1).toBe(1);
    const again = run(linearIntentSteps(toy(90, 1), toy(30, 2), options));
    expect(Array.from(again.model.params.weights)).toEqual(Array.from(trained.model.params.weights));
  });

  it('with no epoch to train, keeps the untrained model', () => {
    const trained = run(linearIntentSteps(toy(30, 1), toy(30, 2), { maxEpochs: 0 }));
    expect(trained.bestEpoch).toBe(0);
    expect(Array.from(trained.model.params.weights).every((w) => w === 0)).toBe(true);
  });

  it('scores accuracy and macro F1 over text, image and stop', () => {
    // Always predicts text (bias): 2 of 4 right; F1 text 2/3, image 0, stop 0.
    const model = new LinearIntent({ weights: new Float32Array(3 * 2), bias: Float32Array.from([1, 0, 0]) });
    const samples = [0, 0, 1, 2].map((label) => ({ features: new Float32Array(2), label }));
    const figures = intentFigures(model, samples);
    expect(figures.accuracy).toBe(0.5);
    expect(figures.macroF1).toBeCloseTo(2 / 9, 12);
  });

  it('reads the latest turn, the reply so far and the reply state', () => {
    const e = (kind: 'text' | 'image', v: number[]) => ({ kind, text: '', embedding: Float32Array.from(v) });
    const features = intentFeatures({ turns: [{ speaker: 0, elements: [e('text', [3, 4])] }], partial: [e('image', [0, 2])] });
    expect(features.length).toBe(intentFeatureCount(2));
    // context unit mean, reply-so-far unit mean, then one-hot of replyState = 1 * 2 + 1 (an image).
    expect(Array.from(features)).toEqual([0.6000000238418579, 0.800000011920929, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
  });

  it('hands control back every few steps', async () => {
    let yields = 0;
    const steps = (function* () {
      for (let i = 0; i < 20; i++) yield;
      return 'done';
    })();
    expect(await trainInSlices(steps, async () => void yields++, 8)).toBe('done');
    expect(yields).toBe(2);
  });

  it('is cached as plain arrays and read back only for the same dimension', () => {
    const dim = 2;
    const heads = {
      intent: new LinearIntent({ weights: new Float32Array(3 * intentFeatureCount(dim)).fill(0.5), bias: Float32Array.from([1, 2, 3]) }),
      clipMap: { dim, text: { w: Float32Array.from([1, 0, 0, 1]), a: 0.5 }, image: { w: new Float32Array(4), a: 1 } },
      figures: {
        intent: { validAccuracy: 0.5, validMacroF1: 0.4, majorityAccuracy: 0.3, bestEpoch: 2, trainSteps: 10, validSteps: 5, ms: 1 },
        clipMap: {
          text: { validR1: 0.1, zeroShotR1: 0.05, bestEpoch: 1, trainPairs: 3, validQueries: 2, ms: 1 },
          image: { validR1: 0.2, zeroShotR1: 0.1, bestEpoch: 1, trainPairs: 3, validQueries: 2, ms: 1 },
        },
        encodeMs: 0,
        totalMs: 2,
      },
    };
    const stored = structuredClone(storeLocalHeads(heads));
    const read = readLocalHeads(stored, dim)!;
    expect(Array.from(read.intent.params.bias)).toEqual([1, 2, 3]);
    expect(read.clipMap.text.a).toBe(0.5);
    expect(readLocalHeads(stored, 3)).toBeNull();
    expect(readLocalHeads(undefined, dim)).toBeNull();
  });
});
