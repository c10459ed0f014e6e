import type { DialogueRecord } from '../datasets/mmdialog';

/**
 * The pool's rows most used first: how often each text and image is part of a response in the train
 * split (every turn after the first), ties and unused rows in pool order. What a freshly downloaded
 * pack embeds first, so its first replies come from what conversations say most.
 */
export function rowsByUse(train: readonly DialogueRecord[], texts: readonly string[], imageKeys: readonly string[]): { texts: number[]; images: number[] } {
  const textUses = new Map<string, number>();
  const imageUses = new Map<string, number>();
  for (const record of train) {
    for (const turn of record.turns.slice(1)) {
      for (const e of turn.elements) {
        if (e.kind === 'text') textUses.set(e.text, (textUses.get(e.text) ?? 0) + 1);
        else imageUses.set(e.key, (imageUses.get(e.key) ?? 0) + 1);
      }
    }
  }
  const byUse = (items: readonly string[], uses: ReadonlyMap<string, number>) =>
    items
      .map((item, row) => ({ row, uses: uses.get(item) ?? 0 }))
      .sort((a, b) => b.uses - a.uses || a.row - b.row)
      .map((r) => r.row);
  return { texts: byUse(texts, textUses), images: byUse(imageKeys, imageUses) };
}
