import { writeFileSync } from 'node:fs';
import type { RgbaImage } from '../../engine/image/rgbaImage';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { PhotoAnalyzer } from '../../engine/perception/photoAnalyzer';
import { captionBank, captionImage } from '../../engine/response/captioner';
import { ScoreMatrix } from '../../engine/retrieval/scoreMatrix';
import { l2Normalize } from '../../engine/retrieval/vectors';
import { UsageError, listOption, parseCommandLine, requireOptions } from '../tools/cliArgs';
import { VARIANT_OPTIONS, VARIANT_USAGE, loadWasmPhotoAnalyzer, releasePhotoAnalyzer, variantChoice } from './benchAnalyzer';
import { type CaptionerScores, type PartName, captionScoresByPart, exampleImages, mapObject, partsJson } from './benchParts';
import { loadCaptionSet, progress } from './benchRetrieval';
import { cocoParts } from './cocoSplits';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { loadPoolCatalogue } from '../data/poolFiles';

export const CAPTION_USAGE = `npm run bench -- caption --pack ID --images DIR --captions captions.json|pairs.csv [--json out.json] [--captioners grounded,retrieval] [--pool public/pool] ${VARIANT_USAGE}`;

/**
 * The captioners a photo can be described with:
 * - grounded: what the app shows now, PhotoAnalyzer's description (detector + grounded caption);
 *   when nothing is confident its "I can't tell ..." sentence is scored, as the page shows it.
 * - retrieval: what the app showed before the detector (and shows without one), the nearest
 *   caption-bank sentence (the demo pool's labels, `captionBank`/`captionImage` as the reply
 *   session builds them) to the pack's image embedding of the pixels alone (PhotoAnalyzer without
 *   a detector).
 */
const CAPTIONERS = ['grounded', 'retrieval'] as const;
export type CaptionerId = (typeof CAPTIONERS)[number];

/** How many images the table's examples show. */
const EXAMPLES = 5;

const METEOR_NOTE =
  "METEOR~ is the open approximation (Banerjee & Lavie 2005 with exact and Porter-stem matching; the coco-caption jar's WordNet synonym and paraphrase stages are not run), so it is lower than, and not comparable with, published METEOR.";

export interface CaptionJsonDescription extends Record<string, unknown> {
  pack: string;
  imagesDir: string;
  captionsFile: string;
  captioners: CaptionerId[];
  /** The detector's fingerprint (grounded), or null. */
  detector: string | null;
  /** The caption bank the retrieval captioner chooses from, or null when it did not run. */
  captionBank: { pool: string; sentences: number } | null;
  scale: string;
  meteor: string;
  timing: string;
}

export interface CaptionJsonImage {
  file: string;
  references: string[];
  captions: Partial<Record<CaptionerId, string>>;
  /** Whether the grounded caption names what was found (false: "I can't tell ..."). */
  groundedConfident?: boolean;
}

/** `--json`: the description, then {all, train2017?, val2017?}: {grounded?, retrieval?}: CaptionerScores, then every image's captions. */
export function captionJson(
  description: CaptionJsonDescription,
  byPart: ReadonlyMap<PartName, ReadonlyMap<CaptionerId, CaptionerScores>>,
  images: CaptionJsonImage[],
) {
  const parts = new Map([...byPart].map(([name, scores]) => [name, mapObject(scores)] as const));
  return { ...partsJson(description, parts), images };
}

const pct = (x: number) => (100 * x).toFixed(1);
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
/** A mention rate with its counts; "-" when there was nothing to count. */
const rate = (value: number, right: number, of: number) => `${of === 0 ? '-' : pct(value)} (${right}/${of})`;

