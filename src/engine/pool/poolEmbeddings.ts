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
  /**
   * Whether any row is stored under a key prefix (one encoder's rows): on a first visit nothing is, and
   * the deferred rows are then computed without looking up the pool's 64k rows one by one first (about
   * 4 s of the worker on mini-clip, in 1,024-row steps of 56-700 ms).
   */
  holdsAny?(keyPrefix: string): Promise<boolean>;
}

/**
 * How the .bin holds the rows: 'f32' row-major floats (version 1 files), or 'int8': every row's int8
 * codes (row-major), then every row's float32 scale, a row being code * scale. int8 is a quarter of
 * the bytes that the offline install downloads; rows are unit vectors, so a code's step is at most
 * 1/127 of the row's largest value.
 */
export type PoolEmbeddingsEncoding = 'f32' | 'int8';

interface PoolEmbeddingsMeta {
  version: 1 | 2;
  encoding: PoolEmbeddingsEncoding;
  packId: string;
  packFingerprint: string;
  dim: number;
  /** Content keys of the rows, texts first, then images; the .bin file holds the rows in this order. Empty in a compact file. */
  textKeys: string[];
  imageKeys: string[];
  /**
   * A compact file lists no keys: its rows are those of one pool, in the pool's order, and this says
   * how many of each and the hash of all their keys (rowKeysHash); a pool whose keys hash otherwise uses none of them.
   */
  compact?: { texts: number; images: number; keysHash: string };
}

/** One hash of every row's content key, texts then images: what a compact file is checked against. */
export function rowKeysHash(textKeys: readonly string[], imageKeys: readonly string[]): string {
  return hashText(`${textKeys.join('\n')}\n\n${imageKeys.join('\n')}`);
}

/**
 * One hash of a pool's texts, in order, from their content keys: what a file made for the pool (the
 * stored contexts, the BM25 counts) is checked against. `contentKeys` spares hashing them again.
 */
export function poolTextsHash(texts: readonly string[], contentKeys?: readonly string[]): string {
  return rowKeysHash(contentKeys?.length === texts.length ? contentKeys : texts.map(textContentKey), []);
}

export interface PoolEmbeddingsFile {
  meta: PoolEmbeddingsMeta;
  /** (textKeys.length + imageKeys.length) x dim float32, row-major (int8 files decoded). */
  data: Float32Array;
  /** The file's bytes, as written to the .bin. */
  bytes: Uint8Array;
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
  /** Rows left to compute later (deferTexts, deferImages): completeDeferredRows fills them. */
  deferred: number;
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
  /**
   * Rows not computed yet (zero until completeDeferredRows fills them), in the order they will be:
   * most used first. They shrink as rows are filled.
   */
  pendingTexts: Set<number>;
  pendingImages: Set<number>;
  /**
   * The cache held no row of this encoder when the build began (EmbeddingCache.holdsAny), so the
   * deferred rows are computed without being looked up there first. Absent: they are looked up.
   */
  cacheHeldNone?: boolean;
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
  /**
   * Leave the rows that neither the file nor the cache has for later (completeDeferredRows): the pool
   * is usable at once by what reads no CLIP rows, clip-sim answers from the rows there so far, and
   * the methods that derive keys from every row wait for them. `order`: the rows most used first.
   */
  deferTexts?: boolean | DeferredRows;
  deferImages?: boolean | DeferredRows;
}

interface DeferredRows {
  /** Row indices in the order to compute them (most used first); rows not listed follow in pool order. */
  order?: readonly number[];
}

/** `rows` in the priority `order` gives, then the rest in their own order. */
function prioritised(rows: readonly number[], order: readonly number[] | undefined): number[] {
  if (!order || order.length === 0) return [...rows];
  const wanted = new Set(rows);
  const first = [...new Set(order)].filter((r) => wanted.has(r));
  const listed = new Set(first);
  return [...first, ...rows.filter((r) => !listed.has(r))];
}

