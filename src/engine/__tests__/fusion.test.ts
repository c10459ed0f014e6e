import { describe, expect, it } from 'vitest';
import type { DialogueRecord } from '../datasets/mmdialog';
import { type FusionQuery, EVEN_WEIGHT, fitConvexWeight, fuseScores, poolTrainingQueries, zScores } from '../response/fusion';
import { seededRandom } from '../random';
import { ClipSimRanker, HYBRID_TRAINING, HybridRanker, LexicalRanker } from '../response/rankers';
import type { CandidatePool } from '../response/types';
import { topKOfScores } from '../retrieval/vectors';

/** Queries where one component always puts the target first, by a hair, and the other is noise. */
function oneComponentRight(right: 'lexical' | 'dense', seed: number, queries = 200, candidates = 20): FusionQuery[] {
  const next = seededRandom(seed);
  return Array.from({ length: queries }, () => {
    const noise = Float64Array.from({ length: candidates }, () => next());
    const good = Float64Array.from({ length: candidates }, () => next());
    const target = Math.floor(next() * candidates);
    good[target] = Math.max(...good) + 1e-3;
    return right === 'lexical' ? { lexical: good, dense: noise, target } : { lexical: noise, dense: good, target };
  });
}

describe('linear score fusion', () => {
  it('standardises scores over the candidates: mean 0, population standard deviation 1', () => {
    // mean 1, variance (4 x 1 + 16) / 5 = 4, so std 2
    expect([...zScores([0, 0, 0, 0, 5])]).toEqual([-0.5, -0.5, -0.5, -0.5, 2]);
    // every score alike (BM25 with no word in common): all 0, so that component leaves the order to the other
    expect([...zScores([3, 3, 3])]).toEqual([0, 0, 0]);
    expect([...zScores([0.1 + 0.2, 0.3, 0.3])]).toEqual([0, 0, 0]); // equal up to rounding
    expect([...zScores([7])]).toEqual([0]);
    expect(zScores([])).toHaveLength(0);
  });

  it('fuses w z_lex + (1 - w) z_dense, exactly on a small case', () => {
    // lexical [0, 0, 6, 6]: mean 3, std 3, z [-1, -1, 1, 1]; dense [0.4, 0.2, 0.4, 0.2]: mean 0.3, std 0.1, z [1, -1, 1, -1]
    const fused = fuseScores([0, 0, 6, 6], [0.4, 0.2, 0.4, 0.2], { lexical: 0.25 });
    // 0.25 (-1) + 0.75 (1) = 0.5; -0.25 - 0.75 = -1; 0.25 + 0.75 = 1; 0.25 - 0.75 = -0.5
    [0.5, -1, 1, -0.5].forEach((x, i) => expect(fused[i]).toBeCloseTo(x, 12));
    // The weights' ends are the components alone (standardised).
    [-1, -1, 1, 1].forEach((x, i) => expect(fuseScores([0, 0, 6, 6], [0.4, 0.2, 0.4, 0.2], { lexical: 1 })[i]).toBeCloseTo(x, 12));
    // A BM25 that scores every candidate alike leaves the dense order whatever the weight.
    const flat = fuseScores([0, 0, 0], [0.1, 0.9, 0.5], { lexical: 0.9 });
    expect([...flat].map((_, i) => i).sort((a, b) => flat[b]! - flat[a]!)).toEqual([1, 2, 0]);
    expect(() => fuseScores([1, 2], [1], { lexical: 0.5 })).toThrow(/2 candidates and the dense part 1/);
  });
});

