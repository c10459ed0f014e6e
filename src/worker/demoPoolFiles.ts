import { type PoolText, parseTextCatalogue } from '../engine/datasets/poolCatalogue';
import { parseTextTable } from '../engine/datasets/textTable';
import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/validation';
import { EngineError, errorMessage } from '../engine/errors';
import { parseStoredContexts } from '../engine/pool/chatPool';
import { type EmbeddedPool, type PoolEmbeddingsFile, type PoolImageItem, type PoolTextItem, parsePoolEmbeddings } from '../engine/pool/poolEmbeddings';
import { shippedDeppImageKeys } from '../engine/pool/deppKeys';
import type { LexicalCounts } from '../engine/ranking/lexical';
import { parseLexicalCounts } from '../engine/ranking/lexicalIndexFile';
import type { ResponseHeads } from '../engine/response/heads';
import { type TextMarks, parseTextMarks } from '../engine/response/textMarks';

/**
 * The demo pool's files as the worker reads them (public/pool, public/dialogues): fetched when the
 * load starts, each checked against what it is for; a file that is missing or does not fit is said
 * and worked around, as each function says.
 */

/**
 * The demo pool's files, requested when the load starts: they come from the network or the offline
 * cache while the sessions are being created, instead of one after another once they are. A file is
 * handed out once (a response body is read once); any other fetch of it goes to the network as usual.
 */
const prefetched = new Map<string, Promise<Response>>();

export function prefetchDemoPool(baseUrl: string, packId: string): void {
  prefetched.clear();
  const dialogues = `${baseUrl.replace(/pool\/$/, '')}dialogues/train/`;
  const files = [
    `${baseUrl}media.json`,
    ...[
      'text-table',
      'lexical',
      'text-marks',
      `embeddings/${packId}`,
      `embeddings/${packId}.depp`,
      `embeddings/${packId}.chat`,
      `embeddings/${packId}.contexts`,
    ].flatMap((base) => [`${baseUrl}${base}.json`, `${baseUrl}${base}.bin`]),
    `${dialogues}conversations.json`,
    `${dialogues}invitations.json`,
  ];
  for (const url of files) {
    const response = fetch(url);
    response.catch(() => undefined); // reported to whoever reads it
    prefetched.set(url, response);
  }
}

function fetchPrefetched(url: string): Promise<Response> {
  const early = prefetched.get(url);
  prefetched.delete(url);
  return early ?? fetch(url);
}

export async function fetchBlob(url: string): Promise<Blob> {
  const response = await fetchPrefetched(url).catch((cause: unknown) => {
    throw new EngineError('pack-file-missing', `${url} could not be loaded (${errorMessage(cause)}). Check the connection to the demo server and reload.`, {
      cause,
    });
  });
  if (!response.ok)
    throw new EngineError(
      'pack-file-missing',
      `${url} is missing (HTTP ${response.status}). Restore the pool (see docs/response-engine.md, "Candidate pool") and reload.`,
    );
  return response.blob();
}

export async function fetchJson(url: string): Promise<unknown> {
  const bytes = new Uint8Array(await (await fetchBlob(url)).arrayBuffer());
  const name = url.slice(url.lastIndexOf('/pool/') + 1);
  return parseJsonDocument(decodeUtf8Strict(bytes, name), name);
}

/** The demo pool's stored contexts of context match, or null (context match is then not offered). */
export async function fetchStoredContexts(base: string) {
  try {
    const file = await fetchBinaryFile(base);
    return file && parseStoredContexts(file.meta, file.bytes, `${base}.json`);
  } catch (error) {
    console.warn(`Stored contexts not used: ${errorMessage(error)}`);
    return null;
  }
}

/**
 * Hands the heads the demo pool's shipped DE++ image keys (npm run pool:keys) when they fit this pool
 * and these heads; otherwise the first image step computes them, as without the file.
 */