/**
 * Fills the pool's text and image matrices: rows from the precomputed file when its fingerprint is
 * the encoder's, then from the cache, then computed in batches. Each computed batch goes to the cache
 * before the next starts, so an interrupted build (a reload) resumes where it stopped.
 */
export async function embedPool<T extends PoolTextItem, M extends PoolImageItem>(options: EmbedPoolOptions<T, M>): Promise<EmbeddedPool<T, M>> {
  const start = nowMs();
  const { encoder, texts, images, cache } = options;
  const stats: PoolBuildStats = { fromFile: 0, fromCache: 0, computed: 0, deferred: 0, ms: 0 };
  const pendingTexts = new Set<number>();
  const pendingImages = new Set<number>();
  const textKeys = texts.map((t) => textContentKey(t.text));
  const imageKeys = [...options.imageKeys];
  if (imageKeys.length !== images.length) throw new EngineError('invalid-input', 'embedPool: one content key per image is needed.');
  // Asked before this build writes any row (the first one computed to learn the dimension would count).
  const deferring = Boolean(options.deferTexts) || Boolean(options.deferImages);
  // A cache that cannot answer is looked up as before: the answer only saves work.
  const cacheHeldNone = deferring && cache?.holdsAny ? !(await cache.holdsAny(`${encoder.fingerprint}|`).catch(() => true)) : false;
  const fileRows = new Map<string, Float32Array>();
  const pre = options.precomputed;
  if (pre && pre.meta.packFingerprint === encoder.fingerprint) {
    const { dim, compact } = pre.meta;
    // A compact file holds this pool's rows in its order, or none of them.
    const keys = compact
      ? compact.keysHash === rowKeysHash(textKeys, imageKeys)
        ? [...textKeys, ...imageKeys]
        : []
      : [...pre.meta.textKeys, ...pre.meta.imageKeys];
    keys.forEach((key, row) => fileRows.set(key, pre.data.subarray(row * dim, (row + 1) * dim)));
  }

  const fill = async <I>(
    phase: PoolBuildProgress['phase'],
    items: readonly I[],
    keys: readonly string[],
    batchSize: number,
    encode: (batch: I[]) => Promise<Float32Array[]>,
    deferRows: boolean | DeferredRows | undefined,
    pending: Set<number>,
  ) => {
    const defer = deferRows !== undefined && deferRows !== false;
    const rows: (Float32Array | undefined)[] = keys.map((k) => fileRows.get(k));
    stats.fromFile += rows.filter(Boolean).length;
    const cacheKey = (k: string) => `${encoder.fingerprint}|${k}`;
    // Deferred rows are read from the cache later, by completeDeferredRows: looking up tens of
    // thousands of rows in IndexedDB here held Ready up by 5 to 7 s on mini-clip's 64k pool texts.
    if (cache && !defer) {
      const missing = keys.map((_, i) => i).filter((i) => !rows[i]);
      const cached = await cache.get(missing.map((i) => cacheKey(keys[i]!)));
      missing.forEach((i, j) => {
        if (cached[j]) {
          rows[i] = cached[j];
          stats.fromCache++;
        }
      });
    }
    let todo = keys.map((_, i) => i).filter((i) => !rows[i]);
    if (typeof deferRows === 'object') todo = prioritised(todo, deferRows.order);
    // Deferred: the rows are zero until filled, and only the first is computed now when no row tells the dimension.
    const deferFrom = defer ? (rows.some(Boolean) ? 0 : 1) : todo.length;
    for (const i of todo.slice(deferFrom)) pending.add(i);
    stats.deferred += todo.length - Math.min(deferFrom, todo.length);
    todo = todo.slice(0, deferFrom);
    let done = items.length - todo.length - pending.size;
    options.onProgress?.({ phase, done, total: items.length });
    for (let b = 0; b < todo.length; b += batchSize) {
      if (options.cancelled?.()) throw new EngineError('cancelled', 'Building the pool embeddings was cancelled.');
      const batch = todo.slice(b, b + batchSize);
      const embedded = (await encode(batch.map((i) => items[i]!))).map(l2Normalize);
      batch.forEach((i, j) => (rows[i] = embedded[j]));
      stats.computed += batch.length;
      await cache?.put(batch.map((i, j) => [cacheKey(keys[i]!), embedded[j]!] as const));
      done += batch.length;
      options.onProgress?.({ phase, done, total: items.length });
    }
    // Written once into the matrix that ranks (WebAssembly memory where SIMD runs), so rankers need no
    // copy. Pending rows stay as allocated, zero: an array each for 64k deferred texts cost Ready half a second.
    const dim = rows.find(Boolean)?.length ?? 0;
    const matrix = ScoreMatrix.allocate(rows.length, dim);
    rows.forEach((row, r) => {
      if (!row) {
        if (!pending.has(r)) throw new EngineError('invalid-input', `embedPool: row ${r} was neither filled nor deferred.`);
        return;
      }
      if (row.length !== dim) throw new EngineError('invalid-input', `Row ${r} has ${row.length} values, not ${dim} like the first.`);
      matrix.data.set(row, r * dim);
    });
    return matrix;
  };

  const textMatrix = await fill(
    'texts',
    texts,
    textKeys,
    options.batchSize ?? 32,
    (batch) => encoder.encodeTexts(batch.map((t) => t.text)),
    options.deferTexts,
    pendingTexts,
  );
  const imageMatrix = await fill(
    'images',
    images,
    imageKeys,
    options.imageBatchSize ?? 8,
    async (batch) => encoder.encodeImages(await Promise.all(batch.map(options.loadImage))),
    options.deferImages,
    pendingImages,
  );
  stats.ms = nowMs() - start;
  return { texts, images, textMatrix, imageMatrix, textKeys, imageKeys, stats, pendingTexts, pendingImages, ...(cacheHeldNone ? { cacheHeldNone } : {}) };
}

