import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { integerOption, parseCommandLine } from './cliArgs';
import { decodeAnyImageFile } from './decodeImageFile';
import { loadPoolCatalogue, loadWasmPack } from './poolFiles';

export const POOL_RATE_USAGE = 'npm run bench -- pool-rate [--dir models/.cache/vitb32-shape] [--batches 4]   (after /usr/bin/python3 models/scripts/make_vitb32_shape.py)';

/**
 * How long embedding the whole demo pool takes for a ViT-B/32-sized pack on WASM (one thread, fp32),
 * what a freshly downloaded real CLIP meets when there are no precomputed rows. The real weights are
 * out of reach, so it times towers of ViT-B/32's widths with fewer layers (make_vitb32_shape.py) on the
 * pool's own texts (batches of 32) and images (batches of 8, embedPool's defaults), and scales by
 * real layers / layers. The real q8 files (MatMulInteger) are likely faster than fp32.
 */
export async function poolRateBench(args: string[]): Promise<void> {
  const values = parseCommandLine(args, { dir: { type: 'string', default: join('models', '.cache', 'vitb32-shape') }, batches: { type: 'string', default: '4' } }, POOL_RATE_USAGE);
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
  const min = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
  console.log(`ViT-B/32-sized towers (${shape.layers} of ${shape.realLayers.text}/${shape.realLayers.vision} layers, scaled) · WASM fp32, 1 thread · ${batches * 32} texts, ${images.length} images timed · load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
  console.log(`text  ${textMs.toFixed(0)} ms/row x ${texts.length} = ${min(textMs * texts.length)}`);
  console.log(`image ${imageMs.toFixed(0)} ms/row x ${media.length} = ${min(imageMs * media.length)}`);
  console.log(`whole demo pool ≈ ${min(textMs * texts.length + imageMs * media.length)} (cached per batch, so a reload resumes)`);
}