/** One part's table: one row per captioner. */
function printPart(name: PartName, scores: ReadonlyMap<CaptionerId, CaptionerScores>): void {
  const first = [...scores.values()][0]!;
  console.log(`\n${name}: ${count(first.images, 'image')}, ${count(first.references, 'human caption')} · scores x100`);
  console.log(
    `${'captioner'.padEnd(10)} ${['BLEU-1', 'BLEU-2', 'BLEU-3', 'BLEU-4', 'METEOR~', 'ROUGE-L', 'CIDEr-D'].map((h) => h.padStart(7)).join(' ')}  ${'mentions P (right/said)'.padEnd(24)} ${'mentions R (right/in refs)'.padEnd(27)} ${'ms/image mean, median'}`,
  );
  for (const [captioner, s] of scores) {
    const m = s.objectMentions;
    const metrics = [s.bleu1, s.bleu2, s.bleu3, s.bleu4, s.meteor, s.rougeL, s.ciderD].map((x) => pct(x).padStart(7)).join(' ');
    console.log(
      `${captioner.padEnd(10)} ${metrics}  ${rate(m.precision, m.matched, m.candidateMentions).padEnd(24)} ${rate(m.recall, m.matched, m.referenceMentions).padEnd(27)} ${s.msPerImage.mean.toFixed(1)}, ${s.msPerImage.median.toFixed(1)}`,
    );
  }
}

/**
 * npm run bench -- caption: captions every image of a captioned set with each captioner and scores
 * them against the human captions (BLEU-1..4, METEOR (open approximation), ROUGE-L, CIDEr-D, and
 * object-mention precision and recall over the 80 COCO classes), per part of the set.
 */
