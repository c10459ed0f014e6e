import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PackFileSource } from '../pack/fileSource';
import { CHAT_FUSION_FILE, type ChatEncoder, loadChatFusion } from '../response/chatEncoder';
import { sessionChat } from '../response/session';
import { type FusionQuery, evenWeights, fitFusionWeights, fuseScores, scoreSpread, standardise, zScores } from '../ranking/fusion';
import { seededRandom } from '../random';
import { ClipSimRanker } from '../ranking/clipSimRanker';
import { HybridRanker } from '../ranking/hybridRanker';
import { LexicalRanker } from '../ranking/lexicalRanker';
import { LookupRanker } from '../ranking/lookupRanker';
import { QuestionAnswerRanker } from '../ranking/questionAnswerRanker';
import { Int8Matrix } from '../retrieval/int8Matrix';
import { LexicalContextMatchRanker } from '../ranking/chatRanking';
import type { CandidatePool } from '../response/types';
import { topKOfScores } from '../retrieval/vectors';

/** Queries where one part (of `parts`) always puts the target first, by a hair, and the others are noise. */
function onePartRight(right: number, parts: number, seed: number, queries = 200, candidates = 20): FusionQuery[] {
  const next = seededRandom(seed);
  return Array.from({ length: queries }, () => {
    const target = Math.floor(next() * candidates);
    const scores = Array.from({ length: parts }, (_, p) => {
      const row = Float64Array.from({ length: candidates }, () => next());
      if (p === right) row[target] = Math.max(...row) + 1e-3;
      return row;
    });
    return { parts: scores, target };
  });
}

describe('linear score fusion', () => {
  it('standardises scores over the candidates: mean 0, population standard deviation 1', () => {
    // mean 1, variance (4 x 1 + 16) / 5 = 4, so std 2
    expect([...zScores([0, 0, 0, 0, 5])]).toEqual([-0.5, -0.5, -0.5, -0.5, 2]);
    // every score alike (BM25 with no word in common): all 0, so that part leaves the order to the others
    expect([...zScores([3, 3, 3])]).toEqual([0, 0, 0]);
    expect([...zScores([0.1 + 0.2, 0.3, 0.3])]).toEqual([0, 0, 0]); // equal up to rounding
    expect([...zScores([7])]).toEqual([0]);
    expect(zScores([])).toHaveLength(0);
  });

  it('fuses Σ w_i z_i, exactly on a small case', () => {
    // a [0, 0, 6, 6]: z [-1, -1, 1, 1]; b [0.4, 0.2, 0.4, 0.2]: z [1, -1, 1, -1]; c [1, 2, 3, 4]: z ≈ [-1.342, -0.447, 0.447, 1.342]
    const fused = fuseScores(
      [
        [0, 0, 6, 6],
        [0.4, 0.2, 0.4, 0.2],
      ],
      [0.25, 0.75],
    );
    // 0.25 (-1) + 0.75 (1) = 0.5; -0.25 - 0.75 = -1; 0.25 + 0.75 = 1; 0.25 - 0.75 = -0.5
    [0.5, -1, 1, -0.5].forEach((x, i) => expect(fused[i]).toBeCloseTo(x, 12));
    const three = fuseScores(
      [
        [0, 0, 6, 6],
        [0.4, 0.2, 0.4, 0.2],
        [1, 2, 3, 4],
      ],
      [0.5, 0, 0.5],
    );
    const z3 = [-3, -1, 1, 3].map((x) => x / Math.sqrt(5));
    [-1, -1, 1, 1].forEach((x, i) => expect(three[i]).toBeCloseTo(0.5 * x + 0.5 * z3[i]!, 12));
    // A BM25 that scores every candidate alike leaves the other parts' order whatever its weight.
    const flat = fuseScores(
      [
        [0, 0, 0],
        [0.1, 0.9, 0.5],
      ],
      [0.9, 0.1],
    );
    expect([...flat].map((_, i) => i).sort((a, b) => flat[b]! - flat[a]!)).toEqual([1, 2, 0]);
    expect(() => fuseScores([[1, 2], [1]], [0.5, 0.5])).toThrow('Part 2 of the fusion scored 1 candidates and part 1 2.');
    expect(() => fuseScores([[1, 2]], [0.5, 0.5])).toThrow('1 parts were scored for 2 weights.');
  });
});

