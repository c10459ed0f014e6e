import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClipTokenizer } from '../clip/tokenizer';

const tokenizerDir = new URL('../../../models/clip-tokenizer/', import.meta.url);
const sharedDir = new URL('../../../../shared/data/clip-tokenizer/', import.meta.url);
const readJson = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as unknown;

const tokenizerJson = readJson(new URL('tokenizer.json', tokenizerDir)) as { model: { vocab: Record<string, number>; merges: string[] } };
const tokenizer = new ClipTokenizer(tokenizerJson, readJson(new URL('tokenizer_config.json', tokenizerDir)), 77);
const reference = readJson(new URL('reference-tokenizations.json', tokenizerDir)) as { cases: { text: string; input_ids: number[] }[] };

describe('the real CLIP tokenizer (models/clip-tokenizer)', () => {
  it('encodes "a photo of a cat" as CLIP does', () => {
    expect(tokenizer.encode('a photo of a cat')).toEqual([49406, 320, 1125, 539, 320, 2368, 49407]);
  });

  it('has exactly the vocabulary and merges of the shared CLIP files', () => {
    expect(tokenizerJson.model.vocab).toEqual(readJson(new URL('vocab.json', sharedDir)));
    const merges = readFileSync(new URL('merges.txt', sharedDir), 'utf8')
      .split('\n')
      .slice(1)
      .filter((l) => l.length > 0);
    expect(tokenizerJson.model.merges).toEqual(merges);
    expect(Object.keys(tokenizerJson.model.vocab)).toHaveLength(49408);
  });

  it('tokenizes 200 varied sentences exactly as the independent reference implementation', () => {
    expect(reference.cases).toHaveLength(200);
    const mismatches = reference.cases.filter((c) => JSON.stringify(tokenizer.encode(c.text)) !== JSON.stringify(c.input_ids)).map((c) => c.text);
    expect(mismatches).toEqual([]);
  });

  it('truncates long input at 77 tokens, ending with end-of-text', () => {
    const long = reference.cases.filter((c) => c.input_ids.length === 77);
    expect(long.length).toBeGreaterThanOrEqual(4);
    for (const c of long) expect(tokenizer.encode(c.text).at(-1)).toBe(49407);
  });
});
