import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CaptionThresholds, DEFAULT_CAPTION_THRESHOLDS, groundedCaption } from '../../engine/detection/groundedCaption';
import type { DetectionResult } from '../../engine/detection/types';
import { objectMentionScores } from '../../engine/metrics/objectMentions';
import { UsageError, parseCommandLine, requireOptions } from '../tools/cliArgs';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { loadCaptionSet, progress } from './benchRetrieval';
import { decodeAnyImageFile } from '../tools/decodeImageFile';

export const CAPTION_THRESHOLDS_USAGE =
  'npm run bench -- caption-thresholds --pack ID --images DIR --captions FILE [--json out.json]   (choose on our own held-out photos only)';

/** The grid swept: hedge bar (0.5 = never hedge), confirm rank (0 = never confirm), veto rank (81 = never veto). */
const HEDGE_SCORES = [0.3, 0.35, 0.4, 0.45, 0.5] as const;
const CONFIRM_RANKS = [0, 1, 2, 3, 5] as const;
const VETO_RANKS = [6, 11, 21, 41, 81] as const;
/** Support for a detection under the hedge bar (0 = none). */
const SUPPORT_RANKS = [0, 1, 2, 3, 5] as const;
/** The bar a choice must keep: the mention precision of 80. */
const MIN_PRECISION = 0.8;

/** One photo as the sweep needs it: the caption the detector alone is sure of, or what the vote works on. */
export interface SweptPhoto {
  references: string[];
  /** The detector's confident caption, which no threshold here changes; null when it is not confident. */
  confidentCaption: string | null;
  detections: DetectionResult;
  zeroShotRanks: ReadonlyMap<string, number> | null;
}

export interface SweepRow extends CaptionThresholds {
  precision: number;
  recall: number;
  matched: number;
  said: number;
  inReferences: number;
  hedged: number;
  /** Captions the vote made confident, and how many of those name an object the references name. */
  confirmed: number;
  confirmedRight: number;
}

/** Mention precision and recall of every grid point, hedged captions counting as said. Pure: the unit test runs it on hand-made photos. */
export function sweepThresholds(photos: readonly SweptPhoto[]): SweepRow[] {
  const rows: SweepRow[] = [];
  for (const hedgeScore of HEDGE_SCORES) {
    for (const confirmRank of CONFIRM_RANKS) {
      for (const vetoRank of VETO_RANKS) {
        for (const supportRank of SUPPORT_RANKS) {
          // Support hedges what lies under the hedge bar: nothing does under 0.3, and a 0.5 bar hedges nothing.
          if ((hedgeScore === 0.3 || hedgeScore === 0.5) && supportRank > 0) continue;
          const thresholds = { hedgeScore, confirmRank, vetoRank, supportRank };
          let hedged = 0;
          const confirmedAt: number[] = [];
          const items = photos.map((p, i) => {
            if (p.confidentCaption !== null) return { candidate: p.confidentCaption, references: p.references };
            const caption = groundedCaption(p.detections, { thresholds, ...(p.zeroShotRanks ? { zeroShotRanks: p.zeroShotRanks } : {}) });
            if (caption.hedged) hedged++;
            if (caption.confident) confirmedAt.push(i);
            return { candidate: caption.text, references: p.references };
          });
          const m = objectMentionScores(items);
          const confirmedRight = confirmedAt.filter((i) => m.perImage[i]!.matched.length > 0).length;
          rows.push({
            ...thresholds,
            precision: m.precision,
            recall: m.recall,
            matched: m.matched,
            said: m.candidateMentions,
            inReferences: m.referenceMentions,
            hedged,
            confirmed: confirmedAt.length,
            confirmedRight,
          });
        }
      }
    }
  }
  return rows;
}

/** Of two points that score the same, the one that changes the detector's caption less. */
function intervenesLess(a: CaptionThresholds, b: CaptionThresholds): boolean {
  if (a.supportRank !== b.supportRank) return a.supportRank < b.supportRank;
  if (a.hedgeScore !== b.hedgeScore) return a.hedgeScore > b.hedgeScore;
  if (a.vetoRank !== b.vetoRank) return a.vetoRank > b.vetoRank;
  return a.confirmRank < b.confirmRank;
}

/** The most recall at MIN_PRECISION or more (ties: more precision, then the point that intervenes less); null when no point keeps the bar. */
export function chooseThresholds(rows: readonly SweepRow[]): SweepRow | null {
  let best: SweepRow | null = null;
  for (const row of rows) {
    if (row.precision < MIN_PRECISION) continue;
    const better =
      !best ||
      row.recall > best.recall ||
      (row.recall === best.recall && (row.precision > best.precision || (row.precision === best.precision && intervenesLess(row, best))));
    if (better) best = row;
  }
  return best;
}

