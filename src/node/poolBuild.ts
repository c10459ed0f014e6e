import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../engine/errors';
import { type PoolEmbeddingsFile, embedPool, imageContentKey, serializePoolEmbeddings } from '../engine/pool/poolEmbeddings';
import { decodeAnyImageFile } from './decodeImageFile';
import { loadPoolCatalogue, loadWasmPack, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run pool:build -- --pack <id> [--pool public/pool] [--full] [--batch 32]
 * Embeds the candidate pool with a pack (Node, WASM, batched) and writes
 * <pool>/embeddings/<pack>.json + .bin, which the app loads instead of computing them in the browser.
 * Rows whose text or image did not change are kept from the previous file unless --full is given.
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};

function progressBar(label: string, done: number, total: number, start: { ms: number; done: number }): void {
  if (!process.stderr.isTTY && done !== total && done % 256 !== 0) return;
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const seconds = (performance.now() - start.ms) / 1000;
  const rate = done > start.done && seconds > 0 ? `  ${((done - start.done) / seconds).toFixed(0)}/s` : '';
  const line = `${label.padEnd(7)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${rate}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}${done === total ? '\n' : ''}` : `${line}\n`);
}

async function main(): Promise<void> {
  const packId = option('pack', '');
  if (!packId) throw new Error('Say which pack: npm run pool:build -- --pack mini-clip');
  const poolDir = option('pool', join('public', 'pool'));
  const batchSize = Number(option('batch', '32'));
  const packDir = join('models', packId);
  if (!existsSync(join(packDir, 'config.json'))) throw new Error(`There is no pack at ${packDir}. Packs: see README, "Model packs".`);

  const t0 = performance.now();
  const { texts, media } = loadPoolCatalogue(poolDir);
  const { encoder } = await loadWasmPack(packId);
  const outBase = join(poolDir, 'embeddings', packId);
  let previous: PoolEmbeddingsFile | null = null;
  if (!args.includes('--full')) {
    try {
      previous = readPoolEmbeddingsFile(poolDir, packId);
    } catch (error) {
      console.warn(`Ignoring the previous embeddings: ${errorMessage(error)}`);
    }
  }
  console.log(`pool ${poolDir}: ${texts.length} texts, ${media.length} images · pack ${packId} (${encoder.backend.provider}, ${encoder.backend.dtypes.text_model}/${encoder.backend.dtypes.vision_model}, fingerprint ${encoder.fingerprint}) · batch ${batchSize}`);
  const phaseStart: Partial<Record<'texts' | 'images', { ms: number; done: number }>> = {};
  const pool = await embedPool({
    encoder,
    texts,
    images: media,
    imageKeys: media.map((m) => imageContentKey(m)),
    loadImage: (item) => decodeAnyImageFile(join(poolDir, item.file)),
    precomputed: previous,
    batchSize,
    onProgress: ({ phase, done, total }) => {
      phaseStart[phase] ??= { ms: performance.now(), done }; // rows kept from the file do not count towards the rate
      progressBar(phase, done, total, phaseStart[phase]);
    },
  });
  const file = serializePoolEmbeddings(packId, encoder.fingerprint, pool);
  mkdirSync(join(poolDir, 'embeddings'), { recursive: true });
  // Write both halves beside the old ones, then rename: a reader never sees a .json that does not match its .bin.
  writeFileSync(`${outBase}.bin.tmp`, new Uint8Array(file.data.buffer));
  writeFileSync(`${outBase}.json.tmp`, `${JSON.stringify(file.meta)}\n`);
  renameSync(`${outBase}.bin.tmp`, `${outBase}.bin`);
  renameSync(`${outBase}.json.tmp`, `${outBase}.json`);
  const totalS = (performance.now() - t0) / 1000;
  const { fromFile, computed } = pool.stats;
  console.log(`wrote ${outBase}.json/.bin: ${file.meta.textKeys.length + file.meta.imageKeys.length} rows of ${file.meta.dim} (${(file.data.byteLength / 1e6).toFixed(1)} MB)`);
  console.log(`computed ${computed} rows, kept ${fromFile} from the previous file · embedding ${(pool.stats.ms / 1000).toFixed(1)} s · total ${totalS.toFixed(1)} s`);
  await encoder.release();
}

main().catch((error: unknown) => {
  console.error(`pool:build failed: ${errorMessage(error)}`);
  process.exit(1);
});
