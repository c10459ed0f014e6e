import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaptionSet } from '../../engine/datasets/captionSets';

/** The part of COCO 2017 a photo comes from. The detector learnt from train2017, so only val2017 figures are fair to it. */
export type CocoSplit = 'train2017' | 'val2017';

let valIds: Set<number> | null = null;

/** The 5,000 image ids of COCO val2017 (src/node/data/coco2017-val-image-ids.txt, from the public val2017 list). */
function cocoVal2017Ids(): Set<number> {
  valIds ??= new Set(
    readFileSync(join(import.meta.dirname, '..', 'data', 'coco2017-val-image-ids.txt'), 'utf8')
      .split('\n')
      .filter((line) => /^\d+$/.test(line))
      .map(Number),
  );
  return valIds;
}

/** The COCO 2017 split of a file named as COCO names them (000000139.jpg), or null for any other name. */
function cocoSplitOf(file: string): CocoSplit | null {
  const match = /(?:^|\/)(\d{12})\.jpg$/i.exec(file);
  if (!match) return null;
  return cocoVal2017Ids().has(Number(match[1])) ? 'val2017' : 'train2017';
}

/**
 * The set as a whole ("all"), and, when every file has a COCO name, its train2017 and val2017 parts:
 * the benchmarks print each, since figures on train2017 photos flatter a detector trained on them.
 */
export function cocoParts(set: CaptionSet): { name: 'all' | CocoSplit; images: number[] }[] {
  const all = set.images.map((_, i) => i);
  const splits = set.images.map((img) => cocoSplitOf(img.file));
  if (splits.some((s) => s === null)) return [{ name: 'all', images: all }];
  const parts: { name: 'all' | CocoSplit; images: number[] }[] = [{ name: 'all', images: all }];
  for (const name of ['train2017', 'val2017'] as const) {
    const images = all.filter((i) => splits[i] === name);
    if (images.length > 0) parts.push({ name, images });
  }
  return parts;
}
