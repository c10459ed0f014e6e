import { describe, expect, it } from 'vitest';
import type { PolyaiExample } from '../datasets/polyai';
import { summarizeRanks } from '../metrics/dialogMetrics';
import { corpusStats } from '../ranking/lexical';
import { l2Normalize } from '../retrieval/vectors';
import { type RankingGroup, nearestNegativeGroups, oneOfHundredBatches } from '../selection/protocols';
import { textKey } from '../pool/textKey';
import { type SelectionScorer, clipMapScorer, clipSimScorer, fusionQueries, hybridScorer, lexicalScorer, randomScorer, rankGroups } from '../ranking/scorers';

const example = (i: number, response = `response ${i}`): PolyaiExample => ({ context: `context ${i}`, response, extraContexts: [`earlier ${i}`] });

describe('1-of-100 batches (PolyAI sec. 4)', () => {
  it('ranks each context against its batch of 100 responses and leaves the incomplete last batch out', () => {
    const batches = oneOfHundredBatches(Array.from({ length: 250 }, (_, i) => example(i)));
    expect(batches.groups).toHaveLength(2);
    expect(batches.ranked).toBe(200);
    expect(batches.dropped).toBe(50);
    const second = batches.groups[1]!;
    expect(second.candidates).toHaveLength(100);
    expect(second.candidates[0]).toBe('response 100');
    expect(second.queries[7]).toEqual({ turns: ['earlier 107', 'context 107'], target: 7, same: [] });
    expect(oneOfHundredBatches(Array.from({ length: 99 }, (_, i) => example(i)))).toEqual({ groups: [], ranked: 0, dropped: 99, repeatedResponses: 0 });
  });

  it('does not count a repeated response as its own negative', async () => {
    const examples = Array.from({ length: 100 }, (_, i) => example(i, i === 3 || i === 50 ? 'Thank you .' : `response ${i}`));
    const batches = oneOfHundredBatches(examples);
    expect(batches.repeatedResponses).toBe(2);
    expect(batches.groups[0]!.queries[3]!.same).toEqual([50]);
    expect(batches.groups[0]!.queries[50]!.same).toEqual([3]);
    // A scorer that sees only the text: "Thank you ." scores 1, everything else 0.
    const byText: SelectionScorer = { id: 'random', score: (g) => g.queries.map(() => Float64Array.from(g.candidates, (c) => (c === 'Thank you .' ? 1 : 0))) };
    const ranks = await rankGroups(batches.groups, byText);
    expect(ranks[3]).toEqual({ higher: 0, ties: 0 });
    expect(ranks[50]).toEqual({ higher: 0, ties: 0 });
    expect(ranks[4]).toEqual({ higher: 2, ties: 97 });
  });
});

describe('1-of-100 with the nearest negatives', () => {
  // A collection of 300 texts: the first 150 "near" every context by the first similarity, 150 to 299 by the second.
  const texts = Array.from({ length: 300 }, (_, i) => `text number ${i}`);
  const bySimilarity = (from: number) => () => Array.from({ length: 150 }, (_, i) => from + i);
  const examples = [
    { context: 'How are you?', response: 'text number 3', extraContexts: ['Hi there.', 'Hello!'] },
    { context: 'And you?', response: 'Fine, thanks.', extraContexts: [] },
  ];

  it("puts the context's own turns first, then the nearest by each similarity in turn, never the response or a copy of it", () => {
    const { groups, fromContext } = nearestNegativeGroups(examples, ['TEXT number 3!', ...texts], [bySimilarity(0), bySimilarity(150)], textKey);
    expect(fromContext).toBe(4);
    const [first, second] = groups;
    expect(first!.candidates).toHaveLength(100);
    const q = first!.queries[0]!;
    expect(first!.candidates[q.target]).toBe('text number 3');
    expect(q.turns).toEqual(['Hello!', 'Hi there.', 'How are you?']);
    const negatives = first!.candidates.filter((_, i) => i !== q.target);
    // Its own turns, latest first; the response's copy ("TEXT number 3!", index 0 of the collection, first by the first similarity) is never one.
    expect(negatives.slice(0, 3)).toEqual(['How are you?', 'Hi there.', 'Hello!']);
    expect(negatives.map(textKey)).not.toContain(textKey('text number 3'));
    // Then one from each similarity in turn: the collection is shifted by the copy put at index 0.
    expect(negatives.slice(3, 7)).toEqual([texts[0], texts[149], texts[1], texts[150]]);
    expect(new Set(negatives.map(textKey)).size).toBe(99);
    expect(second!.candidates).toContain('And you?');
    // The same inputs give the same groups; the response's place is drawn, not always the same.
    expect(nearestNegativeGroups(examples, texts, [bySimilarity(0), bySimilarity(150)], textKey).groups.map((g) => g.queries[0]!.target)).toEqual(
      nearestNegativeGroups(examples, texts, [bySimilarity(0), bySimilarity(150)], textKey).groups.map((g) => g.queries[0]!.target),
    );
  });

  it('refuses a collection too small for 99 distinct negatives', () => {
    expect(() => nearestNegativeGroups(examples, texts.slice(0, 50), [() => Array.from({ length: 50 }, (_, i) => i)], textKey)).toThrow(
      'The collection has too few distinct texts for 99 nearest negatives',
    );
  });
});

