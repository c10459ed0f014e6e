import { describe, expect, it } from 'vitest';
import { LexicalIndex, tokenize } from '../ranking/lexical';

describe('lexical baselines', () => {
  it('tokenizes words, numbers and contractions, lower-cased', () => {
    expect(tokenize("Don’t miss the 3 o'clock train to Zürich!")).toEqual(["don't", 'miss', 'the', '3', "o'clock", 'train', 'to', 'zürich']);
  });

  it('tf-idf: cosine of smooth-idf vectors, computed by hand', () => {
    const candidates = ['cat dog', 'dog dog fish'];
    const index = LexicalIndex.build('tfidf', candidates);
    // n = 2; idf(cat) = ln(3/2)+1, idf(dog) = ln(3/3)+1 = 1, idf(fish) = ln(3/2)+1.
    const a = Math.log(1.5) + 1;
    const scores = index.score('dog');
    expect(scores[0]).toBeCloseTo(1 / Math.hypot(a, 1), 12);
    expect(scores[1]).toBeCloseTo(2 / Math.hypot(2, a), 12);
    expect([...index.score('bird')]).toEqual([0, 0]);
  });

  it('bm25 with k1 = 2.0 and b = 0.75, computed by hand', () => {
    const candidates = ['sunny beach day', 'rain rain all day long'];
    const index = LexicalIndex.build('bm25', candidates);
    const idf = (df: number) => Math.log(1 + (2 - df + 0.5) / (df + 0.5));
    const avg = (3 + 5) / 2;
    const term = (tf: number, len: number, df: number) => (idf(df) * tf * 3) / (tf + 2 * (1 - 0.75 + (0.75 * len) / avg));
    const scores = index.score('rain day');
    expect(scores[0]).toBeCloseTo(term(1, 3, 2), 12);
    expect(scores[1]).toBeCloseTo(term(2, 5, 1) + term(1, 5, 2), 12);
  });

  it('takes document frequencies from a separate corpus when given one', () => {
    const index = LexicalIndex.build('tfidf', ['cat'], ['cat', 'cat', 'dog']);
    expect(index.score('cat')[0]).toBeCloseTo(1, 12); // one term: cosine 1 whatever its idf
    expect(index.size).toBe(1);
  });
});
