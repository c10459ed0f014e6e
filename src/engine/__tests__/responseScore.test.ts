import { describe, expect, it } from 'vitest';
import { recallAtK } from '../metrics/dialogMetrics';
import { type TurnFigures, recallAt1, runningMeans, sessionMeans } from '../metrics/sessionMetrics';
import type { IntentModel, IntentProbabilities } from '../response/compose';
import { type RecallSetup, scoreResponse } from '../response/evaluate';
import { ClipSimRanker } from '../ranking/clipSimRanker';
import type { CandidatePool, ContextElement, ContextTurn } from '../response/types';

const v = (...xs: number[]) => new Float32Array(xs);
const text = (embedding: Float32Array, label = ''): ContextElement => ({ kind: 'text', text: label, embedding });
const image = (embedding: Float32Array, label = ''): ContextElement => ({ kind: 'image', text: label, embedding });
/** An intent model that follows a script: one probability triple per step of the response. */
const scripted = (steps: IntentProbabilities[]): IntentModel => ({ id: 'head', predict: async (s) => steps[Math.min(s.partial.length, steps.length - 1)]! });

const EMPTY_POOL: CandidatePool = {
  texts: [],
  textMatrix: { data: new Float32Array(0), rows: 0, dim: 2 },
  imageKeys: [],
  imageCaptions: [],
  imageMatrix: { data: new Float32Array(0), rows: 0, dim: 2 },
};

describe('scoreResponse: one composed response against its reference', () => {
  // Context: one turn pointing along x. Unit vectors in two dimensions, so every cosine is exact.
  const context: ContextTurn[] = [{ speaker: 0, elements: [text(v(1, 0))] }];
  const predicted = [text(v(1, 0)), image(v(0, 1))];
  const reference = [text(v(0.6, 0.8)), text(v(1, 0))];
  const negatives = new Map([
    ['n1', v(0.8, 0.6)],
    ['n2', v(0.6, 0.8)],
    ['n3', v(1, 0)],
  ]);
  const recall: RecallSetup = {
    intent: scripted([
      [1, 0, 0],
      [0, 1, 0],
    ]), // text first, then image: the second reference text is a miss
    ranker: new ClipSimRanker(EMPTY_POOL), // score() reads only the context and the candidates
    negatives: { text: ['n1', 'n2', 'n3'] },
    limit: 2,
    negative: (_, value) => ({ text: value, embedding: negatives.get(value)! }),
  };

  it('computes MM-Relevance and Intent F1 by hand', async () => {
    const score = await scoreResponse(context, predicted, reference);
    // Pairs: 100 x cos((1,0),(0.6,0.8)) = 60 and 100 x cos((0,1),(1,0)) = 0; P = 60/2, R = 60/2, F1 = 30.
    expect(score.mmRelevance.pairScores.map((s) => Number(s.toFixed(4)))).toEqual([60, 0]);
    expect(score.mmRelevance.f1).toBeCloseTo(30, 4);
    // Modalities [text, image] against [text, text]: one match of two, P = R = F1 = 50.
    expect(score.intentF1).toEqual({ precision: 50, recall: 50, f1: 50 });
    expect(score.ranks).toEqual([]); // no negatives given: no Recall
  });

  it('ranks each reference element among its first `limit` negatives, and a wrong intent is a miss', async () => {
    const score = await scoreResponse(context, predicted, reference, recall);
    // Element 0 scores 0.6 against the context; n1 scores 0.8 (higher), n2 0.6 (a tie); n3 is past the limit.
    // Element 1 is a text, but the intent says image at step 1: a miss, ranked last of 3.
    expect(score.ranks).toEqual([
      { modality: 'text', rank: { higher: 1, ties: 1 }, candidates: 3 },
      { modality: 'text', rank: { higher: 2, ties: 0, miss: true }, candidates: 3 },
    ]);
    expect(recallAtK(score.ranks[0]!.rank, 1)).toBe(0);
    expect(recallAtK(score.ranks[0]!.rank, 2)).toBe(0.5); // rank 2 or 3 with equal chance
    expect(recallAt1(score.ranks, 'text')).toBe(0);
    expect(recallAt1(score.ranks, 'image')).toBeNull();
  });

  it('gives no Recall for a modality the record has no negatives of', async () => {
    const score = await scoreResponse(context, predicted, reference, { ...recall, negatives: { image: ['n1'] } });
    expect(score.ranks).toEqual([]);
  });
});

describe('session running means', () => {
  const turns: TurnFigures[] = [
    { mmRelevance: 60, intentF1: 100, ranks: [{ modality: 'text', rank: { higher: 0, ties: 0 } }] },
    {
      mmRelevance: 30,
      intentF1: 50,
      ranks: [
        { modality: 'text', rank: { higher: 999, ties: 0, miss: true } },
        { modality: 'image', rank: { higher: 0, ties: 1 } },
      ],
    },
    { mmRelevance: 45, intentF1: 0, ranks: [] }, // a visitor's own answer: no negatives, so no Recall
  ];

  it('averages MM-Relevance and Intent F1 per turn and pools Recall@1 per element', () => {
    expect(sessionMeans(turns)).toEqual({ turns: 3, mmRelevance: 45, intentF1: 50, recallAt1: { text: 0.5, image: 0.5 } });
    expect(sessionMeans([])).toEqual({ turns: 0, mmRelevance: 0, intentF1: 0, recallAt1: { text: null, image: null } });
  });

  it('gives the means after each turn, for the chart', () => {
    expect(runningMeans(turns)).toEqual([
      { turns: 1, mmRelevance: 60, intentF1: 100, recallAt1: { text: 1, image: null } },
      { turns: 2, mmRelevance: 45, intentF1: 75, recallAt1: { text: 0.5, image: 0.5 } },
      { turns: 3, mmRelevance: 45, intentF1: 50, recallAt1: { text: 0.5, image: 0.5 } },
    ]);
  });
});