describe('selection scorers', () => {
  const group: RankingGroup = {
    candidates: ['the train leaves at noon', 'I love pizza', 'it is raining'],
    queries: [{ turns: ['when does the train leave ?', 'sorry , what did you say ?'], target: 0, same: [] }],
  };
  const stats = corpusStats(['when does the train leave', 'I love pizza', 'what did you say', 'it is raining', 'the bus leaves']);

  it('tf-idf and BM25 see the earlier turn only with the whole history', async () => {
    for (const method of ['tfidf', 'bm25'] as const) {
      const immediate = await rankGroups([group], lexicalScorer(method, stats, { turns: 1 }));
      const history = await rankGroups([group], lexicalScorer(method, stats, { turns: Infinity }));
      expect(immediate).toEqual([{ higher: 0, ties: 2 }]); // no shared word: chance
      expect(history).toEqual([{ higher: 0, ties: 0 }]);
    }
  });

  it('clip-sim ranks by cosine of the mean context embedding; clip-map by cosine with the mapped candidates', async () => {
    const vectors: Record<string, number[]> = {
      'when does the train leave ?': [1, 0, 0],
      'sorry , what did you say ?': [0, 1, 0],
      'the train leaves at noon': [1, 0.6, 0],
      'I love pizza': [0, 1, 0.1],
      'it is raining': [0, 0.3, 1],
    };
    const embedding = (t: string) => l2Normalize(Float32Array.from(vectors[t]!));
    const sim = (await clipSimScorer(embedding, { turns: 1 }).score(group))[0]!;
    expect([...sim].map((v) => Number(v.toFixed(4)))).toEqual([0.5145, 0.995, 0.2873]);
    const history = (await clipSimScorer(embedding, { turns: Infinity }).score(group))[0]!;
    expect([...history].map((v) => Number(v.toFixed(4)))).toEqual([0.9701, 0.7036, 0.2032]);
    // W + aI with a = 0 and W moving the first coordinate onto the second: the train answer now fits "what did you say" best.
    const w = new Float32Array(9);
    w[1 * 3 + 0] = 1;
    expect(await rankGroups([group], clipMapScorer({ w, a: 0 }, embedding, { turns: 1 }))).toEqual([{ higher: 0, ties: 0 }]);
  });

  it("the hybrid fuses its parts' scores of each query over its candidates, with the weights given", async () => {
    const fixed = (id: 'bm25' | 'clip-map' | 'chat-encoder', rows: number[][]): SelectionScorer => ({ id, score: () => rows.map((r) => Float64Array.from(r)) });
    const twoQueries: RankingGroup = {
      candidates: ['a', 'b', 'c', 'd'],
      queries: [
        { turns: ['x'], target: 0, same: [] },
        { turns: ['y'], target: 2, same: [] },
      ],
    };
    const lexical = fixed('bm25', [
      [0, 0, 6, 6],
      [1, 1, 1, 1],
    ]);
    const dense = fixed('clip-map', [
      [0.4, 0.2, 0.4, 0.2],
      [0.1, 0.2, 0.9, 0.3],
    ]);
    const rows = await hybridScorer([lexical, dense], [0.25, 0.75]).score(twoQueries);
    // z: lexical [-1, -1, 1, 1], dense [1, -1, 1, -1]; 0.25 and 0.75 of them
    [0.5, -1, 1, -0.5].forEach((x, i) => expect(rows[0]![i]).toBeCloseTo(x, 12));
    // A query whose BM25 is flat: the dense order alone.
    expect((await rankGroups([twoQueries], hybridScorer([lexical, dense], [0.9, 0.1])))[1]).toEqual({ higher: 0, ties: 0 });
    // The queries of the weights: every part's scores of every candidate, a repeated target's copies left out.
    const repeated: RankingGroup = { candidates: ['a', 'b', 'a'], queries: [{ turns: ['x'], target: 2, same: [0] }] };
    expect(await fusionQueries([repeated], [fixed('bm25', [[5, 1, 5]]), fixed('clip-map', [[0.1, 0.2, 0.3]]), fixed('chat-encoder', [[3, 2, 1]])])).toEqual([
      { parts: [Float64Array.of(1, 5), Float64Array.of(0.2, 0.3), Float64Array.of(2, 1)], target: 1 },
    ]);
  });

  it('random is uniform and reproducible for a seed', async () => {
    const many: RankingGroup = {
      candidates: Array.from({ length: 100 }, (_, i) => `c${i}`),
      queries: Array.from({ length: 100 }, (_, i) => ({ turns: ['x'], target: i, same: [] })),
    };
    const groups = Array.from({ length: 20 }, () => many);
    const first = await rankGroups(groups, randomScorer(11));
    expect(await rankGroups(groups, randomScorer(11))).toEqual(first);
    expect(summarizeRanks(first).recallAt[1]).toBe(0.01); // 20 of 2,000
  });
});
