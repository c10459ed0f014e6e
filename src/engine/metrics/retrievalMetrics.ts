import type { EmbeddingMatrix } from '../retrieval/vectors';

export interface RecallFigures {
  r1: number;
  r5: number;
  r10: number;
  meanRank: number;
  queries: number;
}

export interface ImageTextRetrieval {
  textToImage: RecallFigures;
  imageToText: RecallFigures;
  chance: { textToImage: RecallFigures; imageToText: RecallFigures };
}

function dotRow(m: EmbeddingMatrix, row: number, q: Float32Array, qOffset = 0): number {
  let s = 0;
  const base = row * m.dim;
  for (let j = 0; j < m.dim; j++) s += m.data[base + j]! * q[qOffset + j]!;
  return s;
}

/** 1-based rank of the best-scoring target among all scores (ties counted against the target). */
function rankOf(scores: Float64Array, targets: readonly number[]): number {
  let best = -Infinity;
  for (const t of targets) best = Math.max(best, scores[t]!);
  let higher = 0;
  const targetSet = new Set(targets);
  for (let i = 0; i < scores.length; i++) if (!targetSet.has(i) && scores[i]! >= best) higher++;
  return higher + 1;
}

function figures(ranks: number[]): RecallFigures {
  const at = (k: number) => (100 * ranks.filter((r) => r <= k).length) / ranks.length;
  return { r1: at(1), r5: at(5), r10: at(10), meanRank: ranks.reduce((s, r) => s + r, 0) / ranks.length, queries: ranks.length };
}

/** Probability that at least one of `relevant` items lands in the top k of `total` at random. */
function chanceAnyInTopK(total: number, relevant: number, k: number): number {
  if (k >= total) return 1;
  let missAll = 1;
  for (let i = 0; i < k; i++) missAll *= (total - relevant - i) / (total - i);
  return 1 - Math.max(0, missAll);
}

/**
 * Image-text retrieval over unit-length embeddings (CLIP zero-shot protocol): text-to-image ranks
 * each caption's image among all images; image-to-text ranks the best of an image's captions
 * among all captions. Recall in percent; chance figures are for a random ranking of the same set.
 */
export function imageTextRetrieval(images: EmbeddingMatrix, captions: EmbeddingMatrix, captionImage: readonly number[]): ImageTextRetrieval {
  const captionsOf: number[][] = Array.from({ length: images.rows }, () => []);
  captionImage.forEach((img, c) => captionsOf[img]!.push(c));

  const t2iRanks: number[] = [];
  const scores = new Float64Array(images.rows);
  for (let c = 0; c < captions.rows; c++) {
    for (let i = 0; i < images.rows; i++) scores[i] = dotRow(images, i, captions.data, c * captions.dim);
    t2iRanks.push(rankOf(scores, [captionImage[c]!]));
  }
  const i2tRanks: number[] = [];
  const captionScores = new Float64Array(captions.rows);
  for (let i = 0; i < images.rows; i++) {
    if (captionsOf[i]!.length === 0) continue;
    for (let c = 0; c < captions.rows; c++) captionScores[c] = dotRow(captions, c, images.data, i * images.dim);
    i2tRanks.push(rankOf(captionScores, captionsOf[i]!));
  }

  const n = images.rows;
  const m = captions.rows;
  const withCaptions = captionsOf.filter((c) => c.length > 0);
  const meanOver = (f: (c: number) => number) => withCaptions.reduce((s, c) => s + f(c.length), 0) / withCaptions.length;
  return {
    textToImage: figures(t2iRanks),
    imageToText: figures(i2tRanks),
    chance: {
      textToImage: { r1: 100 / n, r5: (100 * Math.min(5, n)) / n, r10: (100 * Math.min(10, n)) / n, meanRank: (n + 1) / 2, queries: m },
      imageToText: {
        r1: 100 * meanOver((c) => chanceAnyInTopK(m, c, 1)),
        r5: 100 * meanOver((c) => chanceAnyInTopK(m, c, 5)),
        r10: 100 * meanOver((c) => chanceAnyInTopK(m, c, 10)),
        // Expected minimum position of c relevant items among m shuffled ones.
        meanRank: meanOver((c) => (m + 1) / (c + 1)),
        queries: withCaptions.length,
      },
    },
  };
}
