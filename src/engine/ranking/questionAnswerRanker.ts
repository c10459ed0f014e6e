import { topKOfScores } from '../retrieval/vectors';
import { UTTERANCE_KINDS, type UtteranceKind, utteranceKind } from '../response/replyPolicy';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from '../response/types';
import { type PoolScoringRanker, contextText } from './ranker';

/**
 * How likely a reply of each kind is to follow a turn of each kind (replyPolicy.utteranceKind: a
 * statement, a question, or both), counted over the train parts' turns (`npm run chat:fuse`):
 * counts[context kind][reply kind].
 */
export interface QuestionAnswerTable {
  counts: readonly (readonly number[])[];
}

/** log P(reply kind | kind of the latest turn), with one added to every count (Laplace), so no kind is ruled out. */
function logFollowing(table: QuestionAnswerTable, latest: UtteranceKind): number[] {
  const row = table.counts[UTTERANCE_KINDS.indexOf(latest)]!;
  const total = row.reduce((a, b) => a + b, 0) + row.length;
  return row.map((n) => Math.log((n + 1) / total));
}

/**
 * question-answer: a text scores log P(its kind | the kind of the visitor's latest line), learned from the
 * train parts, so after a question an answer outranks another question ("What's your favourite city?" is
 * not answered with "What's your city like?"). One of the hybrid's parts; images score alike (0).
 */
export class QuestionAnswerRanker implements PoolScoringRanker {
  readonly id = 'question-answer' as const;
  private readonly kinds: Uint8Array;
  private readonly imageCount: number;
  constructor(
    pool: CandidatePool,
    private readonly table: QuestionAnswerTable,
  ) {
    this.kinds = Uint8Array.from(pool.texts, (t) => UTTERANCE_KINDS.indexOf(utteranceKind(t)));
    this.imageCount = pool.imageKeys.length;
  }
  private latestKind(state: ResponseState): UtteranceKind {
    return utteranceKind(contextText(state, { turns: 1 }));
  }
  /** Scores by the latest line's kind, made once each (the same array back for the same kind, so the hybrid can reuse its fusion). */
  private readonly byKind = new Map<UtteranceKind, Float64Array>();
  private noImageScores: Float64Array | null = null;
  async poolScores(state: ResponseState, modality: Modality) {
    if (modality === 'image') return (this.noImageScores ??= new Float64Array(this.imageCount));
    const kind = this.latestKind(state);
    let out = this.byKind.get(kind);
    if (!out) {
      const logP = logFollowing(this.table, kind);
      out = new Float64Array(this.kinds.length);
      for (let r = 0; r < out.length; r++) out[r] = logP[this.kinds[r]!]!;
      this.byKind.set(kind, out);
    }
    return out;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    if (modality === 'image') return new Float64Array(candidates.length);
    const logP = logFollowing(this.table, this.latestKind(state));
    return Float64Array.from(candidates, (c) => logP[UTTERANCE_KINDS.indexOf(utteranceKind(c.text))]!);
  }
}
