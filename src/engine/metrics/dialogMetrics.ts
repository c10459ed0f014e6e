import { dot } from '../retrieval/vectors';

/**
 * The MMDialog paper's response metrics (Feng et al., ACL 2023, sec. 6) and the ranking metrics of
 * the PolyAI protocol, on plain numbers so the benchmark, the UI and the tests share them.
 */

export type Modality = 'text' | 'image';

export interface MmRelevance {
  /** 100 x cosine of each aligned pair (predicted i with reference i). */
  pairScores: number[];
  precision: number;
  recall: number;
  f1: number;
}

/**
 * MM-Relevance (eqs. 2-3): predicted and reference elements are aligned from the left; pair i scores
 * 100 x the cosine of their CLIP embeddings (text-image pairs across modalities, as the MMDialog
 * repository's compute_mmrel.py does). P = sum / J (predicted length), R = sum / L (reference length),
 * MM-Relevance = their F1. Embeddings must be unit length.
 */
export function mmRelevance(predicted: readonly Float32Array[], reference: readonly Float32Array[]): MmRelevance {
  const pairs = Math.min(predicted.length, reference.length);
  const pairScores: number[] = [];
  for (let i = 0; i < pairs; i++) pairScores.push(100 * dot(predicted[i]!, reference[i]!));
  const sum = pairScores.reduce((a, b) => a + b, 0);
  const precision = predicted.length ? sum / predicted.length : 0;
  const recall = reference.length ? sum / reference.length : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { pairScores, precision, recall, f1 };
}

/**
 * Where a target lands among scored candidates, with ties broken at random in expectation:
 * g candidates score higher and e others score the same, so the target's rank is uniform on
 * g+1 ... g+e+1. Every figure below is that expectation, so a method that scores everything
 * alike (say, tf-idf with no shared word) gets chance, not a perfect rank.
 */
export interface TargetRank {
  higher: number;
  ties: number;
  /** Not ranked at all (MMDialog: the predicted intent was another modality): recall and reciprocal rank 0, rank last. */
  miss?: true;
}

export function rankAmong(scores: ArrayLike<number>, target: number): TargetRank {
  const t = scores[target]!;
  let higher = 0,
    ties = 0;
  for (let i = 0; i < scores.length; i++) {
    if (i === target) continue;
    if (scores[i]! > t) higher++;
    else if (scores[i] === t) ties++;
  }
  return { higher, ties };
}

/** One reference element ranked among itself and its negatives; a miss when the predicted intent was the other modality. */
export interface RankedElement {
  modality: Modality;
  rank: TargetRank;
  /** How many candidates it was ranked among: itself and the negatives used. */
  candidates: number;
}

/** P(rank <= k) under random tie-breaking. */
export function recallAtK({ higher, ties, miss }: TargetRank, k: number): number {
  if (miss) return 0;
  return Math.min(1, Math.max(0, (k - higher) / (ties + 1)));
}

export function expectedRank({ higher, ties }: TargetRank): number {
  return higher + 1 + ties / 2;
}

export function expectedReciprocalRank({ higher, ties, miss }: TargetRank): number {
  if (miss) return 0;
  let sum = 0;
  for (let r = higher + 1; r <= higher + ties + 1; r++) sum += 1 / r;
  return sum / (ties + 1);
}

export interface RankSummary {
  count: number;
  recallAt: Record<number, number>;
  mrr: number;
  meanRank: number;
}

/** Means over targets: Recall@k for each k asked, MRR and mean rank; 1-of-100 accuracy is Recall@1 with 99 negatives. */
export function summarizeRanks(ranks: readonly TargetRank[], ks: readonly number[] = [1, 5, 10]): RankSummary {
  const n = ranks.length || 1;
  const recallAt: Record<number, number> = {};
  for (const k of ks) recallAt[k] = ranks.reduce((s, r) => s + recallAtK(r, k), 0) / n;
  return {
    count: ranks.length,
    recallAt,
    mrr: ranks.reduce((s, r) => s + expectedReciprocalRank(r), 0) / n,
    meanRank: ranks.reduce((s, r) => s + expectedRank(r), 0) / n,
  };
}

export interface IntentF1 {
  precision: number;
  recall: number;
  f1: number;
}

/**
 * Intent F1 (eq. 1) of one response: the predicted and reference modality sequences are aligned
 * from the left as in MM-Relevance, pair i scores 1 when the modalities agree, P = matches / J,
 * R = matches / L, and the F1 of the two; in percent.
 */
export function intentF1(predicted: readonly Modality[], reference: readonly Modality[]): IntentF1 {
  let matches = 0;
  for (let i = 0; i < Math.min(predicted.length, reference.length); i++) if (predicted[i] === reference[i]) matches++;
  const precision = predicted.length ? (100 * matches) / predicted.length : 0;
  const recall = reference.length ? (100 * matches) / reference.length : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}
