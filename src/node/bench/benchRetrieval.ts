import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import type { CaptionSet } from '../../engine/datasets/captionSets';
import { CAPTION_FORMATS, readAnyDatasetFile } from '../../engine/datasets/datasetFormats';
import { errorMessage } from '../../engine/errors';
import type { RecallFigures } from '../../engine/metrics/retrievalMetrics';
import { l2Normalize } from '../../engine/retrieval/vectors';
import { UsageError, parseCommandLine, requireOptions } from '../tools/cliArgs';
import { VARIANT_OPTIONS, VARIANT_USAGE, loadWasmPhotoAnalyzer, releasePhotoAnalyzer, variantChoice } from './benchAnalyzer';
import { type PartRetrieval, partsJson, retrievalByPart } from './benchParts';
import { cocoParts } from './cocoSplits';
import { decodeImageFile } from '../tools/decodeImageFile';
import { ProgressLine } from '../tools/progressLine';

export const RETRIEVAL_USAGE = `npm run bench -- retrieval --pack ID --images DIR --captions captions.json|pairs.csv [--json out.json] ${VARIANT_USAGE}`;

/** A captioned set from COCO captions JSON or an image,caption CSV; a file that cannot be read is a sentence, not a stack. */
export function loadCaptionSet(path: string): CaptionSet {
  try {
    const text = readFileSync(path, 'utf8');
    return readAnyDatasetFile(text, path, CAPTION_FORMATS, 'the captioned-set benchmarks').data;
  } catch (error) {
    throw new Error(`Cannot read the captions ${path}: ${errorMessage(error)}`);
  }
}

const progressLine = new ProgressLine();

export function progress(label: string, done: number, total: number): void {
  progressLine.update(`${label} ${done}/${total}`, done, total, label);
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const row = (part: string, name: string, f: RecallFigures) =>
  `${part.padEnd(10)} ${name.padEnd(14)} ${f.r1.toFixed(1).padStart(6)} ${f.r5.toFixed(1).padStart(6)} ${f.r10.toFixed(1).padStart(6)} ${f.meanRank.toFixed(1).padStart(9)} ${String(f.queries).padStart(8)}`;

/**
 * Zero-shot image-text retrieval of a pack on any captioned image set (COCO JSON or image,caption
 * CSV). Images go through the app's PhotoAnalyzer (detector, grounded caption, image tower fed that
 * evidence when it takes it), so the figures are those of the embeddings the app computes. Each part
 * of the set (all; COCO's train2017 and val2017 when the files have COCO names) is ranked within itself.
 */
export async function retrieval(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    { pack: { type: 'string' }, images: { type: 'string' }, captions: { type: 'string' }, json: { type: 'string' }, ...VARIANT_OPTIONS },
    RETRIEVAL_USAGE,
  );
  requireOptions(values, ['pack', 'images', 'captions'], RETRIEVAL_USAGE);
  const { pack: packId, images: imagesDir, captions: captionsPath } = values as { pack: string; images: string; captions: string };
  if (values.json === '') throw new UsageError('--json needs a file name.', RETRIEVAL_USAGE);
  const set = loadCaptionSet(captionsPath);
  const parts = cocoParts(set);

  // A pack id names a folder under models/; a path (with a slash) names any pack folder.
  const loaded = await loadWasmPhotoAnalyzer(packId, { variants: variantChoice(values, RETRIEVAL_USAGE) });
  const { analyzer, encoder } = loaded;
  console.log(
    `pack ${packId} · ${encoder.backend.provider} ${encoder.backend.dtypes.vision_model}/${encoder.backend.dtypes.text_model} · image tower ${encoder.takesGrounding ? 'takes' : 'does not take'} grounding · ${loaded.detectorNote}`,
  );

  const start = nowMs();
  const timings = { detectMs: 0, captionMs: 0, encodeMs: 0 };
  const imageRows: Float32Array[] = [];
  const batch = 16;
  for (let i = 0; i < set.images.length; i += batch) {
    const pixels = set.images.slice(i, i + batch).map((img) => decodeImageFile(join(imagesDir, img.file)));
    const analyzed = await analyzer.analyze(pixels);
    for (const photo of analyzed.photos) imageRows.push(l2Normalize(photo.embedding));
    for (const key of ['detectMs', 'captionMs', 'encodeMs'] as const) timings[key] += analyzed.timings[key];
    progress('images', imageRows.length, set.images.length);
  }
  const captions = set.images.flatMap((img, i) => img.captions.map((text) => ({ text, image: i })));
  const captionRows: Float32Array[] = [];
  for (let i = 0; i < captions.length; i += 64) {
    for (const e of await analyzer.encodeTexts(captions.slice(i, i + 64).map((c) => c.text))) captionRows.push(l2Normalize(e));
    progress('captions', captionRows.length, captions.length);
  }
  const byPart = retrievalByPart(
    imageRows,
    captionRows,
    captions.map((c) => c.image),
    parts,
  );
  const seconds = (nowMs() - start) / 1000;

  const per = (ms: number) => (ms / Math.max(1, set.images.length)).toFixed(1);
  console.log(
    `${set.images.length} images, ${captions.length} captions · ${captionsPath} · encoded in ${seconds.toFixed(1)} s (per image: detection ${per(timings.detectMs)} ms, grounded caption ${per(timings.captionMs)} ms, image tower ${per(timings.encodeMs)} ms)`,
  );
  console.log(`each part is ranked within itself · Recall in %`);
  console.log(
    `${'part'.padEnd(10)} ${'direction'.padEnd(14)} ${'R@1'.padStart(6)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'mean rank'.padStart(9)} ${'queries'.padStart(8)}`,
  );
  for (const [name, result] of byPart) {
    console.log(`${name.padEnd(10)} (${count(result.images, 'image')}, ${count(result.captions, 'caption')})`);
    console.log(row('', 'text → image', result.textToImage));
    console.log(row('', '  chance', result.chance.textToImage));
    console.log(row('', 'image → text', result.imageToText));
    console.log(row('', '  chance', result.chance.imageToText));
  }
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify(retrievalJson({ pack: packId, imagesDir, captionsFile: captionsPath, imageTowerTakesGrounding: encoder.takesGrounding, detector: loaded.detector?.fingerprint ?? null, analyzerFingerprint: analyzer.fingerprint }, byPart), null, 2)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
  await releasePhotoAnalyzer(loaded);
}

export interface RetrievalJsonDescription extends Record<string, unknown> {
  pack: string;
  imagesDir: string;
  captionsFile: string;
  imageTowerTakesGrounding: boolean;
  /** The detector's fingerprint, or null when photos were embedded without it. */
  detector: string | null;
  analyzerFingerprint: string;
}

/** `--json`: the description, then {all, train2017?, val2017?}: {images, captions, textToImage, imageToText, chance}. */
export function retrievalJson(description: RetrievalJsonDescription, byPart: ReadonlyMap<'all' | 'train2017' | 'val2017', PartRetrieval>) {
  return partsJson(description, byPart);
}