/**
 * How long a pack whose default method answers from the pool rows there so far (a downloaded CLIP:
 * clip-sim) embeds the most used rows before Ready; the rest follow in the background. `bench --
 * pool-rate` prints how many rows real CLIP's size gets done in it on WASM.
 */
export const POOL_STARTER_MS = 30_000;

/** How many deferred rows are still to compute, per modality. */
interface PendingRows {
  texts: number;
  images: number;
}

export interface CompleteRowsOptions<M extends PoolImageItem> {
  cache?: EmbeddingCache;
  /** Texts per run (64 by default). */
  textBatchSize?: number;
  /** Images per run (8 by default, as embedPool). */
  imageBatchSize?: number;
  /** The pixels of a pool image; needed when image rows are pending. */
  loadImage?: (item: M) => Promise<RgbaImage>;
  /** Awaited after each batch: where replies go first. */
  yieldControl?: () => Promise<void>;
  onProgress?: (left: PendingRows) => void;
  /** Checked between batches; work stops with an EngineError when it returns true. */
  cancelled?: () => boolean;
  /** Checked between batches; work stops (returns, rows left pending) when it returns true: a time budget. */
  stopWhen?: () => boolean;
}

/**
 * How many deferred rows completeDeferredRows looks up in the cache between two yields: 256 take the
 * worker 10-25 ms in Chromium (1,024 took 45-100 ms, and up to a second beside other work), so a turn
 * that arrives meanwhile waits little.
 */
const CACHE_READ_ROWS = 256;

/**
 * Computes the rows embedPool deferred, most used first: those in the cache are read from it first
 * (CACHE_READ_ROWS a step), the rest are computed in batches: each is written into the pool's
 * matrix (where the ranking kernels read it) and the cache, and leaves its pending set. Texts and
 * images take turns so that both advance at the same pace, as shares of what each had left. Control
 * goes back between batches through `yieldControl`, so replies are not held up. Stops with an
 * EngineError when cancelled, and returns early, rows left pending, when `stopWhen` says so.
 */
