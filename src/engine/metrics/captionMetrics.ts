import { bleu } from './caption/bleu';
import { ciderD } from './caption/ciderD';
import type { CaptionItem } from './caption/items';
import { meteor } from './caption/meteor';
import { rougeL } from './caption/rougeL';
import { tokenizeCaptionItems } from './caption/tokenize';

/**
 * The COCO caption metrics (Chen et al. 2015, "Microsoft COCO Captions: Data Collection and
 * Evaluation Server", and its code, coco-caption / pycocoevalcap) for a set of images, each with
 * one candidate caption and one or more human references: BLEU-1..4, ROUGE-L and CIDEr-D as
 * coco-caption computes them, and METEOR as Banerjee & Lavie (2005) define it (the jar coco-caption
 * runs needs Java, WordNet and paraphrase tables; see `meteor`).
 * Every score is on coco-caption's 0-1 scale (CIDEr-D 0-10). Each metric has its file in caption/.
 */

export interface CaptionScores {
  /** BLEU-1, -2, -3, -4. */
  bleu: [number, number, number, number];
  rougeL: number;
  meteor: number;
  ciderD: number;
}

export type { CaptionItem } from './caption/items';
export { tokenizeCaption, tokenizeCaptionItems } from './caption/tokenize';
export { bleu } from './caption/bleu';
export { rougeL, rougeLOfImage } from './caption/rougeL';
export { ciderD } from './caption/ciderD';
export { countChunks, meteor, meteorAlignment, meteorOfImage, porterStem } from './caption/meteor';

/** Every caption metric for a corpus of raw captions, tokenized once with `tokenizeCaption`. */
export function captionMetrics(items: readonly CaptionItem[]): CaptionScores {
  const tokenized = tokenizeCaptionItems(items);
  return {
    bleu: bleu(tokenized).bleu,
    rougeL: rougeL(tokenized).score,
    meteor: meteor(tokenized).score,
    ciderD: ciderD(tokenized).score,
  };
}
