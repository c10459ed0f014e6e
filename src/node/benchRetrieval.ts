import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { type CaptionSet, parseCaptionCsv, parseCocoCaptions } from '../engine/datasets/captionSets';
import { errorMessage } from '../engine/errors';
import { type RecallFigures, imageTextRetrieval } from '../engine/metrics/retrievalMetrics';
import { l2Normalize, stackRows } from '../engine/retrieval/vectors';
import { decodeImageFile } from './decodeImageFile';
import { loadWasmPack } from './poolFiles';

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function loadCaptionSet(path: string): CaptionSet {
  const text = readFileSync(path, 'utf8');
  return path.toLowerCase().endsWith('.csv') ? parseCaptionCsv(text, path) : parseCocoCaptions(JSON.parse(text) as unknown, path);
}

function progress(label: string, done: number, total: number): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${label} ${done}/${total}${done === total ? '\n' : ''}`);
}

const row = (name: string, f: RecallFigures) =>
  `${name.padEnd(22)} ${f.r1.toFixed(1).padStart(6)} ${f.r5.toFixed(1).padStart(6)} ${f.r10.toFixed(1).padStart(6)} ${f.meanRank.toFixed(1).padStart(9)} ${String(f.queries).padStart(8)}`;

/** Zero-shot image-text retrieval of a pack on any captioned image set (COCO JSON or image,caption CSV). */
export async function retrieval(args: string[]): Promise<void> {
  const packId = option(args, 'pack');
  const imagesDir = option(args, 'images');
  const captionsPath = option(args, 'captions');
  if (!packId || !imagesDir || !captionsPath) {
    console.error('Usage: npm run bench -- retrieval --pack ID --images DIR --captions captions.json|pairs.csv [--json out.json]');
    process.exit(2);
  }
  let set: CaptionSet;
  try {
    set = loadCaptionSet(captionsPath);
  } catch (error) {
    console.error(`Cannot read ${captionsPath}: ${errorMessage(error)}`);
    process.exit(1);
  }
  // A pack id names a folder under models/; a path (with a slash) names any pack folder.
  const { encoder } = await loadWasmPack(packId);

  const start = nowMs();
  const imageRows: Float32Array[] = [];
  const batch = 16;
  for (let i = 0; i < set.images.length; i += batch) {
    const pixels = set.images.slice(i, i + batch).map((img) => decodeImageFile(join(imagesDir, img.file)));
    for (const e of await encoder.encodeImages(pixels)) imageRows.push(l2Normalize(e));
    progress('images', imageRows.length, set.images.length);
  }
  const captions = set.images.flatMap((img, i) => img.captions.map((text) => ({ text, image: i })));
  const captionRows: Float32Array[] = [];
  for (let i = 0; i < captions.length; i += 64) {
    for (const e of await encoder.encodeTexts(captions.slice(i, i + 64).map((c) => c.text))) captionRows.push(l2Normalize(e));
    progress('captions', captionRows.length, captions.length);
  }
  const result = imageTextRetrieval(stackRows(imageRows), stackRows(captionRows), captions.map((c) => c.image));
  const seconds = (nowMs() - start) / 1000;

  console.log(`pack ${packId} · ${encoder.backend.provider} ${encoder.backend.dtypes.vision_model}/${encoder.backend.dtypes.text_model} · ${set.images.length} images, ${captions.length} captions · ${captionsPath} · encoded in ${seconds.toFixed(1)} s`);
  console.log(`${'direction'.padEnd(22)} ${'R@1'.padStart(6)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'mean rank'.padStart(9)} ${'queries'.padStart(8)}`);
  console.log(row('text → image', result.textToImage));
  console.log(row('  chance', result.chance.textToImage));
  console.log(row('image → text', result.imageToText));
  console.log(row('  chance', result.chance.imageToText));
  const jsonPath = option(args, 'json');
  if (jsonPath) writeFileSync(jsonPath, JSON.stringify({ pack: packId, captions: captionsPath, images: set.images.length, captionCount: captions.length, ...result }, null, 2));
  await encoder.release();
}
