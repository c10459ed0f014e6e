import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { dot } from '../retrieval/vectors';
import { type CandidateItem, type CandidatePool, type Modality, type ResponseState, poolMatrix } from '../response/types';
import { type PoolScoringRanker, type ContextOptions, contextVector } from './ranker';

/** clip-sim: cosine between the context embedding and each candidate's CLIP embedding. */
export class ClipSimRanker implements PoolScoringRanker {
  readonly id = 'clip-sim' as const;
  private readonly matrices: Record<Modality, ScoreMatrix>;
  constructor(
    pool: CandidatePool,
    private readonly context: ContextOptions = {},
  ) {
    // The pool's own matrices when they are ScoreMatrix already (embedPool makes them so), else one copy.
    this.matrices = { text: ScoreMatrix.of(poolMatrix(pool, 'text')), image: ScoreMatrix.of(poolMatrix(pool, 'image')) };
  }
  async poolScores(state: ResponseState, modality: Modality) {
    return this.matrices[modality].scores(contextVector(state, this.context));
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return this.matrices[modality].topK(contextVector(state, this.context), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]) {
    const x = contextVector(state, this.context);
    return Float64Array.from(candidates, (c) => dot(x, c.embedding));
  }
}
