import type { ResponseHeads } from '../response/heads';
import type { EmbeddingMatrix } from '../retrieval/vectors';
import { type PoolEmbeddingsFile, rowKeysHash, serializePoolEmbeddings } from './poolEmbeddings';

/**
 * The trained heads' DE++ keys of a pool's images (the candidate model over each image's CLIP row),
 * shipped beside the pool's CLIP rows (`npm run pool:keys`, <pool>/embeddings/<pack>.depp.json/.bin,
 * int8), so the page's first image step ranks at once instead of passing 1,836 images through the
 * candidate model after Ready. A file that does not match (another pool, another pack, other heads)
 * is not used: the keys are then computed as before.
 */

/** What the keys are filed under: the CLIP pack whose image rows they were computed from. */
export function deppKeysFingerprint(clipFingerprint: string): string {
  return `depp:${clipFingerprint}`;
}

/** The file of a pool's image keys: compact (its rows are the pool's images, in order, checked by their keys' hash). */
export function serializeDeppImageKeys(packId: string, clipFingerprint: string, keys: EmbeddingMatrix, imageKeys: readonly string[]): PoolEmbeddingsFile {
  return serializePoolEmbeddings(
    `${packId}.depp`,
    deppKeysFingerprint(clipFingerprint),
    { textMatrix: { data: new Float32Array(0), rows: 0, dim: keys.dim }, imageMatrix: keys, textKeys: [], imageKeys: [...imageKeys] },
    'int8',
    { compact: true },
  );
}

/** Rows checked against the heads themselves: a file from other heads gives other keys for them. */
const SPOT_CHECK_ROWS = 4;
/** The least cosine between a shipped key and the same key computed now (int8 keeps about 0.9999). */
const SPOT_CHECK_COSINE = 0.995;

/**
 * The shipped keys of these images, or null with the reason when the file does not fit them: another
 * pack's rows, other images, another key size, or heads that give other keys for the first rows.
 */
export async function shippedDeppImageKeys(
  file: PoolEmbeddingsFile,
  expected: { clipFingerprint: string; imageKeys: readonly string[]; imageMatrix: EmbeddingMatrix; heads: ResponseHeads },
): Promise<{ keys: EmbeddingMatrix } | { keys: null; reason: string }> {
  const { meta } = file;
  if (meta.packFingerprint !== deppKeysFingerprint(expected.clipFingerprint)) return { keys: null, reason: 'it was made for another version of the pack' };
  const compact = meta.compact;
  if (!compact || compact.texts !== 0 || compact.images !== expected.imageKeys.length || compact.keysHash !== rowKeysHash([], expected.imageKeys))
    return { keys: null, reason: "its images are not the pool's" };
  if (meta.dim !== expected.heads.keyDim) return { keys: null, reason: `its keys have ${meta.dim} values, the heads' ${expected.heads.keyDim}` };
  const rows = expected.imageKeys.length;
  const keys: EmbeddingMatrix = { data: file.data.subarray(0, rows * meta.dim), rows, dim: meta.dim };
  const m = expected.imageMatrix;
  const n = Math.min(SPOT_CHECK_ROWS, rows);
  const computed = await expected.heads.keys({ data: m.data.subarray(0, n * m.dim), rows: n, dim: m.dim }, 'image');
  for (let r = 0; r < n; r++) {
    const a = computed.data.subarray(r * meta.dim, (r + 1) * meta.dim);
    const b = keys.data.subarray(r * meta.dim, (r + 1) * meta.dim);
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let i = 0; i < meta.dim; i++) {
      ab += a[i]! * b[i]!;
      aa += a[i]! * a[i]!;
      bb += b[i]! * b[i]!;
    }
    const cosine = ab / (Math.sqrt(aa * bb) || 1);
    if (!(cosine >= SPOT_CHECK_COSINE)) return { keys: null, reason: `the heads give other keys for its images (cosine ${cosine.toFixed(3)} for row ${r})` };
  }
  return { keys };
}