describe('learning the weights (a grid on the simplex, best MRR)', () => {
  it('gives all the weight to the part that is right when the others are noise, for two and three parts', () => {
    expect(fitFusionWeights(onePartRight(0, 2, 1), 2)).toMatchObject({ weights: [1, 0], mrr: 1, queries: 200 });
    expect(fitFusionWeights(onePartRight(1, 2, 2), 2)).toMatchObject({ weights: [0, 1], mrr: 1 });
    const three = fitFusionWeights(onePartRight(2, 3, 5), 3);
    expect(three.weights).toEqual([0, 0, 1]);
    expect(three.alone[2]).toBe(1);
    expect(three.alone[0]).toBeLessThan(0.5);
  });

  it('takes the earliest of equally good points, with ties at their expected rank', () => {
    // Two candidates: z is always (+1, -1). The target leads the first part and trails the second, so
    // fused target - negative = 2 (2w - 1): it wins for w > 0.5, ties at 0.5, loses below.
    const fit = fitFusionWeights(
      [
        {
          parts: [
            [1, 0],
            [0, 1],
          ],
          target: 0,
        },
      ],
      2,
    );
    expect(fit.weights).toEqual([0.55, 0.45]);
    expect(fit.mrr).toBe(1);
    expect(fit.alone).toEqual([1, 0.5]);
    // Nothing to tell the points apart: the first, all weight on the last part.
    expect(
      fitFusionWeights(
        [
          {
            parts: [
              [2, 2, 2],
              [1, 1, 1],
            ],
            target: 1,
          },
        ],
        2,
      ).weights,
    ).toEqual([0, 1]);
  });

  it('takes parts standardised over a larger set as they are (the page ranks the whole pool; only the candidates kept are given)', () => {
    // Over a pool of 5 the first part's spread is mean 1, std 2; the candidates kept are rows 3 and 4.
    const pool = [0, 0, 0, 0, 5];
    const spread = scoreSpread(pool);
    expect(spread).toEqual({ mean: 1, std: 2 });
    expect(standardise(5, spread)).toBe(2);
    expect(standardise(3, { mean: 3, std: 0 })).toBe(0);
    expect(scoreSpread([9, 1, 3], 2)).toEqual({ mean: 5, std: 4 }); // the first `count` only
    // The first part's z over the pool are 2 (target) and -0.5; the second's are given as 0.4 and 0.5.
    // Re-standardised over the two kept they would be +1/-1 and -1/+1, and the fit would change.
    const kept: FusionQuery = {
      parts: [
        [standardise(5, spread), standardise(0, spread)],
        [0.4, 0.5],
      ],
      target: 0,
      standardised: true,
    };
    const fit = fitFusionWeights([kept], 2);
    // target 2w + 0.4(1-w) against -0.5w + 0.5(1-w): wins for 3.5w > 0.1, first at w = 0.05 on the grid
    expect(fit.weights).toEqual([0.05, 0.95]);
    expect(fit.alone).toEqual([1, 0.5]);
    expect(fitFusionWeights([{ ...kept, standardised: false }], 2).weights).toEqual([0.55, 0.45]);
  });

  it('is deterministic, and without a query counts every part alike', () => {
    const queries = [...onePartRight(0, 3, 3, 30), ...onePartRight(1, 3, 4, 50)];
    expect(fitFusionWeights(queries, 3)).toEqual(fitFusionWeights(queries, 3));
    expect(fitFusionWeights([], 3)).toEqual({ weights: evenWeights(3), mrr: 0, queries: 0, alone: [0, 0, 0] });
    expect(() => fitFusionWeights(queries, 2)).toThrow('A query of the fusion has 3 parts, not 2.');
  });
});

const unit = (x: number, y: number) => new Float32Array([x / Math.hypot(x, y), y / Math.hypot(x, y)]);
const matrix = (rows: Float32Array[]) => ({ data: Float32Array.from(rows.flatMap((r) => [...r])), rows: rows.length, dim: 2 });

function poolOf(texts: string[], vectors: Float32Array[]): CandidatePool {
  return {
    texts,
    textMatrix: matrix(vectors),
    imageKeys: ['dog', 'beach'],
    imageCaptions: ['a dog', 'a beach'],
    imageMatrix: matrix([unit(1, 0), unit(0, 1)]),
  };
}