export async function captionBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string' },
      images: { type: 'string' },
      captions: { type: 'string' },
      json: { type: 'string' },
      captioners: { type: 'string', default: CAPTIONERS.join(',') },
      pool: { type: 'string', default: join('public', 'pool') },
      ...VARIANT_OPTIONS,
    },
    CAPTION_USAGE,
  );
  requireOptions(values, ['pack', 'images', 'captions'], CAPTION_USAGE);
  const { pack: packId, images: imagesDir, captions: captionsPath } = values as { pack: string; images: string; captions: string };
  if (values.json === '') throw new UsageError('--json needs a file name.', CAPTION_USAGE);
  const captioners = listOption(values.captioners, 'captioners', CAPTIONERS, CAPTION_USAGE);
  const set = loadCaptionSet(captionsPath);
  const parts = cocoParts(set);

  const loaded = await loadWasmPhotoAnalyzer(packId, { detector: captioners.includes('grounded'), variants: variantChoice(values, CAPTION_USAGE) });
  const { analyzer, encoder, detector } = loaded;
  console.log(
    `pack ${packId} · ${encoder.backend.provider} ${encoder.backend.dtypes.vision_model}/${encoder.backend.dtypes.text_model} · ${loaded.detectorNote}`,
  );
  if (captioners.includes('grounded') && !detector) {
    captioners.splice(captioners.indexOf('grounded'), 1);
    console.log('the grounded captioner needs the object detector, so it is left out');
    if (captioners.length === 0) throw new Error('No captioner can run: restore models/detector/ for "grounded", or add "retrieval" to --captioners.');
  }

  // The retrieval captioner's bank: the demo pool's labels, embedded by the pack once, as the reply session does.
  let bank: { sentences: string[]; matrix: ScoreMatrix } | null = null;
  if (captioners.includes('retrieval')) {
    const { media } = loadPoolCatalogue(values.pool);
    const sentences = captionBank(media.map((m) => ({ kind: m.kind, label: m.label ?? m.alt, alt: m.alt, keywords: m.keywords })));
    const rows: Float32Array[] = [];
    for (let i = 0; i < sentences.length; i += 128) rows.push(...(await encoder.encodeTexts(sentences.slice(i, i + 128))).map(l2Normalize));
    bank = { sentences, matrix: ScoreMatrix.fromRows(rows) };
    console.log(`caption bank: ${sentences.length} sentences from the labels of ${media.length} images of ${values.pool}`);
  }

  // The worker without a detector: the same analyzer path, then the nearest caption-bank sentence.
  const withoutDetector = new PhotoAnalyzer(encoder, null);
  /** One image's caption by one captioner, and the milliseconds it took. */
  const caption = async (captioner: CaptionerId, pixels: RgbaImage): Promise<{ text: string; ms: number; confident: boolean }> => {
    if (captioner === 'grounded') {
      const { photos, timings } = await analyzer.analyze([pixels]);
      const description = photos[0]!.description!;
      return { text: description.caption, ms: timings.detectMs + timings.captionMs, confident: description.confident };
    }
    const start = nowMs();
    const { photos } = await withoutDetector.analyze([pixels]);
    const text = captionImage(l2Normalize(photos[0]!.embedding), bank!.sentences, bank!.matrix).text;
    return { text, ms: nowMs() - start, confident: true };
  };

  const confident: boolean[] = [];
  const runs = new Map<CaptionerId, { captions: string[]; ms: number[]; confident?: boolean[] }>(
    captioners.map((c) => [c, { captions: [], ms: [], ...(c === 'grounded' ? { confident } : {}) }]),
  );
  for (const [i, image] of set.images.entries()) {
    const pixels = await decodeAnyImageFile(join(imagesDir, image.file));
    // The first image once more before it counts: the model sessions' first runs are slower.
    if (i === 0) for (const captioner of captioners) await caption(captioner, pixels);
    for (const captioner of captioners) {
      const run = runs.get(captioner)!;
      const result = await caption(captioner, pixels);
      run.captions.push(result.text);
      run.ms.push(result.ms);
      if (captioner === 'grounded') confident.push(result.confident);
    }
    progress('images', i + 1, set.images.length);
  }

  const byPart = captionScoresByPart(set, parts, runs);
  console.log(`${count(set.images.length, 'image')} · ${captionsPath} · each part is scored on its own`);
  if (runs.has('grounded')) {
    const confidentIn = [...byPart].map(([name, scores]) => `${name} ${scores.get('grounded')!.confidentImages}/${scores.get('grounded')!.images}`).join(', ');
    console.log(`grounded captions confident on: ${confidentIn} images; the others say "I can't tell what is in this photo." and are scored as such`);
  }
  for (const [name, scores] of byPart) printPart(name, scores);
  const timing = `ms/image: grounded = detection + caption (the image tower, which the grounded caption does not need, is not counted); retrieval = image tower + nearest of ${bank?.sentences.length ?? 0} bank sentences; decoding and one warm-up run on the first image are not counted. WASM, one thread.`;
  console.log(`\n${METEOR_NOTE}\n${timing}`);

  console.log(`\nexamples (${EXAMPLES} images spread over the set):`);
  for (const i of exampleImages(set.images.length, EXAMPLES)) {
    console.log(`  ${set.images[i]!.file}`);
    console.log(`    ${'human'.padEnd(10)} ${set.images[i]!.captions[0]}`);
    for (const [captioner, run] of runs) console.log(`    ${captioner.padEnd(10)} ${run.captions[i]}`);
  }

  if (values.json) {
    const description: CaptionJsonDescription = {
      pack: packId,
      imagesDir,
      captionsFile: captionsPath,
      captioners,
      detector: detector?.fingerprint ?? null,
      captionBank: bank ? { pool: values.pool, sentences: bank.sentences.length } : null,
      scale: 'coco-caption 0-1 (CIDEr-D 0-10); the printed table shows x100',
      meteor: METEOR_NOTE,
      timing,
    };
    const images = set.images.map((image, i): CaptionJsonImage => ({
      file: image.file,
      references: image.captions,
      captions: Object.fromEntries([...runs].map(([c, run]) => [c, run.captions[i]!])),
      ...(runs.has('grounded') ? { groundedConfident: confident[i]! } : {}),
    }));
    writeFileSync(values.json, `${JSON.stringify(captionJson(description, byPart, images), null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
  await releasePhotoAnalyzer(loaded);
}
