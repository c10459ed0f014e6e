import type { DialogueElement, DialogueRecord } from '../datasets/mmdialog';
import { expectedReciprocalRank, rankAmong } from '../metrics/dialogMetrics';
import { poolElement } from './compose';
import type { CandidatePool, ContextTurn, Modality, ResponseState } from './types';

/**
 * Hybrid ranking by linear score fusion (Vogt & Cottrell 1999, "Fusion via a linear combination of
 * scores", Information Retrieval 1(3)); here the convex combination of a normalised lexical and a
 * normalised dense score, the fusion Bruch, Gai & Ingber analyse for hybrid retrieval (ACM TOIS
 * 2023, "An Analysis of Fusion Functions for Hybrid Retrieval"):
 *
 *   fused(q, c) = w · z_lex(q, c) + (1 − w) · z_dense(q, c),   w in [0, 1]
 *
 * where z is a component's score standardised over the candidates ranked for q (their mean 0 and
 * population standard deviation 1). BM25 is unbounded and grows with the length of the query, a
 * cosine lies in [−1, 1]: raw sums would let whichever has the wider spread decide, so each is put on
 * the same per-query scale first and w alone says how much each counts. A component that scores every
 * candidate alike (BM25 when no candidate shares a word with the context) standardises to 0 and
 * leaves the order to the other. What "the candidates" are is the caller's: the candidate set in
 * evaluation (a reference among its negatives, a 1-of-100 batch), the pool's rows of a modality when
 * the reply is picked from the pool.
 *
 * The weight w is learned, never tuned by hand: fitConvexWeight picks the w of a grid that gives the
 * best mean reciprocal rank over train queries (a reference among sampled negatives).
 */

/** Scores standardised over the candidates: (s − mean) / std, std the population one; all 0 when every score is the same. */
export function zScores(scores: ArrayLike<number>): Float64Array {
  const n = scores.length;
  const out = new Float64Array(n);
  if (n === 0) return out;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += scores[i]!;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (scores[i]! - mean) ** 2;
  const std = Math.sqrt(variance / n);
  // A spread this small is rounding noise in scores meant to be equal: treat them as equal.
  if (!(std > 1e-12 * Math.max(1, Math.abs(mean)))) return out;
  for (let i = 0; i < n; i++) out[i] = (scores[i]! - mean) / std;
  return out;
}

/** The weight of the lexical component; the dense one gets 1 − lexical. */
export interface FusionWeight {
  lexical: number;
}

/** The convex combination of already standardised scores: lexical · zLex + (1 − lexical) · zDense. */
export function combineStandardised(zLex: ArrayLike<number>, zDense: ArrayLike<number>, weight: FusionWeight, out = new Float64Array(zLex.length)): Float64Array {
  const w = weight.lexical;
  for (let i = 0; i < out.length; i++) out[i] = w * zLex[i]! + (1 - w) * zDense[i]!;
  return out;
}

/** fused = w · z(lexical) + (1 − w) · z(dense), each standardised over the candidates given. */
export function fuseScores(lexical: ArrayLike<number>, dense: ArrayLike<number>, weight: FusionWeight): Float64Array {
  if (lexical.length !== dense.length) throw new Error(`The lexical part scored ${lexical.length} candidates and the dense part ${dense.length}.`);
  return combineStandardised(zScores(lexical), zScores(dense), weight);
}

/** One train query for the weight: both components' scores of the same candidates, and which candidate is right. */
export interface FusionQuery {
  lexical: ArrayLike<number>;
  dense: ArrayLike<number>;
  target: number;
}

export interface ConvexFit {
  /** The lexical weight chosen; the dense weight is 1 − lexical. */
  lexical: number;
  /** Mean reciprocal rank of the train queries at that weight (ties at their expected rank). */
  mrr: number;
  /** How many train queries it was learned on; 0 means none, and the weight is the even split. */
  queries: number;
  /** MRR at every weight of the grid, lexical weight ascending. */
  curve: { lexical: number; mrr: number }[];
}

/** The weight used when there is nothing to learn it from: both components count alike. */
export const EVEN_WEIGHT = 0.5;

/**
 * Learns w of the convex combination: a grid over [0, 1] in `steps` equal steps (20: 0, 0.05, ..., 1),
 * each weight scored by the mean reciprocal rank of the queries' targets among their candidates
 * (ties at their expected rank, as every figure here); the best wins and a tie goes to the smaller
 * lexical weight. Deterministic: no randomness, and the grid values are exact fractions i / steps.
 */