export async function completeDeferredRows<T extends PoolTextItem, M extends PoolImageItem>(
  pool: Pick<
    EmbeddedPool<T, M>,
    'texts' | 'images' | 'textMatrix' | 'imageMatrix' | 'textKeys' | 'imageKeys' | 'pendingTexts' | 'pendingImages' | 'cacheHeldNone'
  >,
  encoder: PoolEncoder,
  options: CompleteRowsOptions<M> = {},
): Promise<void> {
  const textTotal = Math.max(1, pool.pendingTexts.size);
  const imageTotal = Math.max(1, pool.pendingImages.size);
  if (pool.pendingImages.size > 0 && !options.loadImage)
    throw new EngineError('invalid-input', 'completeDeferredRows: image rows are pending and no loadImage was given.');
  const store = async (matrix: EmbeddingMatrix, pending: Set<number>, keys: readonly string[], batch: number[], embedded: Float32Array[]) => {
    batch.forEach((r, j) => {
      matrix.data.set(embedded[j]!, r * matrix.dim);
      pending.delete(r);
    });
    await options.cache?.put(batch.map((r, j) => [`${encoder.fingerprint}|${keys[r]!}`, embedded[j]!] as const));
  };
  // Pending rows not yet looked up in the cache (embedPool leaves that to here), read CACHE_READ_ROWS at a time before any is computed.
  const cache = pool.cacheHeldNone ? undefined : options.cache;
  const unread = { texts: new Set(cache ? pool.pendingTexts : []), images: new Set(cache ? pool.pendingImages : []) };
  const readCached = async (matrix: EmbeddingMatrix, pending: Set<number>, keys: readonly string[], unreadRows: Set<number>) => {
    const batch = [...take(unreadRows, CACHE_READ_ROWS)];
    for (const r of batch) unreadRows.delete(r);
    const found = await cache!.get(batch.map((r) => `${encoder.fingerprint}|${keys[r]!}`));
    batch.forEach((r, j) => {
      const row = found[j];
      if (row?.length === matrix.dim && pending.has(r)) {
        matrix.data.set(row, r * matrix.dim);
        pending.delete(r);
      }
    });
  };
  while (pool.pendingTexts.size + pool.pendingImages.size > 0) {
    if (options.cancelled?.()) throw new EngineError('cancelled', "Computing the pool's embeddings was cancelled.");
    if (options.stopWhen?.()) return;
    // Rows in the cache first, then the modality with the larger share still to do.
    if (unread.texts.size > 0) await readCached(pool.textMatrix, pool.pendingTexts, pool.textKeys, unread.texts);
    else if (unread.images.size > 0) await readCached(pool.imageMatrix, pool.pendingImages, pool.imageKeys, unread.images);
    else if (pool.pendingTexts.size / textTotal >= pool.pendingImages.size / imageTotal) {
      const batch = [...take(pool.pendingTexts, options.textBatchSize ?? 64)];
      const embedded = (await encoder.encodeTexts(batch.map((r) => pool.texts[r]!.text))).map(l2Normalize);
      await store(pool.textMatrix, pool.pendingTexts, pool.textKeys, batch, embedded);
    } else {
      const batch = [...take(pool.pendingImages, options.imageBatchSize ?? 8)];
      const pixels = await Promise.all(batch.map((r) => options.loadImage!(pool.images[r]!)));
      const embedded = (await encoder.encodeImages(pixels)).map(l2Normalize);
      await store(pool.imageMatrix, pool.pendingImages, pool.imageKeys, batch, embedded);
    }
    options.onProgress?.({ texts: pool.pendingTexts.size, images: pool.pendingImages.size });
    await options.yieldControl?.();
  }
}

/** The first n members of a set, in its order. */
function* take(set: ReadonlySet<number>, n: number): Generator<number> {
  if (n <= 0) return;
  let i = 0;
  for (const v of set) {
    yield v;
    if (++i >= n) return;
  }
}

