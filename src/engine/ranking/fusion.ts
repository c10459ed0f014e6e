import { expectedReciprocalRank, rankAmong } from '../metrics/dialogMetrics';

/**
 * Hybrid ranking by linear score fusion (Vogt & Cottrell 1999, "Fusion via a linear combination of
 * scores", Information Retrieval 1(3)); here a convex combination of normalised scores, the fusion
 * Bruch, Gai & Ingber analyse for hybrid retrieval (ACM TOIS 2023, "An Analysis of Fusion Functions
 * for Hybrid Retrieval"), over any number of parts:
 *
 *   fused(q, c) = Σ_i w_i · z_i(q, c),   w_i ≥ 0, Σ_i w_i = 1
 *
 * where z_i is part i's score standardised over the candidates ranked for q (their mean 0 and
 * population standard deviation 1). BM25 is unbounded and grows with the length of the query, a
 * cosine lies in [−1, 1]: raw sums would let whichever has the wider spread decide, so each is put on
 * the same per-query scale first and the weights alone say how much each counts. A part that scores
 * every candidate alike (BM25 when no candidate shares a word with the context) standardises to 0 and
 * leaves the order to the others. What "the candidates" are is the caller's: the candidate set in
 * evaluation (a reference among its negatives, a 1-of-100 batch), the pool's rows of a modality when
 * the reply is picked from the pool.
 *
 * The weights are learned, never tuned by hand: fitFusionWeights picks the point of a grid on the
 * simplex that gives the best mean reciprocal rank over queries none of the parts was trained on.
 */

/**
 * The mean and population standard deviation of the first `count` scores, which z-scores are taken
 * over; std 0 when they are all the same (a spread this small is rounding noise in equal scores).
 */
export function scoreSpread(scores: ArrayLike<number>, count = scores.length): { mean: number; std: number } {
  if (count === 0) return { mean: 0, std: 0 };
  let mean = 0;
  for (let i = 0; i < count; i++) mean += scores[i]!;
  mean /= count;
  let variance = 0;
  for (let i = 0; i < count; i++) variance += (scores[i]! - mean) ** 2;
  const std = Math.sqrt(variance / count);
  return { mean, std: std > 1e-12 * Math.max(1, Math.abs(mean)) ? std : 0 };
}

/** A score as a z-score of a spread; 0 when the spread has none. */
export function standardise(score: number, { mean, std }: { mean: number; std: number }): number {
  return std === 0 ? 0 : (score - mean) / std;
}

/** Scores standardised over the candidates: (s − mean) / std, std the population one; all 0 when every score is the same. */
export function zScores(scores: ArrayLike<number>): Float64Array {
  const { mean, std } = scoreSpread(scores);
  const out = new Float64Array(scores.length);
  if (std > 0) for (let i = 0; i < out.length; i++) out[i] = (scores[i]! - mean) / std;
  return out;
}

/** The convex combination of already standardised parts: Σ w_i · z_i. */
function combineStandardised(parts: readonly ArrayLike<number>[], weights: readonly number[], out = new Float64Array(parts[0]?.length ?? 0)): Float64Array {
  out.fill(0);
  parts.forEach((z, p) => {
    const w = weights[p]!;
    if (w !== 0) for (let i = 0; i < out.length; i++) out[i]! += w * z[i]!;
  });
  return out;
}

/** fused = Σ w_i · z(part_i), each part standardised over the candidates given. */
export function fuseScores(parts: readonly ArrayLike<number>[], weights: readonly number[]): Float64Array {
  if (parts.length !== weights.length) throw new Error(`${parts.length} parts were scored for ${weights.length} weights.`);
  const n = parts[0]?.length ?? 0;
  parts.forEach((p, i) => {
    if (p.length !== n) throw new Error(`Part ${i + 1} of the fusion scored ${p.length} candidates and part 1 ${n}.`);
  });
  return combineStandardised(parts.map(zScores), weights);
}

/**
 * One query the weights are learned on: every part's scores of the same candidates, and which candidate
 * is right. `standardised`: the parts are z-scores already, taken over a larger set than the candidates
 * given (a whole pool, of which only the candidates that could outrank the target are kept).
 */
