import { nowMs } from '../clock';
import { EngineError } from '../errors';
import type { ChatEncoder } from '../response/chatEncoder';
import type { StoredContexts } from '../ranking/chatRanking';
import { Int8Matrix } from '../retrieval/int8Matrix';
import type { EmbeddingMatrix } from '../retrieval/vectors';
import {
  type EmbeddingCache,
  type PoolBuildProgress,
  type PoolBuildStats,
  type PoolEmbeddingsFile,
  embedPool,
  encodeRows,
  int8Rows,
  poolTextsHash,
  rowKeysHash,
  textContentKey,
} from './poolEmbeddings';

/**
 * The conversational encoder's side of a candidate pool: a key per text and per image (of its label),
 * kept like the pool's CLIP embeddings (a precomputed file, `npm run chat:keys`, then this browser's
 * cache, then computed), and the stored contexts of context match: the train contexts the pool's
 * human texts answered, each a query vector and the text that followed it.
 */

/** The fingerprint the keys are filed under: the encoder's, apart from CLIP fingerprints. */
export function chatKeysFingerprint(encoder: ChatEncoder): string {
  return `chat:${encoder.fingerprint}`;
}

/** An image's text for the conversational encoder: what its label says. */
export function imageKeyText(label: string): string {
  return label;
}

export interface ChatPoolKeys {
  textKeys: Int8Matrix;
  imageKeys: Int8Matrix;
  stats: PoolBuildStats;
}

/** Rows of an f32 matrix in an int8 matrix (ranked with the int8 kernel; no residual kept, see chat:keys for what it costs). */
function int8Of(matrix: EmbeddingMatrix): Int8Matrix {
  return Int8Matrix.fromFloat32(matrix.data, matrix.rows, matrix.dim, { refine: false });
}

/** Keys of the pool's texts and images' labels: from the precomputed file, the cache, or computed in batches. */
export async function embedChatKeys(options: {
  encoder: ChatEncoder;
  texts: readonly string[];
  imageLabels: readonly string[];
  precomputed?: PoolEmbeddingsFile | null;
  cache?: EmbeddingCache;
  onProgress?: (progress: PoolBuildProgress) => void;
  cancelled?: () => boolean;
  /** textContentKey of each of `texts`, when the caller has them already (the CLIP pool's): 65k hashes spared. */
  textContentKeys?: readonly string[];
}): Promise<ChatPoolKeys & { rows: EmbeddingMatrix }> {
  const { encoder } = options;
  const shipped = shippedChatKeys(options);
  if (shipped) return shipped;
  const items = [...options.texts, ...options.imageLabels.map(imageKeyText)].map((text, i) => ({ id: String(i), text }));
  const embedded = await embedPool({
    encoder: {
      fingerprint: chatKeysFingerprint(encoder),
      encodeTexts: async (texts) => {
        const m = await encoder.encodeResponses(texts);
        return texts.map((_, i) => m.data.slice(i * m.dim, (i + 1) * m.dim));
      },
      encodeImages: () => Promise.reject(new EngineError('invalid-input', 'The conversational encoder reads an image by its label.')),
    },
    texts: items,
    images: [],
    imageKeys: [],
    loadImage: () => Promise.reject(new EngineError('invalid-input', 'The conversational encoder reads no pixels.')),
    precomputed: options.precomputed ?? null,
    cache: options.cache,
    batchSize: 256,
    onProgress: options.onProgress,
    cancelled: options.cancelled,
  });
  const m = embedded.textMatrix;
  const n = options.texts.length;
  const part = (from: number, to: number): EmbeddingMatrix => ({ data: m.data.subarray(from * m.dim, to * m.dim), rows: to - from, dim: m.dim });
  return { textKeys: int8Of(part(0, n)), imageKeys: int8Of(part(n, m.rows)), stats: embedded.stats, rows: m };
}

/**
 * The keys straight from a shipped int8 file of exactly this pool (chat:keys writes one, compact):
 * its codes become the ranking matrices as they are, with no decoding and no re-quantizing, which took
 * the load half a second. Null when the file is not of this encoder and pool: embedPool then decides.
 */
function shippedChatKeys(options: Parameters<typeof embedChatKeys>[0]): (ChatPoolKeys & { rows: EmbeddingMatrix }) | null {
  const start = nowMs();
  const pre = options.precomputed;
  const total = options.texts.length + options.imageLabels.length;
  const compact = pre?.meta.compact;
  if (!pre || pre.meta.encoding !== 'int8' || pre.meta.packFingerprint !== chatKeysFingerprint(options.encoder) || !compact) return null;
  if (compact.images !== 0 || compact.texts !== total) return null;
  const textKeys = options.textContentKeys?.length === options.texts.length ? options.textContentKeys : options.texts.map(textContentKey);
  const keys = [...textKeys, ...options.imageLabels.map((label) => textContentKey(imageKeyText(label)))];
  if (compact.keysHash !== rowKeysHash(keys, [])) return null;
  const { dim } = pre.meta;
  const n = options.texts.length;
  const { codes, scales } = int8Rows(pre.bytes, total, dim);
  const matrix = (from: number, to: number) =>
    Int8Matrix.fromCodes(codes.subarray(from * dim, to * dim), scales.subarray(from, to), to - from, dim, { refine: false });
  return {
    textKeys: matrix(0, n),
    imageKeys: matrix(n, total),
    stats: { fromFile: total, fromCache: 0, computed: 0, deferred: 0, ms: nowMs() - start },
    // Decoded only for a reader of the f32 rows (chat:keys rewriting the file).
    get rows() {
      return { data: pre.data, rows: total, dim };
    },
  };
}

