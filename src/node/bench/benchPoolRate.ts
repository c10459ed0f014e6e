import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { integerOption, parseCommandLine } from '../tools/cliArgs';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { loadPoolCatalogue, loadWasmPack } from '../data/poolFiles';
import { parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { POOL_STARTER_MS, type PoolEncoder, completeDeferredRows, embedPool } from '../../engine/pool/poolEmbeddings';
import { rowsByUse } from '../../engine/pool/rowsByUse';
import type { RgbaImage } from '../../engine/image/rgbaImage';

export const POOL_RATE_USAGE =
  'npm run bench -- pool-rate [--dir models/.cache/vitb32-shape] [--batches 4]   (after /usr/bin/python3 models/scripts/make_vitb32_shape.py)';

/**
 * How long embedding the whole demo pool takes for a ViT-B/32-sized pack on WASM (one thread, fp32),
 * what a freshly downloaded real CLIP meets when there are no precomputed rows. The real weights are
 * out of reach, so it times towers of ViT-B/32's widths with fewer layers (make_vitb32_shape.py) on the
 * pool's own texts (batches of 32) and images (batches of 8, embedPool's defaults), and scales by
 * real layers / layers. The real q8 files (MatMulInteger) are likely faster than fp32.
 *
 * Then what the page does with those rates: the worker's own schedule (embedPool deferring every row,
 * most used first, and completeDeferredRows for POOL_STARTER_MS before Ready) run on a clock that
 * advances by the measured time per row, so it says how many rows a downloaded pack has at Ready and
 * how much of the train split's replies they cover.
 */
export async function poolRateBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    { dir: { type: 'string', default: join('models', '.cache', 'vitb32-shape') }, batches: { type: 'string', default: '4' } },
    POOL_RATE_USAGE,
  );
  const dir = values.dir;
  if (!existsSync(join(dir, 'shape.json'))) throw new Error(`${dir}/shape.json is missing: run /usr/bin/python3 models/scripts/make_vitb32_shape.py first.`);
  const shape = JSON.parse(readFileSync(join(dir, 'shape.json'), 'utf8')) as { layers: number; realLayers: { text: number; vision: number } };
  const batches = integerOption(values.batches, 'batches', POOL_RATE_USAGE);
  const { encoder } = await loadWasmPack(dir);
  const poolDir = join('public', 'pool');
  const { texts, media } = loadPoolCatalogue(poolDir);
  const images = await Promise.all(media.slice(0, batches * 8).map((m) => decodeAnyImageFile(join(poolDir, m.file))));
  await encoder.encodeTexts(texts.slice(0, 4).map((t) => t.text)); // warm-up
  let start = nowMs();
  for (let b = 0; b < batches; b++) await encoder.encodeTexts(texts.slice(b * 32, (b + 1) * 32).map((t) => t.text));
  const textMs = ((nowMs() - start) / (batches * 32)) * (shape.realLayers.text / shape.layers);
  await encoder.encodeImages(images.slice(0, 1));
  start = nowMs();
  for (let b = 0; b < batches; b++) await encoder.encodeImages(images.slice(b * 8, (b + 1) * 8));
  const imageMs = ((nowMs() - start) / images.length) * (shape.realLayers.vision / shape.layers);
  console.log(
    `ViT-B/32-sized towers (${shape.layers} of ${shape.realLayers.text}/${shape.realLayers.vision} layers, scaled) · WASM fp32, 1 thread · ${batches * 32} texts, ${images.length} images timed · load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  console.log(`text  ${textMs.toFixed(0)} ms/row x ${texts.length} = ${min(textMs * texts.length)}`);
  console.log(`image ${imageMs.toFixed(0)} ms/row x ${media.length} = ${min(imageMs * media.length)}`);
  console.log(`whole demo pool ≈ ${min(textMs * texts.length + imageMs * media.length)} (cached per batch, so a reload resumes)`);
  await starterFigures(
    texts.map((t) => t.text),
    media.map((m) => m.key),
    textMs,
    imageMs,
  );
}

/** The page's schedule for a downloaded pack, on a clock that runs at the measured rates. */
async function starterFigures(texts: string[], imageKeys: string[], textMs: number, imageMs: number): Promise<void> {
  const train = parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', 'train', 'conversations.json'))), {
    file: 'dialogues/train/conversations.json',
  });
  const byUse = rowsByUse(train, texts, imageKeys);
  let clockMs = 0;
  const timed: PoolEncoder = {
    fingerprint: 'rates',
    encodeTexts: async (batch) => ((clockMs += textMs * batch.length), batch.map(() => new Float32Array([1, 0]))),
    encodeImages: async (batch) => ((clockMs += imageMs * batch.length), batch.map(() => new Float32Array([0, 1]))),
  };
  const noPixels: RgbaImage = { width: 1, height: 1, data: new Uint8ClampedArray(4) };
  const pool = await embedPool({
    encoder: timed,
    texts: texts.map((text, i) => ({ id: String(i), text })),
    images: imageKeys.map((key) => ({ key })),
    imageKeys: imageKeys.map((key) => `i:${key}`),
    loadImage: async () => noPixels,
    deferTexts: { order: byUse.texts },
    deferImages: { order: byUse.images },
  });
  await completeDeferredRows(pool, timed, { textBatchSize: 64, loadImage: async () => noPixels, stopWhen: () => clockMs >= POOL_STARTER_MS });
  const readyMs = clockMs;
  const textsReady = texts.length - pool.pendingTexts.size;
  const imagesReady = imageKeys.length - pool.pendingImages.size;
  const textRow = new Map(texts.map((t, r) => [t, r]));
  const imageRow = new Map(imageKeys.map((k, r) => [k, r]));
  /** The share of a split's reply elements whose row is there at Ready. */
  const covered = (split: string) => {
    const uses = { text: [0, 0], image: [0, 0] };
    const records = parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', split, 'conversations.json'))), {
      file: `dialogues/${split}/conversations.json`,
    });
    for (const record of records) {
      for (const turn of record.turns.slice(1)) {
        for (const e of turn.elements) {
          const [row, pending, count] =
            e.kind === 'text' ? [textRow.get(e.text), pool.pendingTexts, uses.text] : [imageRow.get(e.key), pool.pendingImages, uses.image];
          count[1]!++;
          if (row !== undefined && !pending.has(row)) count[0]!++;
        }
      }
    }
    const pct = ([a, b]: number[]) => `${((100 * a!) / Math.max(1, b!)).toFixed(1)}%`;
    return `${pct(uses.text)} of the ${split} split's reply texts and ${pct(uses.image)} of its reply images`;
  };
  console.log(
    `a downloaded pack before Ready (POOL_STARTER_MS ${POOL_STARTER_MS / 1000} s, most used in train first): ${textsReady.toLocaleString('en-US')} texts and ${imagesReady} images in ${(readyMs / 1000).toFixed(1)} s;`,
  );
  // Valid and test replies are not in the pool (their texts are never pooled), so only train's are counted.
  console.log(`  their rows are those of ${covered('train')} (the order came from it); clip-sim answers from them at once`);
  await completeDeferredRows(pool, timed, { textBatchSize: 64, loadImage: async () => noPixels });
  console.log(
    `  the rest in the background: all ${texts.length.toLocaleString('en-US')} texts and ${imageKeys.length.toLocaleString('en-US')} images after ${min(clockMs)} of worker time (idle time only: a turn goes first)`,
  );
}

function min(ms: number): string {
  return `${(ms / 60_000).toFixed(1)} min`;
}
