import type { CaptionSet } from '../../engine/datasets/captionSets';
import { captionMetrics } from '../../engine/metrics/captionMetrics';
import { objectMentionScores } from '../../engine/metrics/objectMentions';
import { type ImageTextRetrieval, imageTextRetrieval } from '../../engine/metrics/retrievalMetrics';
import { stackRows } from '../../engine/retrieval/vectors';
import { median, percentile } from '../../engine/stats';
import type { CocoSplit } from './cocoSplits';

/**
 * The benchmarks' figures per part of a captioned set (all, and COCO's train2017 and val2017 when
 * the files have COCO names, from `cocoParts`). Each part is scored on its own: its images are
 * ranked among themselves, and its captions are scored against its own references (CIDEr-D's
 * document frequencies come from the part), as if the part were the whole set.
 */
export type PartName = 'all' | CocoSplit;

export interface SetPart {
  name: PartName;
  /** Indices into the set's images. */
  images: number[];
}

export interface PartRetrieval extends ImageTextRetrieval {
  images: number;
  captions: number;
}

/**
 * Image-text retrieval within each part. `imageRows` and `captionRows` are unit vectors of the whole
 * set; `captionImage[c]` is the set index of caption c's image.
 */
export function retrievalByPart(
  imageRows: readonly Float32Array[],
  captionRows: readonly Float32Array[],
  captionImage: readonly number[],
  parts: readonly SetPart[],
): Map<PartName, PartRetrieval> {
  const out = new Map<PartName, PartRetrieval>();
  for (const part of parts) {
    const local = new Map(part.images.map((image, i) => [image, i]));
    const captions = captionImage.flatMap((image, c) => (local.has(image) ? [c] : []));
    const result = imageTextRetrieval(
      stackRows(part.images.map((i) => imageRows[i]!)),
      stackRows(captions.map((c) => captionRows[c]!)),
      captions.map((c) => local.get(captionImage[c]!)!),
    );
    out.set(part.name, { images: part.images.length, captions: captions.length, ...result });
  }
  return out;
}

/** What one captioner wrote for every image of the set, and the milliseconds each took. */
export interface CaptionerRun {
  captions: readonly string[];
  ms: readonly number[];
  /** For a captioner that can say it cannot tell (grounded): whether each caption names what it found. */
  confident?: readonly boolean[];
}

export interface CaptionerScores {
  images: number;
  references: number;
  /** coco-caption's 0-1 scale (CIDEr-D 0-10); papers print these x100. */
  bleu1: number;
  bleu2: number;
  bleu3: number;
  bleu4: number;
  /** The open approximation (exact and Porter-stem matches only): see captionMetrics.ts. */
  meteor: number;
  rougeL: number;
  ciderD: number;
  objectMentions: { precision: number; recall: number; matched: number; candidateMentions: number; referenceMentions: number };
  msPerImage: { mean: number; median: number };
  /** Images whose caption names what was found, for a captioner that can say it cannot tell. */
  confidentImages?: number;
}

/** Every caption metric of each captioner on each part, each part scored on its own. */
export function captionScoresByPart<C extends string>(
  set: CaptionSet,
  parts: readonly SetPart[],
  runs: ReadonlyMap<C, CaptionerRun>,
): Map<PartName, Map<C, CaptionerScores>> {
  const out = new Map<PartName, Map<C, CaptionerScores>>();
  for (const part of parts) {
    const byCaptioner = new Map<C, CaptionerScores>();
    for (const [captioner, run] of runs) {
      const items = part.images.map((i) => ({ candidate: run.captions[i]!, references: set.images[i]!.captions }));
      const scores = captionMetrics(items);
      const mentions = objectMentionScores(items);
      const ms = part.images.map((i) => run.ms[i]!);
      byCaptioner.set(captioner, {
        images: items.length,
        references: items.reduce((n, item) => n + item.references.length, 0),
        bleu1: scores.bleu[0],
        bleu2: scores.bleu[1],
        bleu3: scores.bleu[2],
        bleu4: scores.bleu[3],
        meteor: scores.meteor,
        rougeL: scores.rougeL,
        ciderD: scores.ciderD,
        objectMentions: {
          precision: mentions.precision,
          recall: mentions.recall,
          matched: mentions.matched,
          candidateMentions: mentions.candidateMentions,
          referenceMentions: mentions.referenceMentions,
        },
        msPerImage: { mean: ms.reduce((s, x) => s + x, 0) / ms.length, median: median(ms) },
        ...(run.confident ? { confidentImages: part.images.filter((i) => run.confident![i]).length } : {}),
      });
    }
    out.set(part.name, byCaptioner);
  }
  return out;
}

/** `k` images spread evenly over `n` (the first, then every n/k-th), for printed examples. */
export function exampleImages(n: number, k: number): number[] {
  return [...new Set(Array.from({ length: Math.min(n, k) }, (_, i) => Math.floor((i * n) / Math.min(n, k))))];
}

/**
 * The JSON the benchmarks write: what was measured, then each part under its own name (all,
 * train2017, val2017), in that order. The part names never collide with the description's keys.
 */
export function partsJson<D extends Record<string, unknown>, V>(description: D, parts: ReadonlyMap<PartName, V>): D & Partial<Record<PartName, V>> {
  const out: Record<string, unknown> = { ...description };
  for (const [name, value] of parts) {
    if (name in description) throw new Error(`The JSON description has a key "${name}", which names a part.`);
    out[name] = value;
  }
  return out as D & Partial<Record<PartName, V>>;
}

/** A map as a plain object, in its order (captioners in the order asked for). */
export function mapObject<K extends string, V>(map: ReadonlyMap<K, V>): Record<K, V> {
  return Object.fromEntries(map) as Record<K, V>;
}

export interface PhotoTurnTiming {
  detectMs: number;
  captionMs: number;
  encodeMs: number;
  /** Intent and ranking over the pool (composeResponse). */
  composeMs: number;
  totalMs: number;
}

export interface PhotoTurnStats {
  turns: number;
  median: PhotoTurnTiming;
  p95: PhotoTurnTiming;
}

const PHOTO_TURN_STEPS = ['detectMs', 'captionMs', 'encodeMs', 'composeMs', 'totalMs'] as const;

/** Median and p95 of each step of a photo turn over many turns. */
export function photoTurnStats(turns: readonly PhotoTurnTiming[]): PhotoTurnStats {
  const of = (f: (values: number[]) => number) =>
    Object.fromEntries(PHOTO_TURN_STEPS.map((step) => [step, f(turns.map((t) => t[step]))])) as unknown as PhotoTurnTiming;
  return { turns: turns.length, median: of(median), p95: of((v) => percentile(v, 95)) };
}

/**
 * What detection and the grounded caption add to a photo turn: their own medians (measured inside
 * the turn) and the difference of the whole turn's medians with and without the detector.
 */
export function addedByDetection(
  withDetector: PhotoTurnStats,
  withoutDetector: PhotoTurnStats,
): { detectAndCaptionMedianMs: number; turnMedianMs: number; turnP95Ms: number } {
  return {
    detectAndCaptionMedianMs: withDetector.median.detectMs + withDetector.median.captionMs,
    turnMedianMs: withDetector.median.totalMs - withoutDetector.median.totalMs,
    turnP95Ms: withDetector.p95.totalMs - withoutDetector.p95.totalMs,
  };
}