const pct = (x: number) => (100 * x).toFixed(1);
const sameThresholds = (a: CaptionThresholds, b: CaptionThresholds) =>
  a.hedgeScore === b.hedgeScore && a.confirmRank === b.confirmRank && a.vetoRank === b.vetoRank && a.supportRank === b.supportRank;

/**
 * npm run bench -- caption-thresholds: how the caption's hedge bar and the image tower's zero-shot
 * vote (confirm and veto ranks) trade mention precision for recall on a captioned photo set. The
 * detector and the tower run once per photo through the app's PhotoAnalyzer; the grid is then swept
 * on their outputs. Run it on our own held-out photos only: coco-mini is evaluation-only.
 */
export async function captionThresholdsBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    { pack: { type: 'string' }, images: { type: 'string' }, captions: { type: 'string' }, json: { type: 'string' } },
    CAPTION_THRESHOLDS_USAGE,
  );
  requireOptions(values, ['pack', 'images', 'captions'], CAPTION_THRESHOLDS_USAGE);
  if (values.json === '') throw new UsageError('--json needs a file name.', CAPTION_THRESHOLDS_USAGE);
  const set = loadCaptionSet(values.captions!);
  const loaded = await loadWasmPhotoAnalyzer(values.pack!, { detector: true });
  if (!loaded.detector) throw new Error(`The sweep needs the object detector: ${loaded.detectorNote}.`);
  const photos: SweptPhoto[] = [];
  for (const [i, image] of set.images.entries()) {
    const {
      photos: [photo],
    } = await loaded.analyzer.analyze([await decodeAnyImageFile(join(values.images!, image.file))]);
    const description = photo!.description!;
    const confidentByDetector = description.confident && !description.confirmedByVote;
    photos.push({
      references: image.captions,
      confidentCaption: confidentByDetector ? description.caption : null,
      detections: description.detections,
      zeroShotRanks: photo!.zeroShotRanks,
    });
    progress('photos', i + 1, set.images.length);
  }
  await releasePhotoAnalyzer(loaded);

  const rows = sweepThresholds(photos);
  const chosen = chooseThresholds(rows);
  const off = rows.find((r) => r.hedgeScore === 0.5 && r.confirmRank === 0 && r.vetoRank === 81 && r.supportRank === 0)!;
  const inUse = rows.find((r) => sameThresholds(r, DEFAULT_CAPTION_THRESHOLDS));
  console.log(
    `${photos.length} photos · ${values.captions} · ${photos.filter((p) => p.confidentCaption !== null).length} confident by the detector alone; mentions P / R x100, hedged captions count as said`,
  );
  console.log(
    `${'hedge'.padStart(5)} ${'confirm'.padStart(7)} ${'veto'.padStart(4)} ${'support'.padStart(7)}  ${'P'.padStart(5)} ${'R'.padStart(5)}  said  hedged  confirmed (right)`,
  );
  const line = (r: SweepRow, note = '') =>
    `${r.hedgeScore.toFixed(2).padStart(5)} ${String(r.confirmRank || 'off').padStart(7)} ${String(r.vetoRank === 81 ? 'off' : r.vetoRank).padStart(4)} ${String(r.supportRank || 'off').padStart(7)}  ${pct(r.precision).padStart(5)} ${pct(r.recall).padStart(5)}  ${String(r.said).padStart(4)}  ${String(r.hedged).padStart(6)}  ${String(r.confirmed).padStart(9)} (${r.confirmedRight})${note}`;
  // The frontier: each recall's best precision, so the table stays short.
  const frontier = [...rows]
    .sort((a, b) => b.recall - a.recall || b.precision - a.precision)
    .filter((r, i, all) => all.findIndex((o) => o.precision >= r.precision && o.recall >= r.recall) === i);
  for (const r of frontier) console.log(line(r, r === chosen ? '  <- chosen' : ''));
  console.log(`\nwithout hedging or the vote: ${line(off)}`);
  if (inUse) console.log(`the app's thresholds now:    ${line(inUse)}`);
  if (!chosen) console.log(`no grid point keeps mention precision at ${pct(MIN_PRECISION)} or more`);
  else if (!inUse || !sameThresholds(chosen, inUse))
    console.log(
      `the chosen point differs from the app's thresholds: set HEDGE_SCORE ${chosen.hedgeScore}, CONFIRM_RANK ${chosen.confirmRank}, VETO_RANK ${chosen.vetoRank}, SUPPORT_RANK ${chosen.supportRank} in groundedCaption.ts`,
    );
  else console.log('the app uses the chosen point');
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ pack: values.pack, images: values.images, captions: values.captions, minPrecision: MIN_PRECISION, chosen, inUse: inUse ?? null, rows }, null, 2)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
}
