import { type TokenizedCaptionItem, checkItems, mean, ngramCounts } from './items';

const CIDER_D_SIGMA = 6;

interface TfIdfVector {
  /** Per order 1..4: n-gram -> tf x idf. */
  weights: Map<string, number>[];
  /** Per order: the Euclidean norm of `weights`. */
  norms: number[];
  /** coco-caption's "length": the number of bigrams, i.e. tokens - 1 (0 for an empty caption). */
  length: number;
}

/**
 * CIDEr-D (Vedantam et al. 2015, sec. 3, eqs. 1-3, with the clipping and Gaussian length penalty of
 * sec. 3.1 "CIDEr-D") exactly as coco-caption's CiderScorer computes it:
 * - df(g) is the number of evaluated images whose reference set contains g (at least once in any
 *   reference); N is the number of images; idf(g) = log N - log max(1, df(g)), natural logs, so an
 *   n-gram absent from every reference set gets log N.
 * - g_n(s) holds tf(g) x idf(g) for the n-grams of s, tf being the raw count (not normalised by length).
 * - sim_n(c, r) = sum_g min(g_n(c)_g, g_n(r)_g) g_n(r)_g / (|g_n(c)| |g_n(r)|) (no division when a
 *   norm is 0) x exp(-(l_c - l_r)^2 / (2 sigma^2)), sigma = 6, where l is coco-caption's length,
 *   which counts bigrams (tokens - 1). Kept as there; it never changes a score, since the difference
 *   is the difference in tokens when both captions have a token, and an empty caption scores 0.
 * - CIDEr-D_n = mean over references of sim_n; the image's score is 10 x the mean of CIDEr-D_1..4,
 *   and the corpus score is the mean over images.
 * With one image, every reference n-gram has idf 0, so the score is 0 (as in coco-caption).
 */
export function ciderD(items: readonly TokenizedCaptionItem[]): { score: number; perImage: number[] } {
  checkItems(items);
  const documentFrequency = new Map<string, number>();
  const referenceCounts = items.map((item) => item.references.map((r) => ngramCounts(r, 4)));
  for (const references of referenceCounts) {
    const inThisImage = new Set<string>();
    for (const counts of references) for (const ofOrder of counts) for (const gram of ofOrder.keys()) inThisImage.add(gram);
    for (const gram of inThisImage) documentFrequency.set(gram, (documentFrequency.get(gram) ?? 0) + 1);
  }
  const logImages = Math.log(items.length);
  const toVector = (counts: Map<string, number>[]): TfIdfVector => {
    const weights = counts.map((ofOrder) => {
      const w = new Map<string, number>();
      for (const [gram, tf] of ofOrder) w.set(gram, tf * (logImages - Math.log(Math.max(1, documentFrequency.get(gram) ?? 0))));
      return w;
    });
    const norms = weights.map((w) => Math.sqrt([...w.values()].reduce((s, x) => s + x * x, 0)));
    const length = [...(counts[1]?.values() ?? [])].reduce((s, tf) => s + tf, 0);
    return { weights, norms, length };
  };
  const perImage = items.map((item, i) => {
    const candidate = toVector(ngramCounts(item.candidate, 4));
    const sums = [0, 0, 0, 0];
    for (const counts of referenceCounts[i]!) {
      const reference = toVector(counts);
      const delta = candidate.length - reference.length;
      const lengthPenalty = Math.exp(-(delta * delta) / (2 * CIDER_D_SIGMA * CIDER_D_SIGMA));
      for (let k = 0; k < 4; k++) {
        let similarity = 0;
        const r = reference.weights[k]!;
        for (const [gram, c] of candidate.weights[k]!) {
          const rw = r.get(gram) ?? 0;
          similarity += Math.min(c, rw) * rw;
        }
        if (candidate.norms[k] !== 0 && reference.norms[k] !== 0) similarity /= candidate.norms[k]! * reference.norms[k]!;
        sums[k]! += similarity * lengthPenalty;
      }
    }
    // In coco-caption's order of operations: mean over n, / references, x 10.
    return (mean(sums) / item.references.length) * 10;
  });
  return { score: mean(perImage), perImage };
}
