import { EngineError } from '../errors';
import { type ScoredIndex, l2Normalize } from '../retrieval/vectors';
import type { CandidateItem, Modality, RankerId, ResponseState } from '../response/types';

/** The ranking module S: scores candidates of one modality for the dialogue so far. */
export interface Ranker {
  readonly id: RankerId;
  /** The k best pool rows of a modality, never one in `exclude` (elements already in this response). */
  topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>): Promise<ScoredIndex[]>;
  /** Scores of candidates given by content: a reference element and its negatives, in evaluation. */
  score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]): Promise<Float64Array>;
  /** What a benchmark should print about how it ranks, when there is more than its name to say (the hybrid's learned weights). */
  readonly note?: string;
}

/** A ranker that also gives every pool row's score, so the hybrid can standardise its scores over the pool. */
export interface PoolScoringRanker extends Ranker {
  /** The score of every pool row of a modality, in row order. */
  poolScores(state: ResponseState, modality: Modality): Promise<Float64Array>;
}

export interface ContextOptions {
  /** How many of the latest turns the query sees: 1 is the immediate context, Infinity the whole history. */
  turns?: number;
}

function contextElements(state: ResponseState, options: ContextOptions) {
  const turns = options.turns ?? 1;
  return state.turns.slice(Math.max(0, state.turns.length - turns)).flatMap((t) => t.elements);
}

/** The context as one unit vector: the mean of its elements' unit CLIP embeddings. */
export function contextVector(state: ResponseState, options: ContextOptions = {}): Float32Array {
  const elements = contextElements(state, options);
  if (elements.length === 0) throw new EngineError('invalid-input', 'There is no context to reply to.');
  const dim = elements[0]!.embedding.length;
  const sum = new Float32Array(dim);
  for (const e of elements) for (let i = 0; i < dim; i++) sum[i]! += e.embedding[i]!;
  return l2Normalize(sum);
}

export function contextText(state: ResponseState, options: ContextOptions = {}): string {
  return contextElements(state, options)
    .map((e) => e.text)
    .join(' \n ');
}
