import { EngineError } from '../../errors';

/** One image's candidate caption and its human references. */
export interface CaptionItem {
  candidate: string;
  references: string[];
}

/** A caption item after `tokenizeCaption`; tokens never contain whitespace. */
export interface TokenizedCaptionItem {
  candidate: string[];
  references: string[][];
}

export function checkItems(items: readonly TokenizedCaptionItem[]): void {
  if (items.length === 0)
    throw new EngineError('invalid-input', 'There are no captions to score. Pass at least one image with a candidate caption and its references.');
  items.forEach((item, i) => {
    if (item.references.length === 0)
      throw new EngineError('invalid-input', `Image ${i} has no reference captions. Every image needs at least one to be scored against.`);
  });
}

/** Counts of every n-gram of order 1..maxOrder; index k holds order k+1, keys are the tokens joined by spaces. */
export function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, number>[] {
  const counts: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const ofOrder = new Map<string, number>();
    for (let i = 0; i + n <= tokens.length; i++) {
      const gram = tokens.slice(i, i + n).join(' ');
      ofOrder.set(gram, (ofOrder.get(gram) ?? 0) + 1);
    }
    counts.push(ofOrder);
  }
  return counts;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}