describe('learning the weight on train queries (grid over [0, 1], best MRR)', () => {
  it('gives all the weight to the lexical part when it is right and the dense part is noise', () => {
    const fit = fitConvexWeight(oneComponentRight('lexical', 1));
    expect(fit.lexical).toBe(1);
    expect(fit.mrr).toBe(1);
    expect(fit.queries).toBe(200);
  });

  it('gives all the weight to the dense part when it is right and the lexical part is noise', () => {
    const fit = fitConvexWeight(oneComponentRight('dense', 2));
    expect(fit.lexical).toBe(0);
    expect(fit.mrr).toBe(1);
  });

  it('takes the smallest lexical weight among equally good ones, with ties at their expected rank', () => {
    // Two candidates: z is always (+1, -1). The target leads the lexical part and trails the dense one,
    // so fused target - negative = 2 (2w - 1): it wins for w > 0.5, ties at 0.5, loses below.
    const fit = fitConvexWeight([{ lexical: [1, 0], dense: [0, 1], target: 0 }]);
    expect(fit.lexical).toBe(0.55);
    expect(fit.curve).toHaveLength(21);
    expect(fit.curve[10]).toEqual({ lexical: 0.5, mrr: 0.75 }); // a tie of two: (1 + 1/2) / 2
    expect(fit.curve[9]!.mrr).toBe(0.5);
    expect(fit.curve[11]!.mrr).toBe(1);
    // Nothing to tell the weights apart: the smallest, 0.
    expect(fitConvexWeight([{ lexical: [2, 2, 2], dense: [1, 1, 1], target: 1 }]).lexical).toBe(0);
  });

  it('is deterministic, and without a train query counts both parts alike', () => {
    const queries = [...oneComponentRight('lexical', 3, 30), ...oneComponentRight('dense', 4, 50)];
    expect(fitConvexWeight(queries)).toEqual(fitConvexWeight(queries));
    expect(fitConvexWeight([])).toEqual({ lexical: EVEN_WEIGHT, mrr: 0, queries: 0, curve: [] });
  });
});

const unit = (x: number, y: number) => new Float32Array([x / Math.hypot(x, y), y / Math.hypot(x, y)]);
const matrix = (rows: Float32Array[]) => ({ data: Float32Array.from(rows.flatMap((r) => [...r])), rows: rows.length, dim: 2 });
const text = (t: string) => ({ kind: 'text' as const, text: t });
const media = (key: string) => ({ kind: 'media' as const, key });
const dialogue = (id: string, ...turns: DialogueRecord['turns'][number]['elements'][]): DialogueRecord => ({ id, turns: turns.map((elements) => ({ elements })) });

function poolOf(texts: string[], vectors: Float32Array[]): CandidatePool {
  return { texts, textMatrix: matrix(vectors), imageKeys: ['dog', 'beach'], imageCaptions: ['a dog', 'a beach'], imageMatrix: matrix([unit(1, 0), unit(0, 1)]) };
}

describe('train queries from the pool', () => {
  const texts = ['hi', 'hello there', 'look', 'nice dog', 'new text', 'bye'];
  const pool = poolOf(texts, texts.map((_, i) => unit(1, i)));

  it('ranks every response element after the turns before it and its response\'s earlier elements, only when all are pool rows', () => {
    const records = [
      dialogue('a', [text('hi')], [text('hello there')], [text('look'), media('dog')], [text('nice dog')]),
      dialogue('b', [text('not in the pool')], [text('bye')], [text('hi')]), // no context from the pool: none of b
    ];
    const queries = poolTrainingQueries(records, pool, { perModality: 10, negatives: 2, next: seededRandom(1) });
    expect(queries.text.map((q) => texts[q.target]).sort()).toEqual(['hello there', 'look', 'nice dog']);
    const image = queries.image;
    expect(image).toHaveLength(1);
    expect(image[0]!.target).toBe(0);
    expect(image[0]!.state.turns.map((t) => [t.speaker, t.elements.map((e) => e.text)])).toEqual([[0, ['hi']], [1, ['hello there']]]);
    expect(image[0]!.state.partial.map((e) => e.text)).toEqual(['look']);
    expect(image[0]!.negatives).toEqual([1]); // every other image: the pool has only two
    for (const q of queries.text) {
      expect(new Set(q.negatives).size).toBe(2);
      expect(q.negatives).not.toContain(q.target);
      // nor a text of its own context: "hi" and "hello there" are never negatives of "look"
      if (texts[q.target] === 'look') expect(q.negatives.filter((r) => r < 2)).toEqual([]);
      expect(q.negatives.every((r) => r >= 0 && r < texts.length)).toBe(true);
    }
  });

  it('draws the same queries for the same seed, at most perModality of them', () => {
    const records = Array.from({ length: 8 }, (_, i) => dialogue(String(i), [text(texts[i % 6]!)], [text(texts[(i + 1) % 6]!)]));
    const draw = () => poolTrainingQueries(records, pool, { perModality: 5, negatives: 2, next: seededRandom(9) }).text.map((q) => [q.state.turns[0]!.elements[0]!.text, q.target, q.negatives]);
    expect(draw()).toHaveLength(5);
    expect(draw()).toEqual(draw());
  });
});

