import { topKOfScores } from '../retrieval/vectors';
import type { StoredContexts } from './chatRanking';
import { textKey } from '../pool/textKey';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from '../response/types';
import type { PoolScoringRanker } from './ranker';
import { LexicalRanker } from './lexicalRanker';

/**
 * lookup: the classic retrieval chatbot, with no learning: the stored train context whose latest turn is
 * most like the visitor's latest line by BM25, and the line that was said after it. A pool text scores the
 * best BM25 score of the contexts it answered (0 when it answered none), so ranking the pool is ranking the
 * contexts. Images are ranked by BM25 over their labels, as the bm25 method ranks them.
 */
export class LookupRanker implements PoolScoringRanker {
  readonly id = 'lookup' as const;
  private readonly latestTurn: LexicalRanker;
  /** The pool's rows by text key, for candidates given by content (evaluation only): built when first asked. */
  private rowsOfKey: Map<string, number[]> | null = null;
  constructor(
    bm25: LexicalRanker,
    private readonly pool: CandidatePool,
    private readonly contexts: StoredContexts,
  ) {
    this.latestTurn = bm25.withContext(pool, { turns: 1 });
  }
  async poolScores(state: ResponseState, modality: Modality) {
    const matched = await this.latestTurn.poolScores(state, modality);
    if (modality === 'image') return matched;
    const out = new Float64Array(matched.length);
    const { responseRows, latestRows } = this.contexts;
    for (let k = 0; k < responseRows.length; k++) {
      const latest = latestRows[k]!;
      if (latest < 0) continue;
      const row = responseRows[k]!;
      if (matched[latest]! > out[row]!) out[row] = matched[latest]!;
    }
    return out;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  /** A candidate given by content scores as the pool text of its key (0 for a text the pool does not hold). */
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    if (modality === 'image') return this.latestTurn.score(state, modality, candidates);
    const scores = await this.poolScores(state, 'text');
    if (!this.rowsOfKey) {
      const rowsOfKey = new Map<string, number[]>();
      this.pool.texts.forEach((t, r) => rowsOfKey.set(textKey(t), [...(rowsOfKey.get(textKey(t)) ?? []), r]));
      this.rowsOfKey = rowsOfKey;
    }
    const rowsOfKey = this.rowsOfKey;
    return Float64Array.from(candidates, (c) => Math.max(0, ...(rowsOfKey.get(textKey(c.text)) ?? []).map((r) => scores[r]!)));
  }
}