/** Symmetric int8 codes of a row and its scale (row ≈ code * scale), as Int8Matrix stores rows. */
function quantizeRow(row: ArrayLike<number>, codes: Int8Array): number {
  let max = 0;
  for (let j = 0; j < row.length; j++) max = Math.max(max, Math.abs(row[j]!));
  const scale = Math.fround(max / 127);
  for (let j = 0; j < row.length; j++) codes[j] = scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(row[j]! / scale)));
  return scale;
}

/** Rows as a .bin of the given encoding, and the rows as a reader will decode them. */
export function encodeRows(data: Float32Array, rows: number, dim: number, encoding: PoolEmbeddingsEncoding): { bytes: Uint8Array; decoded: Float32Array } {
  if (encoding === 'f32') return { bytes: new Uint8Array(data.buffer, data.byteOffset, rows * dim * 4), decoded: data };
  const bytes = new Uint8Array(rows * dim + rows * 4);
  const codes = new Int8Array(bytes.buffer, 0, rows * dim);
  const scales = new Float32Array(bytes.buffer, rows * dim, rows);
  for (let r = 0; r < rows; r++) scales[r] = quantizeRow(data.subarray(r * dim, (r + 1) * dim), codes.subarray(r * dim, (r + 1) * dim));
  return { bytes, decoded: decodeRows(bytes, rows, dim, 'int8') };
}

/** The rows of a .bin as float32 (an int8 file: code * scale). */
/** The codes and per-row scales of an int8 .bin, as views where they lie aligned, else as one copy. */
export function int8Rows(bytes: Uint8Array, rows: number, dim: number): { codes: Int8Array; scales: Float32Array } {
  const codes = new Int8Array(bytes.buffer, bytes.byteOffset, rows * dim);
  const scaleBytes = bytes.subarray(rows * dim, rows * dim + rows * 4);
  const scales =
    scaleBytes.byteOffset % 4 === 0 ? new Float32Array(scaleBytes.buffer, scaleBytes.byteOffset, rows) : new Float32Array(new Uint8Array(scaleBytes).buffer);
  return { codes, scales };
}

function decodeRows(bytes: Uint8Array, rows: number, dim: number, encoding: PoolEmbeddingsEncoding): Float32Array {
  const data = new Float32Array(rows * dim);
  if (encoding === 'f32') {
    // Copy into an aligned buffer: a fetched or read buffer may start at any byte offset.
    new Uint8Array(data.buffer).set(bytes.subarray(0, rows * dim * 4));
    return data;
  }
  const codes = new Int8Array(bytes.buffer, bytes.byteOffset, rows * dim);
  const scales = new Float32Array(rows);
  new Uint8Array(scales.buffer).set(bytes.subarray(rows * dim, rows * dim + rows * 4));
  for (let r = 0; r < rows; r++) for (let j = 0; j < dim; j++) data[r * dim + j] = codes[r * dim + j]! * scales[r]!;
  return data;
}

/** Bytes a .bin of this encoding holds. */
function binBytes(rows: number, dim: number, encoding: PoolEmbeddingsEncoding): number {
  return encoding === 'f32' ? rows * dim * 4 : rows * dim + rows * 4;
}

/**
 * The .json half of a precomputed file and its .bin rows, from an embedded pool (int8 unless asked
 * otherwise). `compact` lists no keys, only their hash: for a file shipped with its one pool (the
 * conversational encoder's keys), where a row key each would cost more than the rows of a small vector.
 */
