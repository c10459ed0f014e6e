import { type CorpusStats, LexicalIndex, corpusStats, corpusStatsOfCounts, corpusStatsOfTokens, tokenize } from './lexical';
import { topKOfScores } from '../retrieval/vectors';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from '../response/types';
import { type PoolScoringRanker, type ContextOptions, contextText } from './ranker';

/** tf-idf or BM25 over text (PolyAI baselines); image candidates are represented by their captions. */
export class LexicalRanker implements PoolScoringRanker {
  private readonly indices: Record<Modality, LexicalIndex>;
  private readonly stats: CorpusStats;
  /** The last scores per modality, shared by every reading of the same indices: the hybrid's BM25 and its lookup read the same latest line. */
  private readonly lastScores: Partial<Record<Modality, { text: string; scores: Float64Array }>>;
  constructor(
    readonly id: 'tfidf' | 'bm25',
    pool: CandidatePool,
    /** Document frequencies come from this corpus (the pool's texts), never from a split being evaluated. */
    idfCorpus: readonly string[],
    private readonly context: ContextOptions = {},
    built?: { indices: Record<Modality, LexicalIndex>; stats: CorpusStats; lastScores: LexicalRanker['lastScores'] },
  ) {
    this.lastScores = built?.lastScores ?? {};
    const ownCorpus = !built && idfCorpus === pool.texts;
    // The pool's texts are usually the corpus too (their own document frequencies): counted ahead of
    // time when the pool ships its counts, else tokenized once for both.
    const counts = ownCorpus ? pool.textCounts : undefined;
    const textTokens = ownCorpus && !counts ? pool.texts.map(tokenize) : undefined;
    this.stats = built?.stats ?? (counts ? corpusStatsOfCounts(counts) : textTokens ? corpusStatsOfTokens(textTokens) : corpusStats(idfCorpus));
    this.indices = built?.indices ?? {
      text: counts ? LexicalIndex.fromCounts(id, counts, this.stats) : LexicalIndex.build(id, pool.texts, this.stats, {}, textTokens),
      image: LexicalIndex.build(id, pool.imageCaptions, this.stats),
    };
  }

  /** The same indices read with another context (another number of the latest turns), built no second time. */
  withContext(pool: CandidatePool, context: ContextOptions): LexicalRanker {
    return new LexicalRanker(this.id, pool, [], context, { indices: this.indices, stats: this.stats, lastScores: this.lastScores });
  }
  /** Every row's score; the array is shared with the next caller asking for the same text, so it is only read. */
  async poolScores(state: ResponseState, modality: Modality) {
    const text = contextText(state, this.context);
    const last = this.lastScores[modality];
    if (last?.text === text) return last.scores;
    const scores = this.indices[modality].score(text);
    this.lastScores[modality] = { text, scores };
    return scores;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]) {
    return LexicalIndex.build(
      this.id,
      candidates.map((c) => c.text),
      this.stats,
    ).score(contextText(state, this.context));
  }
}
