import { type Modality, type RankedElement, summarizeRanks } from './dialogMetrics';

/**
 * Running means over the turns scored in one visit to the page (replayed reference turns and the
 * visitor's own answers), pooled the way evaluateDialogs pools a benchmark run, so a replay of a
 * whole dialogue ends on the benchmark's figures for that dialogue.
 */
export interface TurnFigures {
  /** MM-Relevance F1 of the turn (eqs. 2-3), 0-100. */
  mmRelevance: number;
  /** Intent F1 of the turn (eq. 1), in %. */
  intentF1: number;
  /** Its ranked reference elements; none for a visitor's own answer, which has no negatives. */
  ranks: readonly Pick<RankedElement, 'modality' | 'rank'>[];
}

export interface SessionMeans {
  turns: number;
  mmRelevance: number;
  intentF1: number;
  /** Recall@1 (0-1) over every ranked element of the modality so far; null before the first. */
  recallAt1: Record<Modality, number | null>;
}

/** Recall@1 over the ranked elements of one modality (ties at their expected rank, a miss at 0); null when there are none. */
export function recallAt1(ranks: TurnFigures['ranks'], modality: Modality): number | null {
  const of = ranks.filter((r) => r.modality === modality).map((r) => r.rank);
  return of.length > 0 ? summarizeRanks(of, [1]).recallAt[1]! : null;
}

export function sessionMeans(turns: readonly TurnFigures[]): SessionMeans {
  let mmSum = 0,
    intentSum = 0;
  for (const t of turns) {
    mmSum += t.mmRelevance;
    intentSum += t.intentF1;
  }
  const ranks = turns.flatMap((t) => t.ranks);
  const n = turns.length;
  return {
    turns: n,
    mmRelevance: n ? mmSum / n : 0,
    intentF1: n ? intentSum / n : 0,
    recallAt1: { text: recallAt1(ranks, 'text'), image: recallAt1(ranks, 'image') },
  };
}

/** The session means after each turn, in order: the points of the running-means chart. */
export function runningMeans(turns: readonly TurnFigures[]): SessionMeans[] {
  return turns.map((_, i) => sessionMeans(turns.slice(0, i + 1)));
}
