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

/**
 * A BM25 index's counts, as `npm run pool:index` ships them and `LexicalIndex.fromCounts` reads them:
 * every term of the candidates (first seen first), its document frequency in the corpus, and per term
 * the candidates holding it (ascending) with how often. The weights are derived from these at load,
 * with the same arithmetic as `build`, so the scores are the same to the last bit.
 */
export interface LexicalCounts {
  terms: readonly string[];
  /** Document frequency of each term in the corpus (the candidates themselves). */
  termDf: Uint32Array;
  /** Token count of each candidate. */
  docLengths: Uint32Array;
  /** Postings of term t: docs[starts[t] .. starts[t + 1]) with counts tf[...]. */
  starts: Uint32Array;
  docs: Uint32Array;
  tf: Uint16Array;
}

/** Candidates indexed for one method, with IDF from a corpus (the candidates, or the train split for a fair IDF). */
export class LexicalIndex {
  /**
   * Postings as flat typed arrays (term t's are docs[starts[t] .. starts[t + 1])): 65k pool texts
   * make about 700k postings, which as objects cost the load hundreds of milliseconds of allocation.
   */
  private constructor(
    readonly method: LexicalMethod,
    private readonly k1: number,
    private readonly b: number,
    private readonly stats: CorpusStats,
    private readonly vocab: ReadonlyMap<string, number>,
    /** Document frequency of each vocabulary id, from the corpus statistics. */
    private readonly df: Float64Array,
    private readonly starts: Uint32Array,
    private readonly docs: Uint32Array,
    /** Each posting's weight for this method. */
    private readonly weights: Float64Array,
    private readonly candidateCount: number,
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
    const counts = lexicalCounts(tokens ?? candidates.map(tokenize), stats);
    return LexicalIndex.fromCounts(method, counts, stats, options);
  }

  /** The index of counts made before (`lexicalCounts`, or a shipped file), with document frequencies from `stats`. */
  static fromCounts(method: LexicalMethod, counts: LexicalCounts, stats: CorpusStats, options: LexicalOptions = {}): LexicalIndex {
    const k1 = options.k1 ?? 2.0;
    const b = options.b ?? 0.75;
    const { terms, docLengths, starts, docs, tf } = counts;
    const vocab = new Map<string, number>();
    const df = new Float64Array(terms.length);
    terms.forEach((term, id) => {
      vocab.set(term, id);
      df[id] = stats.df.get(term) ?? 0;
    });
    let totalLength = 0;
    for (let d = 0; d < docLengths.length; d++) totalLength += docLengths[d]!;
    const avgLength = totalLength / Math.max(1, docLengths.length);
    const n = stats.docCount;
    const weights = new Float64Array(docs.length);
    for (let id = 0; id < terms.length; id++) {
      // scikit-learn's smooth idf for tf-idf; the non-negative Okapi idf for BM25.
      const idf = method === 'tfidf' ? Math.log((1 + n) / (1 + df[id]!)) + 1 : Math.log(1 + (n - df[id]! + 0.5) / (df[id]! + 0.5));
      for (let p = starts[id]!; p < starts[id + 1]!; p++) {
        const count = tf[p]!;
        weights[p] = method === 'tfidf' ? count * idf : (idf * (count * (k1 + 1))) / (count + k1 * (1 - b + (b * docLengths[docs[p]!]!) / (avgLength || 1)));
      }
    }
    // tf-idf vectors are compared by cosine: normalize the candidate side.
    if (method === 'tfidf') normalizeDocs(weights, docs, docLengths.length);
    return new LexicalIndex(method, k1, b, stats, vocab, df, starts, docs, weights, docLengths.length);
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
    const { starts, docs, weights } = this;
    for (const [id, w] of query) {
      const ws = w * scale;
      for (let p = starts[id]!; p < starts[id + 1]!; p++) out[docs[p]!]! += ws * weights[p]!;
    }
    return out;
  }

  private idf(id: number): number {
    const df = this.df[id] ?? 0;
    const n = this.stats.docCount;
    return this.method === 'tfidf' ? Math.log((1 + n) / (1 + df)) + 1 : Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }
}

/** The counts of tokenized candidates: terms in order of first appearance, postings by ascending candidate. */
export function lexicalCounts(tokenized: readonly (readonly string[])[], stats: CorpusStats): LexicalCounts {
  const vocab = new Map<string, number>();
  const termDocs: number[][] = [];
  const termTf: number[][] = [];
  const docLengths = new Uint32Array(tokenized.length);
  tokenized.forEach((tokens, doc) => {
    docLengths[doc] = tokens.length;
    const tf = new Map<number, number>();
    for (const t of tokens) {
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(t, id);
        termDocs.push([]);
        termTf.push([]);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const [id, count] of tf) {
      termDocs[id]!.push(doc);
      termTf[id]!.push(count);
    }
  });
  const terms = [...vocab.keys()];
  const starts = new Uint32Array(terms.length + 1);
  for (let id = 0; id < terms.length; id++) starts[id + 1] = starts[id]! + termDocs[id]!.length;
  const docs = new Uint32Array(starts[terms.length]!);
  const tf = new Uint16Array(docs.length);
  for (let id = 0; id < terms.length; id++) {
    docs.set(termDocs[id]!, starts[id]);
    // A word said more than 65,535 times in one candidate is counted as that many.
    tf.set(
      termTf[id]!.map((c) => Math.min(c, 0xffff)),
      starts[id],
    );
  }
  return { terms, termDf: Uint32Array.from(terms, (t) => stats.df.get(t) ?? 0), docLengths, starts, docs, tf };
}

/** Divides each candidate's weights by their Euclidean norm (Math.hypot over the candidate's terms, as scikit-learn's l2 norm). */
function normalizeDocs(weights: Float64Array, docs: Uint32Array, docCount: number): void {
  const byDoc: number[][] = Array.from({ length: docCount }, () => []);
  for (let p = 0; p < docs.length; p++) byDoc[docs[p]!]!.push(weights[p]!);
  const norms = byDoc.map((w) => Math.hypot(...w) || 1);
  for (let p = 0; p < docs.length; p++) weights[p] = weights[p]! / norms[docs[p]!]!;
}

/** The corpus statistics of candidates that are their own corpus, read from their counts. */
export function corpusStatsOfCounts(counts: LexicalCounts): CorpusStats {
  const df = new Map<string, number>();
  counts.terms.forEach((term, id) => df.set(term, counts.termDf[id]!));
  return { docCount: counts.docLengths.length, df };
}
