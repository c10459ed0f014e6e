import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { LexicalIndex, corpusStatsOfCounts, corpusStatsOfTokens, lexicalCounts, tokenize } from '../ranking/lexical';
import { parseLexicalCounts, serializeLexicalCounts } from '../ranking/lexicalIndexFile';
import { LexicalRanker } from '../ranking/lexicalRanker';

const TEXTS = [
  'Where did you go on holiday?',
  'We went to the beach, the beach was lovely',
  "I'm sorry to hear that.",
  'Do you like dogs? My dog loves the beach.',
  'Zürich in the snow, 3 days of it',
];
const countsOf = (texts: readonly string[]) => {
  const tokens = texts.map(tokenize);
  return lexicalCounts(tokens, corpusStatsOfTokens(tokens));
};
const LOCATION = 'pool/lexical.json';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return (error as EngineError).message;
  }
  throw new Error('the file was not refused');
}

describe('the shipped lexical index (pool:index)', () => {
  it("that ships with the demo pool is of the pool's texts as shipped (rerun npm run pool:index after changing them)", () => {
    const texts = (JSON.parse(readFileSync(join('public', 'pool', 'texts.json'), 'utf8')) as { texts: { text: string }[] }).texts.map((t) => t.text);
    const read = parseLexicalCounts(
      JSON.parse(readFileSync(join('public', 'pool', 'lexical.json'), 'utf8')),
      new Uint8Array(readFileSync(join('public', 'pool', 'lexical.bin'))),
      'public/pool/lexical.json',
      texts,
    );
    expect(read.docLengths.length).toBe(texts.length);
  });

  it('reads back counts that score exactly as an index counted at load, for BM25 and tf-idf', () => {
    const file = serializeLexicalCounts(TEXTS, countsOf(TEXTS));
    const read = parseLexicalCounts(JSON.parse(JSON.stringify(file.meta)), file.bytes, LOCATION, TEXTS);
    for (const method of ['bm25', 'tfidf'] as const) {
      const shipped = LexicalIndex.fromCounts(method, read, corpusStatsOfCounts(read));
      const counted = LexicalIndex.build(method, TEXTS);
      for (const query of ['the beach', 'dogs and the snow', 'holiday in zürich', 'nothing shared'])
        expect([...shipped.score(query)]).toEqual([...counted.score(query)]);
    }
    expect(read.terms).toContain('zürich');
    expect([...read.docLengths]).toEqual(TEXTS.map((t) => tokenize(t).length));
  });

  it('is what the lexical rankers use when the pool carries it, with the same scores', async () => {
    const pool = {
      texts: TEXTS,
      textMatrix: { data: new Float32Array(0), rows: 0, dim: 0 },
      imageKeys: ['a'],
      imageCaptions: ['a dog on the beach'],
      imageMatrix: { data: new Float32Array(0), rows: 0, dim: 0 },
    };
    const state = {
      turns: [{ speaker: 0 as const, elements: [{ kind: 'text' as const, text: 'the beach with my dog', embedding: new Float32Array(0) }] }],
      partial: [],
    };
    const plain = new LexicalRanker('bm25', pool, pool.texts);
    const withCounts = { ...pool, textCounts: countsOf(TEXTS) };
    const shipped = new LexicalRanker('bm25', withCounts, withCounts.texts);
    for (const modality of ['text', 'image'] as const)
      expect([...(await shipped.poolScores(state, modality))]).toEqual([...(await plain.poolScores(state, modality))]);
  });

  it('refuses a file of other texts, a truncated or damaged one and a foreign header, each naming the file', () => {
    const file = serializeLexicalCounts(TEXTS, countsOf(TEXTS));
    const other = [...TEXTS.slice(0, 4), 'Zürich in the rain'];
    expect(refusal(() => parseLexicalCounts(file.meta, file.bytes, LOCATION, other))).toBe(
      `${LOCATION} indexes other texts than the pool's (5 texts, hash ${file.meta.textsHash}; the pool has 5).`,
    );
    expect(refusal(() => parseLexicalCounts(file.meta, file.bytes.subarray(0, file.bytes.length - 3), LOCATION, TEXTS))).toBe(
      `${LOCATION} describes ${file.bytes.length} bytes of index, but its .bin holds ${file.bytes.length - 3}: it is truncated or from another build.`,
    );
    const damaged = file.bytes.slice();
    damaged[20] = damaged[20]! ^ 0xff;
    expect(refusal(() => parseLexicalCounts(file.meta, damaged, LOCATION, TEXTS))).toBe(
      `${LOCATION} does not match the hash of its .bin: the file is damaged.`,
    );
    expect(refusal(() => parseLexicalCounts({ ...file.meta, version: 2 }, file.bytes, LOCATION, TEXTS))).toBe(
      `${LOCATION} is of kind "lexical-counts" version 2; this app reads "lexical-counts" version 1.`,
    );
    expect(refusal(() => parseLexicalCounts([], file.bytes, LOCATION, TEXTS))).toBe(`${LOCATION} is not a lexical index header.`);
    expect(refusal(() => parseLexicalCounts({ ...file.meta, terms: -1 }, file.bytes, LOCATION, TEXTS))).toBe(`${LOCATION} has no valid "terms".`);
  });
});
