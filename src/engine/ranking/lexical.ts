/**
 * The lexical baselines of the PolyAI conversational-datasets repository: tf-idf cosine and BM25
 * (k1 = 2.0, b = 0.75), scoring every candidate text against a context through an inverted index
 * (only candidates that share a word with the context are touched).
 */

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

export type LexicalMethod = 'tfidf' | 'bm25';

/** Document frequencies of a corpus: computed once and shared by every index ranked against it. */
export interface CorpusStats {
  docCount: number;
  df: ReadonlyMap<string, number>;
}

export function corpusStats(corpus: readonly string[]): CorpusStats {
  return corpusStatsOfTokens(corpus.map(tokenize));
}

/** corpusStats of a corpus already tokenized (so a corpus that is also indexed is tokenized once: 65k pool texts take seconds). */
export function corpusStatsOfTokens(corpus: readonly (readonly string[])[]): CorpusStats {
  const df = new Map<string, number>();
  for (const doc of corpus) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  return { docCount: corpus.length, df };
}

export interface LexicalOptions {
  k1?: number;
  b?: number;
}

/** Candidates indexed for one method, with IDF from a corpus (the candidates, or the train split for a fair IDF). */
export class LexicalIndex {
  private readonly vocab = new Map<string, number>();
  /** Document frequency of each vocabulary id, from the corpus statistics. */
  private readonly df: number[] = [];
  /** Postings per term: candidate index and its weight for this method. */
  private postings: { doc: number; weight: number }[][] = [];
  private candidateCount = 0;

  private constructor(
    readonly method: LexicalMethod,
    private readonly k1: number,
    private readonly b: number,
    private readonly stats: CorpusStats,
  ) {}

  /**
   * Indexes the candidates; `idf` (default: the candidates themselves) gives the document
   * frequencies, so a split's statistics can come from its train part only. Pass CorpusStats to
   * index many candidate sets against one corpus without counting it again.
   */
  static build(
    method: LexicalMethod,
    candidates: readonly string[],
    idf: readonly string[] | CorpusStats = candidates,
    options: LexicalOptions = {},
    tokens?: readonly (readonly string[])[],
  ): LexicalIndex {
    const stats = 'df' in idf ? idf : corpusStats(idf);
    const index = new LexicalIndex(method, options.k1 ?? 2.0, options.b ?? 0.75, stats);
    const tokenized = tokens ?? candidates.map(tokenize);
    const avgLength = tokenized.reduce((s, t) => s + t.length, 0) / Math.max(1, tokenized.length);
    index.candidateCount = candidates.length;
    tokenized.forEach((tokens, doc) => {
      const tf = new Map<number, number>();
      for (const t of tokens) {
        const id = index.termId(t);
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      const weights = [...tf.entries()].map(([id, count]) => [id, index.candidateWeight(id, count, tokens.length, avgLength)] as const);
      // tf-idf vectors are compared by cosine: normalize the candidate side here.
      const norm = method === 'tfidf' ? Math.hypot(...weights.map(([, w]) => w)) || 1 : 1;
      for (const [id, w] of weights) (index.postings[id] ??= []).push({ doc, weight: w / norm });
    });
    return index;
  }

  get size(): number {
    return this.candidateCount;
  }

  /** Scores of every candidate for a context; candidates with no shared word score 0. */
  score(context: string, out = new Float64Array(this.candidateCount)): Float64Array {
    out.fill(0);
    const tf = new Map<number, number>();
    for (const t of tokenize(context)) {
      const id = this.vocab.get(t);
      if (id !== undefined) tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    let queryNorm = 0;
    const query: [number, number][] = [];
    for (const [id, count] of tf) {
      // tf-idf: the query is a tf-idf vector too; BM25: each query term counts once per occurrence, weighted by its idf inside the posting.
      const w = this.method === 'tfidf' ? count * this.idf(id) : count;
      query.push([id, w]);
      queryNorm += w * w;
    }
    const scale = this.method === 'tfidf' ? 1 / (Math.sqrt(queryNorm) || 1) : 1;
    for (const [id, w] of query) for (const p of this.postings[id] ?? []) out[p.doc]! += w * scale * p.weight;
    return out;
  }

  private termId(term: string): number {
    let id = this.vocab.get(term);
    if (id === undefined) {
      id = this.vocab.size;
      this.vocab.set(term, id);
      this.df[id] = this.stats.df.get(term) ?? 0;
    }
    return id;
  }

  /** scikit-learn's smooth idf for tf-idf; the non-negative Okapi idf for BM25. */
  private idf(id: number): number {
    const df = this.df[id] ?? 0;
    const n = this.stats.docCount;
    return this.method === 'tfidf' ? Math.log((1 + n) / (1 + df)) + 1 : Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  private candidateWeight(id: number, count: number, length: number, avgLength: number): number {
    if (this.method === 'tfidf') return count * this.idf(id);
    const { k1, b } = this;
    return (this.idf(id) * (count * (k1 + 1))) / (count + k1 * (1 - b + (b * length) / (avgLength || 1)));
  }
}