export function serializePoolEmbeddings(
  packId: string,
  fingerprint: string,
  pool: Pick<EmbeddedPool<PoolTextItem, PoolImageItem>, 'textMatrix' | 'imageMatrix' | 'textKeys' | 'imageKeys'>,
  encoding: PoolEmbeddingsEncoding = 'int8',
  options: { compact?: boolean } = {},
): PoolEmbeddingsFile {
  const dim = pool.textMatrix.dim || pool.imageMatrix.dim;
  const data = new Float32Array(pool.textMatrix.data.length + pool.imageMatrix.data.length);
  data.set(pool.textMatrix.data, 0);
  data.set(pool.imageMatrix.data, pool.textMatrix.data.length);
  const rows = pool.textKeys.length + pool.imageKeys.length;
  const { bytes, decoded } = encodeRows(data, rows, dim, encoding);
  const keys = options.compact
    ? {
        textKeys: [],
        imageKeys: [],
        compact: { texts: pool.textKeys.length, images: pool.imageKeys.length, keysHash: rowKeysHash(pool.textKeys, pool.imageKeys) },
      }
    : { textKeys: pool.textKeys, imageKeys: pool.imageKeys };
  return { meta: { version: 2, encoding, packId, packFingerprint: fingerprint, dim, ...keys }, data: decoded, bytes };
}

/** Checks a precomputed file against itself; a file that does not fit is reported, and the caller recomputes. */
export function parsePoolEmbeddings(metaJson: unknown, bytes: Uint8Array, location: string): PoolEmbeddingsFile {
  const bad = (what: string): never => {
    throw new EngineError('pack-file-corrupt', `${location}: ${what} Rebuild it with "npm run pool:build".`);
  };
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) bad('is not a pool embeddings description.');
  const m = metaJson as Record<string, unknown>;
  const isKeys = (v: unknown): v is string[] => Array.isArray(v) && v.every((k) => typeof k === 'string');
  if (m['version'] !== 1 && m['version'] !== 2) bad(`has version ${String(m['version'])}; this app reads versions 1 and 2.`);
  const encoding = m['version'] === 1 ? 'f32' : m['encoding'];
  if (encoding !== 'f32' && encoding !== 'int8') bad(`has encoding ${JSON.stringify(encoding)}; this app reads "f32" and "int8".`);
  if (typeof m['packId'] !== 'string' || typeof m['packFingerprint'] !== 'string') bad('lacks "packId" or "packFingerprint".');
  const dim = m['dim'];
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim <= 0 || dim > 4096) bad('has no valid "dim".');
  const compactJson = m['compact'] as Record<string, unknown> | undefined;
  const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const compact =
    compactJson === undefined
      ? undefined
      : count(compactJson['texts']) && count(compactJson['images']) && typeof compactJson['keysHash'] === 'string'
        ? { texts: compactJson['texts'] as number, images: compactJson['images'] as number, keysHash: compactJson['keysHash'] }
        : bad('has a "compact" that is not {"texts", "images", "keysHash"}.');
  if (!compact && (!isKeys(m['textKeys']) || !isKeys(m['imageKeys']))) bad('lacks "textKeys" or "imageKeys".');
  const meta: PoolEmbeddingsMeta = {
    version: m['version'] as 1 | 2,
    encoding: encoding as PoolEmbeddingsEncoding,
    packId: m['packId'] as string,
    packFingerprint: m['packFingerprint'] as string,
    dim: dim as number,
    textKeys: compact ? [] : [...(m['textKeys'] as string[])],
    imageKeys: compact ? [] : [...(m['imageKeys'] as string[])],
    ...(compact ? { compact } : {}),
  };
  const rows = compact ? compact.texts + compact.images : meta.textKeys.length + meta.imageKeys.length;
  const expected = binBytes(rows, meta.dim, meta.encoding);
  if (bytes.byteLength !== expected) bad(`holds ${bytes.byteLength} bytes, but ${rows} rows of ${meta.dim} (${meta.encoding}) need ${expected}.`);
  // Decoded when first read: a reader of the int8 codes themselves (the chat keys) never pays for it.
  let data: Float32Array | null = null;
  return {
    meta,
    get data() {
      return (data ??= decodeRows(bytes, rows, meta.dim, meta.encoding));
    },
    bytes,
  };
}