export async function useShippedDeppKeys(
  heads: ResponseHeads,
  base: string,
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>,
  clipFingerprint: string,
): Promise<void> {
  const file = await fetchPrecomputed(base);
  if (!file) return;
  try {
    const shipped = await shippedDeppImageKeys(file, { clipFingerprint, imageKeys: embedded.imageKeys, imageMatrix: embedded.imageMatrix, heads });
    if (shipped.keys) heads.useShippedKeys(embedded.imageMatrix, shipped.keys);
    else console.warn(`${base}.json is not used, so the DE++ image keys are computed after Ready: ${shipped.reason}. Rebuild it with "npm run pool:keys".`);
  } catch (error) {
    console.warn(`${base}.json is not used, so the DE++ image keys are computed after Ready: ${errorMessage(error)}`);
  }
}

/** A .json header and its .bin. */
type BinaryFile = { meta: unknown; bytes: Uint8Array };

/** A .json header and its .bin, fetched side by side; null when either is missing (a pool made before it shipped one). */
export async function fetchBinaryFile(base: string): Promise<BinaryFile | null> {
  try {
    const [meta, bin] = await Promise.all([fetchPrefetched(`${base}.json`), fetchPrefetched(`${base}.bin`)]);
    if (!meta.ok || !bin.ok) return null;
    return { meta: await meta.json(), bytes: new Uint8Array(await bin.arrayBuffer()) };
  } catch (error) {
    console.warn(`${base}.json could not be read (${errorMessage(error)}).`);
    return null;
  }
}

/**
 * A file of the pool that `npm run pool:index` writes, when it is of this pool's texts; otherwise null,
 * with a warning that says why and what the page does instead (`fallback`).
 */
function readShippedIndex<T>(base: string, file: BinaryFile | null, fallback: string, parse: (meta: unknown, bytes: Uint8Array, name: string) => T): T | null {
  if (!file) {
    console.warn(`${base}.json/.bin are missing, ${fallback}`);
    return null;
  }
  try {
    return parse(file.meta, file.bytes, `${base}.json`);
  } catch (error) {
    console.warn(`${errorMessage(error).replace(/\.$/, '')}: it is not used, ${fallback}`);
    return null;
  }
}

/**
 * The pool's texts: from its text table (npm run pool:index), read without parsing 64k JSON records;
 * from texts.json, saying so, when the table is missing or does not fit.
 */
export async function readPoolTexts(baseUrl: string): Promise<PoolText[]> {
  const base = `${baseUrl}text-table`;
  const table = readShippedIndex(
    base,
    await fetchBinaryFile(base),
    'so the page reads texts.json instead, which delays Ready by a few tenths of a second. Rebuild it with "npm run pool:index".',
    (meta, bytes, name) => parseTextTable(meta, bytes, name),
  );
  return table ?? parseTextCatalogue(await fetchJson(`${baseUrl}texts.json`), { file: 'pool/texts.json', strict: true });
}

/** The pool's shipped text keys and photo marks, or null when they are missing or do not fit. */
export function readTextMarks(base: string, file: BinaryFile | null, texts: readonly string[], contentKeys: readonly string[]): TextMarks | null {
  const fallback =
    'so the page keys the pool\'s texts and marks them by its photo rules itself, which delays Ready by about half a second. Rebuild it with "npm run pool:index".';
  return readShippedIndex(base, file, fallback, (meta, bytes, name) => parseTextMarks(meta, bytes, name, texts, contentKeys));
}

/** The pool's shipped BM25 counts when they are of its texts; otherwise null, and the rankers count the texts themselves. */
export function readLexicalCounts(base: string, file: BinaryFile | null, texts: readonly string[], textKeys: readonly string[]): LexicalCounts | null {
  const fallback = 'so the page counts the pool\'s words itself, which delays the first reply by about a second. Rebuild it with "npm run pool:index".';
  return readShippedIndex(base, file, fallback, (meta, bytes, name) => parseLexicalCounts(meta, bytes, name, texts, textKeys));
}

/** The pool:build output for this pack, or null (then rows come from the cache or are computed). */
export async function fetchPrecomputed(base: string): Promise<PoolEmbeddingsFile | null> {
  try {
    const file = await fetchBinaryFile(base);
    return file && parsePoolEmbeddings(file.meta, file.bytes, `${base}.json`);
  } catch (error) {
    console.warn(`Precomputed pool embeddings not used: ${errorMessage(error)}`);
    return null;
  }
}
