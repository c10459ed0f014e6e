import { nowMs } from '../clock';
import { EngineError } from '../errors';
import type { RgbaImage } from '../image/rgbaImage';
import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { type EmbeddingMatrix, l2Normalize } from '../retrieval/vectors';
import { hashText } from './contentHash';

/**
 * The candidate pool's embeddings: one L2-normalized row per text and per image, for the pack that
 * made them. Rows are found by content key, never by position, so a pool that gained, lost or
 * changed items reuses every row that is still right and computes only the rest; a different pack
 * (another fingerprint) reuses nothing.
 */

export interface PoolTextItem {
  readonly id: string;
  readonly text: string;
}

export interface PoolImageItem {
  readonly key: string;
  /** Content hash of the image file when the catalogue declares it (the demo pool does). */
  readonly sha256?: string;
}

export interface PoolEncoder {
  readonly fingerprint: string;
  encodeTexts(texts: readonly string[]): Promise<Float32Array[]>;
  encodeImages(images: readonly RgbaImage[]): Promise<Float32Array[]>;
}

/** Where rows computed earlier are kept between visits (IndexedDB in the browser). */
export interface EmbeddingCache {
  get(keys: readonly string[]): Promise<(Float32Array | undefined)[]>;
  put(entries: readonly (readonly [string, Float32Array])[]): Promise<void>;
}

export interface PoolEmbeddingsMeta {
  version: 1;
  packId: string;
  packFingerprint: string;
  dim: number;
  /** Content keys of the rows, texts first, then images; the .bin file holds the rows in this order. */
  textKeys: string[];
  imageKeys: string[];
}

export interface PoolEmbeddingsFile {
  meta: PoolEmbeddingsMeta;
  /** (textKeys.length + imageKeys.length) x dim float32, row-major. */
  data: Float32Array;
}

export interface PoolBuildProgress {
  phase: 'texts' | 'images';
  done: number;
  total: number;
}

export interface PoolBuildStats {
  fromFile: number;
  fromCache: number;
  computed: number;
  ms: number;
}

export interface EmbeddedPool<T extends PoolTextItem, M extends PoolImageItem> {
  texts: readonly T[];
  images: readonly M[];
  textMatrix: EmbeddingMatrix;
  imageMatrix: EmbeddingMatrix;
  textKeys: string[];
  imageKeys: string[];
  stats: PoolBuildStats;
}

export function textContentKey(text: string): string {
  return `t:${hashText(text)}`;
}

export function imageContentKey(item: PoolImageItem, fallbackHash?: string): string {
  if (item.sha256) return `i:${item.sha256.slice(0, 32)}`;
  if (fallbackHash) return `i:${fallbackHash}`;
  throw new EngineError('invalid-input', `Image "${item.key}" has no content hash; its embedding cannot be cached.`);
}

export interface EmbedPoolOptions<T extends PoolTextItem, M extends PoolImageItem> {
  encoder: PoolEncoder;
  texts: readonly T[];
  images: readonly M[];
  /** Content key of each image, in order (see imageContentKey). */
  imageKeys: readonly string[];
  loadImage: (item: M) => Promise<RgbaImage>;
  precomputed?: PoolEmbeddingsFile | null;
  cache?: EmbeddingCache;
  /** Texts per encoder run (32 by default). */
  batchSize?: number;
  /**
   * Images per run (8 by default): a ViT-B/32 on one WASM thread takes a few hundred ms per image, so
   * progress, cancellation and the per-batch cache write come every few seconds, and only a few
   * decoded photos and their pixels are held at once.
   */
  imageBatchSize?: number;
  onProgress?: (progress: PoolBuildProgress) => void;
  /** Checked between batches; work stops with an EngineError when it returns true. */
  cancelled?: () => boolean;
}

/**
 * Fills the pool's text and image matrices: rows from the precomputed file when its fingerprint is
 * the encoder's, then from the cache, then computed in batches. Each computed batch goes to the cache
 * before the next starts, so an interrupted build (a reload) resumes where it stopped.
 */
