import { EngineError } from '../errors';
import { hashBytes, hashText } from '../pool/contentHash';
import { poolTextsHash } from '../pool/poolEmbeddings';
import { textKey } from '../pool/textKey';
import { POOL_TEXT_RULES, asksForPhotos, speaksOfTheirPhoto } from './replyPolicy';

/**
 * What the reply session knows of each pool text before its first reply: its text key (to leave out
 * what the conversation already said, in any re-typing) and the photo rules' marks. Worked out over 64k
 * texts in the page this took about half a second of Ready, so `npm run pool:index` ships it for the
 * demo pool: a small JSON header (`.json`) and one binary file (`.bin`), little-endian:
 *   keyHashes u32[texts] (FNV-1a of each text's key) · byHash u32[texts] (the rows, sorted by key hash,
 *   then row) · flags u8[texts] (1: asks for photos, 2: speaks of their photo).
 * A text's rows are found by binary search on the hash, then confirmed by the key itself.
 */
export interface TextMarks {
  keyHashes: Uint32Array;
  byHash: Uint32Array;
  photoAsks: ReadonlySet<number>;
  photoTalk: ReadonlySet<number>;
}

export interface TextMarksMeta {
  version: 1;
  kind: 'text-marks';
  /** How many texts were marked, and the hash of them (poolTextsHash): a pool whose texts differ uses none of it. */
  texts: number;
  textsHash: string;
  /** The rules and the text key the marks were made with (textMarkRules): a changed rule refuses the file. */
  rules: string;
  /** hashBytes of the .bin: a damaged or half-written file is refused. */
  bytesHash: string;
}

const ASKS = 1;
const TALKS = 2;

/** Texts whose keys tell a changed textKey apart: punctuation, case, repeated letters, accents, apostrophes. */
const KEY_PROBES = ['Hi!!', "I don't know...", 'Sooo cool', 'Café au lait', 'Send me   a PIC', '  Ok. ', 'ﬁne', 'naïve 123'];

/** Names the rules and the text key, as sources and probes: the same in Node and in the minified page. */
function textMarkRules(): string {
  return hashText(JSON.stringify([POOL_TEXT_RULES.map((r) => [r.source, r.flags]), KEY_PROBES.map(textKey)]));
}

/** 32-bit FNV-1a of a key's UTF-16 code units: a text's place in byHash. */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The marks worked out from the texts: what pool:index writes, and what the page does without a file. */
export function computeTextMarks(texts: readonly string[]): TextMarks {
  const keyHashes = Uint32Array.from(texts, (t) => keyHash(textKey(t)));
  const byHash = Uint32Array.from(texts.keys()).sort((a, b) => keyHashes[a]! - keyHashes[b]! || a - b);
  const photoAsks = new Set<number>();
  const photoTalk = new Set<number>();
  texts.forEach((t, r) => {
    if (asksForPhotos(t)) photoAsks.add(r);
    if (speaksOfTheirPhoto(t)) photoTalk.add(r);
  });
  return { keyHashes, byHash, photoAsks, photoTalk };
}

/** The rows of the texts whose key is `key`, in row order. */
export function rowsOfKey(marks: TextMarks, texts: readonly string[], key: string): number[] {
  const h = keyHash(key);
  const { keyHashes, byHash } = marks;
  let lo = 0;
  let hi = byHash.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyHashes[byHash[mid]!]! < h) lo = mid + 1;
    else hi = mid;
  }
  const rows: number[] = [];
  // Rows that share the hash but not the key (a collision) are left out.
  for (let i = lo; i < byHash.length && keyHashes[byHash[i]!] === h; i++) if (textKey(texts[byHash[i]!]!) === key) rows.push(byHash[i]!);
  return rows;
}

export function serializeTextMarks(texts: readonly string[], marks: TextMarks): { meta: TextMarksMeta; bytes: Uint8Array } {
  const n = texts.length;
  const bytes = new Uint8Array(9 * n);
  bytes.set(new Uint8Array(marks.keyHashes.buffer, marks.keyHashes.byteOffset, 4 * n), 0);
  bytes.set(new Uint8Array(marks.byHash.buffer, marks.byHash.byteOffset, 4 * n), 4 * n);
  for (let r = 0; r < n; r++) bytes[8 * n + r] = (marks.photoAsks.has(r) ? ASKS : 0) | (marks.photoTalk.has(r) ? TALKS : 0);
  return { meta: { version: 1, kind: 'text-marks', texts: n, textsHash: poolTextsHash(texts), rules: textMarkRules(), bytesHash: hashBytes(bytes) }, bytes };
}

/**
 * The marks of a shipped file, after checking its header, its size, the hash of its bytes, that it
 * marks exactly `texts` and that it was made with this app's rules. Anything else is refused with an
 * EngineError naming `location`; the caller then works the marks out itself.
 */
export function parseTextMarks(
  metaJson: unknown,
  bytes: Uint8Array,
  location: string,
  texts: readonly string[],
  /** textContentKey of each text, when the caller has them (the worker's CLIP rows). */
  contentKeys?: readonly string[],
): TextMarks {
  const bad = (what: string): never => {
    throw new EngineError('pack-file-corrupt', `${location} ${what}`);
  };
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) bad('is not a text-marks header.');
  const m = metaJson as Record<string, unknown>;
  if (m['version'] !== 1 || m['kind'] !== 'text-marks')
    bad(`is of kind ${JSON.stringify(m['kind'])} version ${String(m['version'])}; this app reads "text-marks" version 1.`);
  const n = m['texts'];
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) bad('has no valid "texts".');
  if (typeof m['textsHash'] !== 'string' || typeof m['bytesHash'] !== 'string' || typeof m['rules'] !== 'string')
    bad('lacks "textsHash", "rules" or "bytesHash".');
  if (n !== texts.length || m['textsHash'] !== poolTextsHash(texts, contentKeys))
    bad(`marks other texts than the pool's (${String(n)} texts, hash ${String(m['textsHash'])}; the pool has ${texts.length}).`);
  if (m['rules'] !== textMarkRules()) bad("was made with other photo rules or another text key than this app's: rebuild it.");
  const count = n as number;
  if (bytes.byteLength !== 9 * count)
    bad(`describes ${9 * count} bytes of marks, but its .bin holds ${bytes.byteLength}: it is truncated or from another build.`);
  if (hashBytes(bytes) !== m['bytesHash']) bad('does not match the hash of its .bin: the file is damaged.');
  // One aligned copy: a fetched buffer may start at any offset.
  const words = new Uint32Array(new Uint8Array(bytes.subarray(0, 8 * count)).buffer);
  const keyHashes = words.subarray(0, count);
  const byHash = words.subarray(count);
  const photoAsks = new Set<number>();
  const photoTalk = new Set<number>();
  for (let r = 0; r < count; r++) {
    const flags = bytes[8 * count + r]!;
    if (flags & ASKS) photoAsks.add(r);
    if (flags & TALKS) photoTalk.add(r);
  }
  // byHash must hold every row once, in hash order: a row missing from it would never be left out.
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const row = byHash[i]!;
    if (row >= count || seen[row]) bad('lists a row twice or one beyond the texts in its hash order.');
    seen[row] = 1;
    if (i > 0 && keyHashes[byHash[i - 1]!]! > keyHashes[row]!) bad('is not in hash order.');
  }
  return { keyHashes, byHash, photoAsks, photoTalk };
}
