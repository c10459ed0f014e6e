import { seededRandom } from '../random';
import { topKOfScores } from '../retrieval/vectors';
import { type CandidateItem, type CandidatePool, type Modality, type ResponseState, poolSize } from '../response/types';
import type { Ranker } from './ranker';

export class RandomRanker implements Ranker {
  readonly id = 'random' as const;
  private readonly next: () => number;
  constructor(
    private readonly pool: CandidatePool,
    seed: number,
  ) {
    this.next = seededRandom(seed);
  }
  async topK(_: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    const scores = new Float64Array(poolSize(this.pool, modality)).map(() => this.next());
    return topKOfScores(scores, k, exclude);
  }
  async score(_: ResponseState, __: Modality, candidates: readonly CandidateItem[]) {
    return new Float64Array(candidates.length).map(() => this.next());
  }
}