describe('HybridRanker: its parts fused with learned weights per modality', () => {
  const texts = ['red apple', 'apple pie please', 'blue sky', 'sky is clear', 'green tree', 'tree house', 'yellow sun', 'sun is hot'];
  const vectors = [unit(1, 0), unit(0, 1), unit(1, 0.1), unit(0.1, 1), unit(1, 0.2), unit(0.2, 1), unit(1, 0.3), unit(0.3, 1)];
  const pool = poolOf(texts, vectors);
  const state = {
    turns: [{ speaker: 0 as const, elements: [{ kind: 'text' as const, text: 'an apple under the sky', embedding: unit(1, 0.5) }] }],
    partial: [],
  };

  it('ranks the pool by the scores fused over the pool, and given candidates by the scores fused over them', async () => {
    const lexical = new LexicalRanker('bm25', pool, texts),
      dense = new ClipSimRanker(pool);
    const ranker = new HybridRanker(
      { text: [lexical, dense], image: [lexical, dense] },
      { text: [0.7, 0.3], image: [0, 1], bm25Turns: 1, questionAnswer: null, learnedOn: 'a test' },
    );
    const fusedPool = fuseScores([await lexical.poolScores(state, 'text'), await dense.poolScores(state, 'text')], [0.7, 0.3]);
    expect(await ranker.topK(state, 'text', 3, new Set([1]))).toEqual(topKOfScores(fusedPool, 3, new Set([1])));
    const candidates = [
      { text: 'more apple', embedding: unit(0, 1) },
      { text: 'something else', embedding: unit(1, 0) },
      { text: 'sky', embedding: unit(1, 1) },
    ];
    expect(await ranker.score(state, 'text', candidates)).toEqual(
      fuseScores([await lexical.score(state, 'text', candidates), await dense.score(state, 'text', candidates)], [0.7, 0.3]),
    );
    // Images with the lexical weight 0: the dense order alone.
    expect((await ranker.topK(state, 'image', 2, new Set())).map((x) => x.index)).toEqual([0, 1]);
    expect(ranker.note).toContain('weights learned on a test');
  });

  it('counts its parts alike without learned weights, and says so; refuses weights that do not fit its parts', async () => {
    const lexical = new LexicalRanker('bm25', pool, texts),
      dense = new ClipSimRanker(pool);
    const even = new HybridRanker({ text: [lexical, dense], image: [dense] }, null);
    expect(await even.topK(state, 'text', 8, new Set())).toEqual(
      topKOfScores(fuseScores([await lexical.poolScores(state, 'text'), await dense.poolScores(state, 'text')], [0.5, 0.5]), 8),
    );
    expect(even.note).toContain('every part counts alike');
    expect(
      () => new HybridRanker({ text: [lexical, dense], image: [dense] }, { text: [1], image: [1], bm25Turns: 1, questionAnswer: null, learnedOn: '' }),
    ).toThrow("The hybrid's text weights are 1, for 2 parts.");
  });
});

