import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { errorMessage } from '../../engine/errors';
import { type PoolEmbeddingsFile, embedPool, parsePoolEmbeddings } from '../../engine/pool/poolEmbeddings';

export const SELECT_CACHE_DIR = join('models', '.cache', 'select');

/**
 * Writes <base>.bin and <base>.json beside the old ones, then renames both: a reader never finds a
 * .json that does not describe its .bin.
 */
export function writeCacheFiles(base: string, bin: Uint8Array, meta: unknown): void {
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(`${base}.bin.tmp`, bin);
  writeFileSync(`${base}.json.tmp`, `${JSON.stringify(meta)}\n`);
  renameSync(`${base}.bin.tmp`, `${base}.bin`);
  renameSync(`${base}.json.tmp`, `${base}.json`);
}

export interface CachedTextEmbeddings {
  /** The unit embedding of a text that was asked for; an error for any other. */
  embedding: (text: string) => Float32Array;
  dim: number;
  computed: number;
  fromCache: number;
}

/**
 * Unit text embeddings of many texts (a benchmark's ~100,000 utterances), kept between runs in
 * <dir>/embeddings-<pack fingerprint>.json + .bin, the pool embeddings format: rows keyed by the
 * hash of their text, so a rerun encodes only texts it has not seen, and another version of the pack
 * (another fingerprint) starts a file of its own. Texts are encoded in batches, with progress.
 */
export async function cachedTextEmbeddings(
  encoder: ClipEncoder,
  packId: string,
  texts: Iterable<string>,
  options: { dir?: string; batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<CachedTextEmbeddings> {
  const dir = options.dir ?? SELECT_CACHE_DIR;
  const base = join(dir, `embeddings-${encoder.fingerprint}`);
  let previous: PoolEmbeddingsFile | null = null;
  if (existsSync(`${base}.json`) && existsSync(`${base}.bin`)) {
    try {
      previous = parsePoolEmbeddings(JSON.parse(readFileSync(`${base}.json`, 'utf8')), new Uint8Array(readFileSync(`${base}.bin`)), `${base}.json`);
    } catch (error) {
      console.warn(`Ignoring the embedding cache (it will be rebuilt): ${errorMessage(error)}`);
    }
    if (previous && previous.meta.packFingerprint !== encoder.fingerprint) previous = null;
  }
  const unique = [...new Set(texts)];
  const pool = await embedPool({
    encoder,
    texts: unique.map((text, i) => ({ id: String(i), text })),
    images: [],
    imageKeys: [],
    loadImage: () => Promise.reject(new Error('no images here')),
    precomputed: previous,
    batchSize: options.batchSize ?? 64,
    onProgress: ({ phase, done, total }) => {
      if (phase === 'texts') options.onProgress?.(done, total);
    },
  });
  const { dim } = pool.textMatrix;
  if (pool.stats.computed > 0) {
    // The file keeps every row it had and gains the new ones.
    const keys = [...(previous?.meta.textKeys ?? [])];
    const known = new Set(keys);
    const added: number[] = [];
    pool.textKeys.forEach((key, row) => {
      if (!known.has(key)) {
        known.add(key);
        keys.push(key);
        added.push(row);
      }
    });
    const data = new Float32Array(keys.length * dim);
    if (previous) data.set(previous.data);
    added.forEach((row, i) => data.set(pool.textMatrix.data.subarray(row * dim, (row + 1) * dim), ((previous?.meta.textKeys.length ?? 0) + i) * dim));
    writeCacheFiles(base, new Uint8Array(data.buffer), {
      version: 1,
      encoding: 'f32',
      packId,
      packFingerprint: encoder.fingerprint,
      dim,
      textKeys: keys,
      imageKeys: [],
    });
  }
  const rows = new Map(unique.map((text, i) => [text, pool.textMatrix.data.subarray(i * dim, (i + 1) * dim)] as const));
  return {
    embedding: (text) => {
      const row = rows.get(text);
      if (!row) throw new Error(`No embedding was computed for ${JSON.stringify(text.slice(0, 60))}.`);
      return row;
    },
    dim,
    computed: pool.stats.computed,
    fromCache: pool.stats.fromFile,
  };
}