describe('HybridRanker: BM25 and a dense ranker fused with weights learned on the train split', () => {
  // The dense vectors point every reply away from its context; the words give the answer away.
  const texts = ['red apple', 'apple pie please', 'blue sky', 'sky is clear', 'green tree', 'tree house', 'yellow sun', 'sun is hot'];
  const vectors = [unit(1, 0), unit(0, 1), unit(1, 0.1), unit(0.1, 1), unit(1, 0.2), unit(0.2, 1), unit(1, 0.3), unit(0.3, 1)];
  const pool = poolOf(texts, vectors);
  const train = [0, 2, 4, 6].map((i) => dialogue(String(i), [text(texts[i]!)], [text(texts[i + 1]!)]));

  it('learns to trust the words when the train split says so', async () => {
    const ranker = await HybridRanker.learn(new LexicalRanker('bm25', pool, texts), new ClipSimRanker(pool), pool, train);
    expect(ranker.fits.text.queries).toBe(4);
    expect(ranker.fits.text.curve[0]!.mrr).toBeLessThan(1); // the dense part alone gets them wrong
    expect(ranker.fits.text.mrr).toBe(1);
    expect(ranker.fits.text.lexical).toBeGreaterThanOrEqual(0.5);
    expect(ranker.fits.image).toEqual({ lexical: EVEN_WEIGHT, mrr: 0, queries: 0, curve: [] }); // no image in the train split
  });

  it('ranks the pool by the scores fused over the pool, and given candidates by the scores fused over them', async () => {
    const lexical = new LexicalRanker('bm25', pool, texts), dense = new ClipSimRanker(pool);
    const weight = { lexical: 0.7 };
    const ranker = new HybridRanker(lexical, dense, { text: { ...weight, mrr: 1, queries: 1, curve: [] }, image: { lexical: 0, mrr: 1, queries: 1, curve: [] } });
    const state = { turns: [{ speaker: 0 as const, elements: [{ kind: 'text' as const, text: 'an apple under the sky', embedding: unit(1, 0.5) }] }], partial: [] };
    const fusedPool = fuseScores(await lexical.poolScores(state, 'text'), await dense.poolScores(state, 'text'), weight);
    expect(await ranker.topK(state, 'text', 3, new Set([1]))).toEqual(topKOfScores(fusedPool, 3, new Set([1])));
    const candidates = [{ text: 'more apple', embedding: unit(0, 1) }, { text: 'something else', embedding: unit(1, 0) }, { text: 'sky', embedding: unit(1, 1) }];
    expect(await ranker.score(state, 'text', candidates)).toEqual(fuseScores(await lexical.score(state, 'text', candidates), await dense.score(state, 'text', candidates), weight));
    // Images with weight 0: the dense order alone.
    expect((await ranker.topK(state, 'image', 2, new Set())).map((x) => x.index)).toEqual([0, 1]);
  });

  it('learns in the page on a fixed draw: HYBRID_TRAINING', () => {
    expect(HYBRID_TRAINING).toEqual({ perModality: 300, negatives: 999, seed: 11 });
  });
});
