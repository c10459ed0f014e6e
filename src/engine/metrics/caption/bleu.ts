import { type TokenizedCaptionItem, checkItems, ngramCounts } from './items';

export interface BleuResult {
  /** BLEU-1..4: BLEU-n is the geometric mean of the modified precisions p1..pn times the brevity penalty. */
  bleu: [number, number, number, number];
  /** Clipped n-gram matches summed over images, orders 1..4. */
  matches: [number, number, number, number];
  /** Candidate n-grams summed over images, orders 1..4. */
  candidateNgrams: [number, number, number, number];
  /** Summed candidate length c. */
  candidateLength: number;
  /** Summed effective reference length r: per image, the reference length closest to the candidate's (the shorter on a tie). */
  referenceLength: number;
}

/** coco-caption's constants: tiny is added to every match count, small to every n-gram count, so no term is 0/0. */
const BLEU_TINY = 1e-15;
const BLEU_SMALL = 1e-9;

/**
 * Corpus BLEU (Papineni et al. 2002, eqs. 1-2) as coco-caption's BleuScorer computes it with
 * option 'closest': clipped n-gram matches and candidate n-grams are summed over all images before
 * dividing (not a mean of per-image BLEU); p_n = (matches_n + 1e-15) / (ngrams_n + 1e-9);
 * BLEU-n = (p_1 ... p_n)^(1/n) x BP with BP = exp(1 - 1/ratio) when ratio = (c + 1e-15) / (r + 1e-9) < 1.
 * So a corpus with no 4-gram match gets a tiny positive BLEU-4, not 0, as in coco-caption.
 */
export function bleu(items: readonly TokenizedCaptionItem[]): BleuResult {
  checkItems(items);
  const matches = [0, 0, 0, 0];
  const candidateNgrams = [0, 0, 0, 0];
  let candidateLength = 0;
  let referenceLength = 0;
  for (const { candidate, references } of items) {
    const maxReferenceCounts = new Map<string, number>();
    for (const reference of references) {
      for (const ofOrder of ngramCounts(reference, 4)) {
        for (const [gram, count] of ofOrder) maxReferenceCounts.set(gram, Math.max(maxReferenceCounts.get(gram) ?? 0, count));
      }
    }
    ngramCounts(candidate, 4).forEach((ofOrder, k) => {
      for (const [gram, count] of ofOrder) matches[k]! += Math.min(count, maxReferenceCounts.get(gram) ?? 0);
      candidateNgrams[k]! += Math.max(0, candidate.length - k);
    });
    const c = candidate.length;
    let closest = references[0]!.length;
    for (const { length } of references) {
      const d = Math.abs(length - c),
        best = Math.abs(closest - c);
      if (d < best || (d === best && length < closest)) closest = length;
    }
    candidateLength += c;
    referenceLength += closest;
  }
  const ratio = (candidateLength + BLEU_TINY) / (referenceLength + BLEU_SMALL);
  const brevityPenalty = ratio < 1 ? Math.exp(1 - 1 / ratio) : 1;
  const scores = [0, 0, 0, 0] as [number, number, number, number];
  let product = 1;
  for (let k = 0; k < 4; k++) {
    product *= (matches[k]! + BLEU_TINY) / (candidateNgrams[k]! + BLEU_SMALL);
    scores[k] = product ** (1 / (k + 1)) * brevityPenalty;
  }
  const asFour = (xs: number[]) => xs as [number, number, number, number];
  return { bleu: scores, matches: asFour(matches), candidateNgrams: asFour(candidateNgrams), candidateLength, referenceLength };
}