interface StoredContextsMeta {
  version: 3;
  encoderFingerprint: string;
  dim: number;
  contexts: number;
  /** The pool the responses are rows of: the hash of its texts' content keys (rowKeysHash). */
  poolTexts: string;
  /** Where they came from, for the benchmarks' header. */
  source: string;
}

export interface StoredContextsFile {
  meta: StoredContextsMeta;
  /**
   * int8 codes, then a float32 scale per context (poolEmbeddings' 'int8' encoding), then each context's
   * response row (int32), then the row of its latest turn (int32, -1 when that turn is not a pool text).
   */
  bytes: Uint8Array;
}

/** The file of `vectors` (one context a row) answered by the pool texts of `responseRows`, each said after the pool text of `latestRows` (or -1). */
export function serializeStoredContexts(
  encoder: ChatEncoder,
  vectors: Float32Array,
  responseRows: readonly number[],
  latestRows: readonly number[],
  poolTexts: readonly string[],
  source: string,
): StoredContextsFile {
  const dim = encoder.config.dim;
  const n = responseRows.length;
  if (latestRows.length !== n) throw new EngineError('invalid-input', `${n} stored contexts have ${latestRows.length} latest turns.`);
  const rows = encodeRows(vectors, n, dim, 'int8').bytes;
  const bytes = new Uint8Array(rows.byteLength + n * 8);
  bytes.set(rows);
  const view = new DataView(bytes.buffer);
  responseRows.forEach((r, i) => view.setInt32(rows.byteLength + 4 * i, r, true));
  latestRows.forEach((r, i) => view.setInt32(rows.byteLength + 4 * n + 4 * i, r, true));
  return { meta: { version: 3, encoderFingerprint: encoder.fingerprint, dim, contexts: n, poolTexts: poolTextsHash(poolTexts), source }, bytes };
}

export function parseStoredContexts(metaJson: unknown, bytes: Uint8Array, location: string): StoredContextsFile {
  const bad = (what: string): never => {
    throw new EngineError('pack-file-corrupt', `${location}: ${what} Rebuild it with "npm run chat:keys".`);
  };
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) bad('is not a stored-contexts description.');
  const m = metaJson as Record<string, unknown>;
  if (m['version'] !== 3) bad(`has version ${String(m['version'])}; this app reads version 3.`);
  const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const dim = m['dim'];
  if (!whole(dim) || (dim as number) === 0 || (dim as number) > 4096) bad('has no valid "dim".');
  if (!whole(m['contexts'])) bad('has no valid "contexts".');
  if (typeof m['encoderFingerprint'] !== 'string' || typeof m['poolTexts'] !== 'string') bad('lacks "encoderFingerprint" or "poolTexts".');
  const n = m['contexts'] as number;
  const expected = n * (dim as number) + n * 4 + n * 8;
  if (bytes.byteLength !== expected)
    bad(`holds ${bytes.byteLength} bytes, but ${n} contexts of ${String(dim)} (int8, with their responses and latest turns) need ${expected}.`);
  return {
    meta: {
      version: 3,
      encoderFingerprint: m['encoderFingerprint'] as string,
      dim: dim as number,
      contexts: n,
      poolTexts: m['poolTexts'] as string,
      source: typeof m['source'] === 'string' ? m['source'] : '',
    },
    bytes,
  };
}

/**
 * The stored contexts, when the file was made by this encoder for this pool (the same texts in the same
 * order); null otherwise: context match is then not offered until `npm run chat:keys` makes them again.
 */
export function resolveStoredContexts(
  file: StoredContextsFile,
  encoder: ChatEncoder,
  poolTexts: readonly string[],
  /** textContentKey of each pool text, when the caller has them already. */
  poolTextKeys?: readonly string[],
): StoredContexts | null {
  const { dim, contexts: n } = file.meta;
  if (file.meta.encoderFingerprint !== encoder.fingerprint || dim !== encoder.config.dim || file.meta.poolTexts !== poolTextsHash(poolTexts, poolTextKeys))
    return null;
  // The file's int8 codes are the matrix's as they are: decoding and re-quantizing 50k rows took a quarter of a second.
  const { codes, scales } = int8Rows(file.bytes, n, dim);
  const vectors = Int8Matrix.fromCodes(codes, scales, n, dim, { refine: false });
  const view = new DataView(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const responseRows = Int32Array.from({ length: n }, (_, i) => view.getInt32(n * dim + n * 4 + 4 * i, true));
  const latestRows = Int32Array.from({ length: n }, (_, i) => view.getInt32(n * dim + n * 8 + 4 * i, true));
  if (responseRows.some((r) => r < 0 || r >= poolTexts.length) || latestRows.some((r) => r < -1 || r >= poolTexts.length)) return null;
  return { vectors, responseRows, latestRows };
}
