import type { EmbeddingMatrix } from '../retrieval/vectors';
import { topKRows } from '../retrieval/scoreMatrix';

/**
 * Retrieval captioning: an uploaded image is described by the caption-bank sentence whose CLIP text
 * embedding is nearest to the image's. The bank is made from the pool's labels (what its images
 * show) through a few sentence templates, so any CLIP pack can caption without a captioning model.
 */
export interface CaptionSource {
  kind: string;
  label?: string;
  alt: string;
  keywords?: readonly string[];
}

function article(phrase: string): string {
  return /^(a|an|the|some)\s/i.test(phrase) ? phrase : `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** Sentences of the caption bank, deduplicated, in a stable order. */
export function captionBank(items: readonly CaptionSource[]): string[] {
  const bank = new Set<string>();
  for (const item of items) {
    const label = (item.label ?? item.alt).trim().replace(/\s+/g, ' ');
    if (!label || label.length > 120) continue;
    if (item.kind === 'photo') bank.add(`A photo of ${/^[A-Z]/.test(label) ? label : article(label)}.`);
    else if (item.kind === 'scene') bank.add(`${article(label).replace(/^./, (c) => c.toUpperCase())}.`);
    else bank.add(`A picture of ${article(label.toLowerCase())}.`);
    for (const word of item.keywords ?? []) if (/^[a-z]+$/.test(word) && word.length > 2) bank.add(`A photo of ${article(word)}.`);
  }
  return [...bank];
}

export interface Caption {
  text: string;
  /** CLIP cosine between the image and the caption. */
  score: number;
  alternatives: { text: string; score: number }[];
}

export function captionImage(imageEmbedding: Float32Array, bank: readonly string[], bankMatrix: EmbeddingMatrix, k = 3): Caption {
  const top = topKRows(bankMatrix, imageEmbedding, k);
  const best = top[0];
  return {
    text: best ? bank[best.index]! : 'A photo.',
    score: best?.score ?? 0,
    alternatives: top.slice(1).map((t) => ({ text: bank[t.index]!, score: t.score })),
  };
}
