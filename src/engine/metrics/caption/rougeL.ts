import { type TokenizedCaptionItem, checkItems, mean } from './items';

const ROUGE_L_BETA = 1.2;

function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * ROUGE-L of one candidate (Lin 2004, sec. 3.1, eqs. 2-4) as coco-caption's Rouge computes it for
 * several references: P_i = LCS/|candidate| and R_i = LCS/|reference i|; P = max_i P_i and
 * R = max_i R_i, taken separately; F = (1 + b^2) P R / (R + b^2 P) with b = 1.2; 0 when P or R is 0.
 * coco-caption splits the tokenized caption on ' ', so an empty caption is one empty token; kept,
 * so an empty candidate against an empty reference scores 1 as there.
 */
export function rougeLOfImage(candidate: readonly string[], references: readonly (readonly string[])[]): number {
  const asSplit = (tokens: readonly string[]) => (tokens.length > 0 ? tokens : ['']);
  const c = asSplit(candidate);
  let precision = 0,
    recall = 0;
  for (const reference of references) {
    const r = asSplit(reference);
    const lcs = longestCommonSubsequence(r, c);
    precision = Math.max(precision, lcs / c.length);
    recall = Math.max(recall, lcs / r.length);
  }
  if (precision === 0 || recall === 0) return 0;
  const b2 = ROUGE_L_BETA ** 2;
  return ((1 + b2) * precision * recall) / (recall + b2 * precision);
}

/** Corpus ROUGE-L: the mean over images of `rougeLOfImage`, as coco-caption. */
export function rougeL(items: readonly TokenizedCaptionItem[]): { score: number; perImage: number[] } {
  checkItems(items);
  const perImage = items.map((item) => rougeLOfImage(item.candidate, item.references));
  return { score: mean(perImage), perImage };
}