export function fitConvexWeight(queries: readonly FusionQuery[], steps = 20): ConvexFit {
  if (queries.length === 0) return { lexical: EVEN_WEIGHT, mrr: 0, queries: 0, curve: [] };
  const standardised = queries.map((q) => {
    if (q.lexical.length !== q.dense.length) throw new Error(`A train query has ${q.lexical.length} lexical and ${q.dense.length} dense scores.`);
    return { zLex: zScores(q.lexical), zDense: zScores(q.dense), target: q.target };
  });
  const curve: ConvexFit['curve'] = [];
  let best = { lexical: 0, mrr: -1 };
  for (let i = 0; i <= steps; i++) {
    const weight = { lexical: i / steps };
    let sum = 0;
    for (const q of standardised) sum += expectedReciprocalRank(rankAmong(combineStandardised(q.zLex, q.zDense, weight), q.target));
    const mrr = sum / standardised.length;
    curve.push({ lexical: weight.lexical, mrr });
    // Strictly better (beyond summation noise) to move up: equal MRR keeps the smaller lexical weight.
    if (mrr > best.mrr + 1e-12) best = { lexical: weight.lexical, mrr };
  }
  return { ...best, queries: queries.length, curve };
}

/** A train query drawn from the pool: the context, the reference element's pool row, and negative pool rows of its modality. */
export interface PoolTrainingQuery {
  state: ResponseState;
  modality: Modality;
  target: number;
  negatives: number[];
}

export interface PoolTrainingOptions {
  /** Queries drawn per modality (fewer when the train split has fewer). */
  perModality: number;
  /** Negatives drawn from the pool for each (all the other rows when the pool is smaller). */
  negatives: number;
  /** Uniform numbers in [0, 1) from a seeded generator, so the draw is the same every time. */
  next: () => number;
}

/**
 * Train queries for the weights of the multimodal hybrid, drawn from the train dialogues: each
 * element of a response turn, with the turns before it as the context and the response's earlier
 * elements as R<j (as evaluation ranks a reference element), whose context and target are all rows
 * of the pool, so nothing needs encoding (the demo's train texts and images all are). Per modality,
 * `perModality` of them are drawn without replacement, each with `negatives` other rows of its
 * modality drawn from the pool, never the target nor a row of its own context.
 */
export function poolTrainingQueries(records: readonly DialogueRecord[], pool: CandidatePool, options: PoolTrainingOptions): Record<Modality, PoolTrainingQuery[]> {
  const textRow = new Map(pool.texts.map((t, r) => [t, r]));
  const imageRow = new Map(pool.imageKeys.map((k, r) => [k, r]));
  const inPool = (e: DialogueElement): { kind: Modality; row: number } | null => {
    const row = e.kind === 'text' ? textRow.get(e.text) : imageRow.get(e.key);
    return row === undefined ? null : { kind: e.kind === 'text' ? 'text' : 'image', row };
  };
  const all: Record<Modality, { state: ResponseState; target: number; own: number[] }[]> = { text: [], image: [] };
  for (const record of records) {
    // Each turn as pool rows and their context elements; null when any element is not in the pool.
    const turns = record.turns.map((turn) => {
      const rows = turn.elements.map(inPool);
      if (rows.some((r) => r === null)) return null;
      return rows.map((r) => ({ row: r!.row, element: poolElement(pool, r!.kind, r!.row) }));
    });
    for (let t = 1; t < turns.length; t++) {
      const context = turns.slice(0, t);
      const response = turns[t];
      if (!response || context.some((c) => c === null)) continue;
      const contextTurns: ContextTurn[] = context.map((c, i) => ({ speaker: (i % 2) as 0 | 1, elements: c!.map((e) => e.element) }));
      response.forEach(({ row, element }, j) => {
        // The context's own rows of this modality are no negatives: evaluation never ranks the context against its reply.
        const own = [...context.flatMap((c) => c!), ...response.slice(0, j)].filter((e) => e.element.kind === element.kind).map((e) => e.row);
        all[element.kind].push({ state: { turns: contextTurns, partial: response.slice(0, j).map((e) => e.element) }, target: row, own });
      });
    }
  }
  const draw = (modality: Modality): PoolTrainingQuery[] => {
    const items = all[modality];
    const count = Math.min(options.perModality, items.length);
    // A partial Fisher-Yates shuffle: the first `count` places get a uniform sample without replacement.
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(options.next() * (items.length - i));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    const size = modality === 'text' ? pool.texts.length : pool.imageKeys.length;
    return items.slice(0, count).map(({ state, target, own }) => ({ state, modality, target, negatives: drawNegatives(size, new Set([target, ...own]), options.negatives, options.next) }));
  };
  return { text: draw('text'), image: draw('image') };
}

/** `count` distinct rows of 0..size-1 not in `exclude`, in the order drawn (every such row when there are not more). */
function drawNegatives(size: number, exclude: ReadonlySet<number>, count: number, next: () => number): number[] {
  const available = size - [...exclude].filter((r) => r >= 0 && r < size).length;
  if (count >= available) return Array.from({ length: size }, (_, i) => i).filter((i) => !exclude.has(i));
  const chosen = new Set<number>();
  const out: number[] = [];
  while (out.length < count) {
    const row = Math.floor(next() * size);
    if (exclude.has(row) || chosen.has(row)) continue;
    chosen.add(row);
    out.push(row);
  }
  return out;
}
