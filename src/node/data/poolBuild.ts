import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../engine/errors';
import { type PoolEmbeddingsFile, embedPool, imageContentKey, serializePoolEmbeddings } from '../../engine/pool/poolEmbeddings';
import { integerOption, parseCommandLine, requireOptions, runCommand } from '../tools/cliArgs';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from '../bench/benchAnalyzer';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';
import { writeCacheFiles } from '../tools/textEmbeddingCache';
import { ProgressLine } from '../tools/progressLine';

/**
 * npm run pool:build -- --pack <id> [--pool public/pool] [--full] [--batch 32] [--without-texts]
 * Embeds the candidate pool with a pack (Node, WASM, batched) and writes
 * <pool>/embeddings/<pack>.json + .bin, which the app loads instead of computing them in the browser.
 * Images go through the app's PhotoAnalyzer (the object detector of models/detector/ and the grounded
 * caption, fed to an image tower that takes them), and the file carries the analyzer's fingerprint,
 * the one the worker's pool encoder has, so the app uses the file exactly when it would compute the same rows.
 * Rows whose text or image did not change are kept from the previous file unless --full is given.
 * --without-texts writes the image rows alone: the default pack's file is built so, because the offline
 * install keeps it, and the page computes the text rows after Ready (its replies need none of them).
 */
const USAGE = 'npm run pool:build -- --pack ID [--pool public/pool] [--full] [--batch 32] [--without-texts]';

function progressBar(label: string, done: number, total: number, start: { ms: number; done: number }): string {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const seconds = (performance.now() - start.ms) / 1000;
  const rate = done > start.done && seconds > 0 ? `  ${((done - start.done) / seconds).toFixed(0)}/s` : '';
  return `${label.padEnd(7)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${rate}`;
}

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      pack: { type: 'string' },
      pool: { type: 'string', default: join('public', 'pool') },
      full: { type: 'boolean', default: false },
      batch: { type: 'string', default: '32' },
      'without-texts': { type: 'boolean', default: false },
    },
    USAGE,
  );
  requireOptions(values, ['pack'], USAGE);
  const packId = values.pack!;
  const poolDir = values.pool;
  const batchSize = integerOption(values.batch, 'batch', USAGE);
  const packDir = join('models', packId);
  if (!existsSync(join(packDir, 'config.json'))) throw new Error(`There is no pack at ${packDir}. Packs: see docs/models.md, "Model packs".`);

  const t0 = performance.now();
  const { texts, media } = loadPoolCatalogue(poolDir);
  const loaded = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const { analyzer, encoder } = loaded;
  const outBase = join(poolDir, 'embeddings', packId);
  let previous: PoolEmbeddingsFile | null = null;
  if (!values.full) {
    try {
      previous = readPoolEmbeddingsFile(poolDir, packId);
    } catch (error) {
      console.warn(`Ignoring the previous embeddings: ${errorMessage(error)}`);
    }
  }
  console.log(
    `pool ${poolDir}: ${texts.length} texts, ${media.length} images · pack ${packId} (${encoder.backend.provider}, ${encoder.backend.dtypes.text_model}/${encoder.backend.dtypes.vision_model}, fingerprint ${encoder.fingerprint}) · batch ${batchSize}`,
  );
  console.log(
    `${loaded.detectorNote} · image tower ${encoder.takesGrounding ? "takes grounding, so the file's fingerprint is that of the pack, detector and captioner together" : "takes no grounding, so the file's fingerprint is the pack's"}: ${analyzer.fingerprint}`,
  );
  if (encoder.takesGrounding && !loaded.detector)
    console.log('the image rows are embedded without grounding; an app that has the detector will not use them and will compute its own');
  if (previous && previous.meta.packFingerprint !== analyzer.fingerprint)
    console.log(`the previous file has another fingerprint (${previous.meta.packFingerprint}), so every row is computed again`);
  const phaseStart: Partial<Record<'texts' | 'images', { ms: number; done: number }>> = {};
  const progress = new ProgressLine();
  const pool = await embedPool({
    encoder: analyzer, // the worker's pool encoder: embedPool keeps the file's rows only for this fingerprint
    texts: values['without-texts'] ? [] : texts,
    images: media,
    imageKeys: media.map((m) => imageContentKey(m)),
    loadImage: (item) => decodeAnyImageFile(join(poolDir, item.file)),
    precomputed: previous,
    batchSize,
    imageBatchSize: batchSize,
    onProgress: ({ phase, done, total }) => {
      phaseStart[phase] ??= { ms: performance.now(), done }; // rows kept from the file do not count towards the rate
      progress.update(progressBar(phase, done, total, phaseStart[phase]), done, total, phase);
    },
  });
  progress.end();
  const file = serializePoolEmbeddings(packId, analyzer.fingerprint, pool);
  writeCacheFiles(outBase, file.bytes, file.meta);
  const totalS = (performance.now() - t0) / 1000;
  const { fromFile, computed } = pool.stats;
  console.log(
    `wrote ${outBase}.json/.bin: ${file.meta.textKeys.length + file.meta.imageKeys.length} rows of ${file.meta.dim}, ${file.meta.encoding} (${(file.bytes.byteLength / 1e6).toFixed(1)} MB)`,
  );
  console.log(
    `computed ${computed} rows, kept ${fromFile} from the previous file · embedding ${(pool.stats.ms / 1000).toFixed(1)} s · total ${totalS.toFixed(1)} s`,
  );
  await releasePhotoAnalyzer(loaded);
}

await runCommand('pool:build', main);