describe('the lookup and question-answer parts', () => {
  const texts = ['how are you?', 'fine thanks', 'where is the station?', 'turn left at the bank', 'nice weather'];
  const pool = poolOf(
    texts,
    texts.map(() => unit(1, 0)),
  );
  const state = (line: string) => ({ turns: [{ speaker: 0 as const, elements: [{ kind: 'text' as const, text: line, embedding: unit(1, 0) }] }], partial: [] });
  // Two stored contexts: "how are you?" was answered "fine thanks", "where is the station?" was answered "turn left at the bank".
  const contexts = { vectors: Int8Matrix.allocate(2, 2, { refine: false }), responseRows: Int32Array.of(1, 3), latestRows: Int32Array.of(0, 2) };

  it('lookup: what followed the stored context most like the latest line by BM25, a text that followed none at 0', async () => {
    const lookup = new LookupRanker(new LexicalRanker('bm25', pool, texts), pool, contexts);
    const bm25 = await new LexicalRanker('bm25', pool, texts).poolScores(state('excuse me, where is the train station'), 'text');
    const scores = await lookup.poolScores(state('excuse me, where is the train station'), 'text');
    expect([...scores]).toEqual([0, bm25[0]!, 0, bm25[2]!, 0]);
    expect((await lookup.topK(state('excuse me, where is the train station'), 'text', 1, new Set()))[0]!.index).toBe(3);
    // A candidate given by content scores as the pool text of its key; one the pool lacks, 0.
    const given = [
      { text: 'Turn left at the bank!', embedding: unit(1, 0) },
      { text: 'no idea', embedding: unit(1, 0) },
    ];
    expect([...(await lookup.score(state('where is the station'), 'text', given))]).toEqual([
      (await lookup.poolScores(state('where is the station'), 'text'))[3]!,
      0,
    ]);
    expect(bm25[2]).toBeGreaterThan(bm25[0]!);
  });

  it('lexical context match: the keys of what followed the stored contexts most like the latest line by BM25, over every text', async () => {
    // Keys: "turn left at the bank" and "nice weather" point one way, the rest the other.
    const keys = [unit(0, 1), unit(0, 1), unit(0, 1), unit(1, 0), unit(1, 0.1)];
    const chat = {
      encoder: {} as ChatEncoder,
      textKeys: Int8Matrix.fromFloat32(Float32Array.from(keys.flatMap((k) => [...k])), 5, 2, { refine: false }),
      imageKeys: Int8Matrix.allocate(0, 2, { refine: false }),
      contexts,
      contextMatch: { neighbours: 4, temperature: 0.05 },
    };
    const bm25 = new LexicalRanker('bm25', pool, texts);
    const part = new LexicalContextMatchRanker(chat, (st) => bm25.poolScores(st, 'text'));
    const scores = await part.poolScores(state('excuse me, where is the train station'), 'text');
    // Only "where is the station?" shares words with the line: its answer's key is the query, so "nice weather",
    // which followed no context, still scores near it, and the other way scores 0.
    expect(scores[3]).toBeCloseTo(1, 2);
    expect(scores[4]).toBeCloseTo(unit(1, 0.1)[0]!, 2);
    expect(scores[0]).toBeCloseTo(0, 2);
    // A line that shares no word with any stored context: every text alike.
    expect([...(await part.poolScores(state('zzz qqq'), 'text'))]).toEqual([0, 0, 0, 0, 0]);
  });

  it('question-answer: log P(kind | kind of the latest line), with one added to each count', async () => {
    const qa = new QuestionAnswerRanker(pool, {
      counts: [
        [8, 1, 1],
        [17, 1, 2],
        [5, 4, 1],
      ],
    });
    const scores = await qa.poolScores(state('where is it?'), 'text');
    // After a question: statement (17 + 1) / 23, question (1 + 1) / 23.
    expect([...scores]).toEqual([Math.log(2 / 23), Math.log(18 / 23), Math.log(2 / 23), Math.log(18 / 23), Math.log(18 / 23)]);
    expect((await qa.poolScores(state('it is sunny'), 'text'))[0]).toBeCloseTo(Math.log(2 / 13), 12);
  });
});

describe("a pack's fusion settings (chat/fusion.json)", () => {
  const shipped = JSON.parse(readFileSync('models/mini-clip/chat/fusion.json', 'utf8')) as Record<string, unknown>;
  const sourceOf = (json: unknown): PackFileSource => ({ location: 'models/x/', readBytes: async () => new TextEncoder().encode(JSON.stringify(json)) });
  const files = new Set([CHAT_FUSION_FILE]);

  it('reads the shipped file, whose page weights (learned as the page ranks the pool) are what the session ranks with', async () => {
    const fusion = (await loadChatFusion(sourceOf(shipped), files))!;
    expect(fusion.page.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const chat = sessionChat({} as ChatEncoder, fusion);
    expect(chat.hybridWeights!.text).toEqual(fusion.page.weights);
    expect(chat.hybridWeights!.bm25Turns).toBe(fusion.page.bm25Turns ?? Infinity);
    expect(chat.hybridWeights!.learnedOn).toContain(fusion.learnedOn.page);
    expect(chat.hybridWeights!.questionAnswer).toEqual(fusion.questionAnswer);
    expect(await loadChatFusion(sourceOf(shipped), new Set())).toBeNull();
  });

  it('refuses a file without the page weights or without where they were learned, naming the command that writes it', async () => {
    const { page: _page, ...withoutPage } = shipped;
    await expect(loadChatFusion(sourceOf(withoutPage), files)).rejects.toThrow(
      "models/x/chat/fusion.json has no 5 weights for the page's text parts. Learn it again (npm run chat:fuse) or remove it.",
    );
    await expect(loadChatFusion(sourceOf({ ...shipped, page: { ...(shipped['page'] as object), bm25Turns: 2 } }), files)).rejects.toThrow(
      'has no "bm25Turns" (1 or null) for the page\'s text parts',
    );
    await expect(loadChatFusion(sourceOf({ ...shipped, learnedOn: { text: 'valid' } }), files)).rejects.toThrow(
      'does not say where its weights were learned ("learnedOn")',
    );
    await expect(loadChatFusion(sourceOf({ ...shipped, questionAnswer: { counts: [[1, 2]] } }), files)).rejects.toThrow('has no 3 x 3 "questionAnswer" counts');
    await expect(loadChatFusion(sourceOf({ ...shipped, version: 1 }), files)).rejects.toThrow('is version 1, and this app reads version 2');
  });
});