export interface FusionQuery {
  parts: readonly ArrayLike<number>[];
  target: number;
  standardised?: boolean;
}

export interface FusionFit {
  /** One weight per part, summing to 1. */
  weights: number[];
  /** Mean reciprocal rank of the queries at those weights (ties at their expected rank). */
  mrr: number;
  /** How many queries they were learned on; 0 means none, and the parts count alike. */
  queries: number;
  /** MRR of each part alone (its weight 1), in part order. */
  alone: number[];
}

/** The weights used when there is nothing to learn them from: every part counts alike. */
export function evenWeights(parts: number): number[] {
  return Array.from({ length: parts }, () => 1 / parts);
}

/** Every point of the simplex whose coordinates are multiples of 1 / steps, in lexicographic order of the weights. */
function simplexGrid(parts: number, steps: number): number[][] {
  const out: number[][] = [];
  const walk = (prefix: number[], left: number) => {
    if (prefix.length === parts - 1) {
      out.push([...prefix, left].map((k) => k / steps));
      return;
    }
    for (let k = 0; k <= left; k++) walk([...prefix, k], left - k);
  };
  walk([], steps);
  return out;
}

/** Past this many points the grid is searched coarse to fine (five parts at steps of 0.05 are 10,626 points). */
const FULL_GRID_POINTS = 2000;

function gridSize(parts: number, steps: number): number {
  // C(steps + parts - 1, parts - 1)
  let n = 1;
  for (let i = 1; i < parts; i++) n = (n * (steps + i)) / i;
  return Math.round(n);
}

/**
 * Learns the weights of the convex combination: a grid over the simplex in `steps` equal steps per
 * weight (20: multiples of 0.05), each point scored by the mean reciprocal rank of the queries'
 * targets among their candidates (ties at their expected rank, as every figure here); the best wins
 * and a tie goes to the point first in lexicographic order (the least weight on the first part).
 * A grid of more than FULL_GRID_POINTS points is searched coarse to fine: the grid of half as many
 * steps, then every point of the full grid within two steps of its best in each weight.
 * Deterministic: no randomness, and the grid values are exact fractions k / steps.
 */
export function fitFusionWeights(queries: readonly FusionQuery[], parts: number, steps = 20): FusionFit {
  if (queries.length === 0) return { weights: evenWeights(parts), mrr: 0, queries: 0, alone: Array.from({ length: parts }, () => 0) };
  const standardised = queries.map((q) => {
    if (q.parts.length !== parts) throw new Error(`A query of the fusion has ${q.parts.length} parts, not ${parts}.`);
    return { z: q.standardised ? q.parts : q.parts.map(zScores), target: q.target };
  });
  const mrrAt = (weights: readonly number[]) => {
    let sum = 0;
    const out = new Float64Array(standardised[0]!.z[0]!.length);
    for (const q of standardised) {
      const fused = q.z[0]!.length === out.length ? combineStandardised(q.z, weights, out) : combineStandardised(q.z, weights);
      sum += expectedReciprocalRank(rankAmong(fused, q.target));
    }
    return sum / standardised.length;
  };
  let best = { weights: evenWeights(parts), mrr: -1 };
  const search = (points: readonly number[][]) => {
    for (const weights of points) {
      const mrr = mrrAt(weights);
      // Strictly better (beyond summation noise) to move: an equal MRR keeps the earlier point.
      if (mrr > best.mrr + 1e-12) best = { weights, mrr };
    }
  };
  if (gridSize(parts, steps) <= FULL_GRID_POINTS || steps % 2 !== 0) search(simplexGrid(parts, steps));
  else {
    search(simplexGrid(parts, steps / 2));
    const centre = best.weights;
    search(simplexGrid(parts, steps).filter((w) => w.every((x, i) => Math.abs(x - centre[i]!) <= 2 / steps + 1e-12)));
  }
  const alone = Array.from({ length: parts }, (_, p) => mrrAt(Array.from({ length: parts }, (__, i) => (i === p ? 1 : 0))));
  return { ...best, queries: queries.length, alone };
}