export async function embedPool<T extends PoolTextItem, M extends PoolImageItem>(options: EmbedPoolOptions<T, M>): Promise<EmbeddedPool<T, M>> {
  const start = nowMs();
  const { encoder, texts, images, cache } = options;
  const fileRows = new Map<string, Float32Array>();
  const pre = options.precomputed;
  if (pre && pre.meta.packFingerprint === encoder.fingerprint) {
    const { dim } = pre.meta;
    [...pre.meta.textKeys, ...pre.meta.imageKeys].forEach((key, row) => fileRows.set(key, pre.data.subarray(row * dim, (row + 1) * dim)));
  }
  const stats: PoolBuildStats = { fromFile: 0, fromCache: 0, computed: 0, ms: 0 };
  const textKeys = texts.map((t) => textContentKey(t.text));
  const imageKeys = [...options.imageKeys];
  if (imageKeys.length !== images.length) throw new EngineError('invalid-input', 'embedPool: one content key per image is needed.');

  const fill = async <I>(phase: PoolBuildProgress['phase'], items: readonly I[], keys: readonly string[], batchSize: number, encode: (batch: I[]) => Promise<Float32Array[]>) => {
    const rows: (Float32Array | undefined)[] = keys.map((k) => fileRows.get(k));
    stats.fromFile += rows.filter(Boolean).length;
    const cacheKey = (k: string) => `${encoder.fingerprint}|${k}`;
    if (cache) {
      const missing = keys.map((_, i) => i).filter((i) => !rows[i]);
      const cached = await cache.get(missing.map((i) => cacheKey(keys[i]!)));
      missing.forEach((i, j) => {
        if (cached[j]) {
          rows[i] = cached[j];
          stats.fromCache++;
        }
      });
    }
    const todo = keys.map((_, i) => i).filter((i) => !rows[i]);
    let done = items.length - todo.length;
    options.onProgress?.({ phase, done, total: items.length });
    for (let b = 0; b < todo.length; b += batchSize) {
      if (options.cancelled?.()) throw new EngineError('invalid-input', 'Building the pool embeddings was cancelled.');
      const batch = todo.slice(b, b + batchSize);
      const embedded = (await encode(batch.map((i) => items[i]!))).map(l2Normalize);
      batch.forEach((i, j) => (rows[i] = embedded[j]));
      stats.computed += batch.length;
      await cache?.put(batch.map((i, j) => [cacheKey(keys[i]!), embedded[j]!] as const));
      done += batch.length;
      options.onProgress?.({ phase, done, total: items.length });
    }
    // Written once into the matrix that ranks (WebAssembly memory where SIMD runs), so rankers need no copy.
    return ScoreMatrix.fromRows(rows as Float32Array[]);
  };

  const textMatrix = await fill('texts', texts, textKeys, options.batchSize ?? 32, (batch) => encoder.encodeTexts(batch.map((t) => t.text)));
  const imageMatrix = await fill('images', images, imageKeys, options.imageBatchSize ?? 8, async (batch) => encoder.encodeImages(await Promise.all(batch.map(options.loadImage))));
  stats.ms = nowMs() - start;
  return { texts, images, textMatrix, imageMatrix, textKeys, imageKeys, stats };
}

/** The .json half of a precomputed file and its .bin rows, from an embedded pool. */
export function serializePoolEmbeddings(packId: string, fingerprint: string, pool: EmbeddedPool<PoolTextItem, PoolImageItem>): PoolEmbeddingsFile {
  const dim = pool.textMatrix.dim || pool.imageMatrix.dim;
  const data = new Float32Array(pool.textMatrix.data.length + pool.imageMatrix.data.length);
  data.set(pool.textMatrix.data, 0);
  data.set(pool.imageMatrix.data, pool.textMatrix.data.length);
  return { meta: { version: 1, packId, packFingerprint: fingerprint, dim, textKeys: pool.textKeys, imageKeys: pool.imageKeys }, data };
}

/** Checks a precomputed file against itself; a file that does not fit is reported, and the caller recomputes. */
export function parsePoolEmbeddings(metaJson: unknown, bytes: Uint8Array, location: string): PoolEmbeddingsFile {
  const bad = (what: string): never => {
    throw new EngineError('pack-file-corrupt', `${location}: ${what} Rebuild it with "npm run pool:build".`);
  };
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) bad('is not a pool embeddings description.');
  const m = metaJson as Record<string, unknown>;
  const isKeys = (v: unknown): v is string[] => Array.isArray(v) && v.every((k) => typeof k === 'string');
  if (m['version'] !== 1) bad(`has version ${String(m['version'])}; this app reads version 1.`);
  if (typeof m['packId'] !== 'string' || typeof m['packFingerprint'] !== 'string') bad('lacks "packId" or "packFingerprint".');
  const dim = m['dim'];
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim <= 0 || dim > 4096) bad('has no valid "dim".');
  if (!isKeys(m['textKeys']) || !isKeys(m['imageKeys'])) bad('lacks "textKeys" or "imageKeys".');
  const meta: PoolEmbeddingsMeta = {
    version: 1,
    packId: m['packId'] as string,
    packFingerprint: m['packFingerprint'] as string,
    dim: dim as number,
    textKeys: [...(m['textKeys'] as string[])],
    imageKeys: [...(m['imageKeys'] as string[])],
  };
  const rows = meta.textKeys.length + meta.imageKeys.length;
  if (bytes.byteLength !== rows * meta.dim * 4) bad(`holds ${bytes.byteLength} bytes, but ${rows} rows of ${meta.dim} float32 need ${rows * meta.dim * 4}.`);
  // Copy into an aligned buffer: a fetched or read buffer may start at any byte offset.
  const data = new Float32Array(rows * meta.dim);
  new Uint8Array(data.buffer).set(bytes);
  return { meta, data };
}
