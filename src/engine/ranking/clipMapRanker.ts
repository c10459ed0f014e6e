import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { type EmbeddingMatrix, dot, l2Normalize } from '../retrieval/vectors';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from '../response/types';
import { type PoolScoringRanker, type ContextOptions, contextVector } from './ranker';

/** The learned map of the PolyAI "map" method, one per candidate modality: y -> (W + aI) y. */
export interface ClipMapParams {
  dim: number;
  text: { w: Float32Array; a: number };
  image: { w: Float32Array; a: number };
}

export function applyMap(params: { w: Float32Array; a: number }, y: Float32Array): Float32Array {
  const dim = y.length;
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) {
    let s = params.a * y[i]!;
    const row = i * dim;
    for (let j = 0; j < dim; j++) s += params.w[row + j]! * y[j]!;
    out[i] = s;
  }
  return l2Normalize(out);
}

/**
 * clip-map: cosine(x, (W + aI) y), W and a learned on the train split with the dot-product loss
 * (PolyAI conversational-datasets, "map" baselines). The pool is mapped once, so ranking stays one
 * matrix product and a partial top-k.
 */
export class ClipMapRanker implements PoolScoringRanker {
  readonly id = 'clip-map' as const;
  private readonly mapped: Record<Modality, ScoreMatrix>;
  constructor(
    pool: CandidatePool,
    private readonly params: ClipMapParams,
    private readonly context: ContextOptions = {},
  ) {
    const mapAll = (m: EmbeddingMatrix, p: { w: Float32Array; a: number }): ScoreMatrix => {
      const mapped = ScoreMatrix.allocate(m.rows, m.dim); // mapped rows are written straight into the ranking matrix
      for (let r = 0; r < m.rows; r++) mapped.data.set(applyMap(p, m.data.subarray(r * m.dim, (r + 1) * m.dim)), r * m.dim);
      return mapped;
    };
    this.mapped = { text: mapAll(pool.textMatrix, params.text), image: mapAll(pool.imageMatrix, params.image) };
  }
  async poolScores(state: ResponseState, modality: Modality) {
    return this.mapped[modality].scores(contextVector(state, this.context));
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return this.mapped[modality].topK(contextVector(state, this.context), k, exclude);
  }
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    const x = contextVector(state, this.context);
    return Float64Array.from(candidates, (c) => dot(x, applyMap(this.params[modality], c.embedding)));
  }
}
