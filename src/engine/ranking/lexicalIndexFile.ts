import { EngineError } from '../errors';
import { hashBytes } from '../pool/contentHash';
import { poolTextsHash } from '../pool/poolEmbeddings';
import type { LexicalCounts } from './lexical';

/**
 * The BM25 counts of the demo pool's texts, built by `npm run pool:index` so the page does not tokenize
 * and count 65k texts before its first reply. A small JSON header (`.json`) describes one binary file
 * (`.bin`), little-endian:
 *   docLengths u16[texts] (padded to 4 bytes) · termDf u32[terms] · postingBytes: per term, in order,
 *   each posting as two LEB128 varints (the gap to the previous candidate, then the count) · the terms
 *   as UTF-8, one per line.
 * The texts are their own corpus, so a term's document frequency is also its number of postings.
 * Varint gaps keep the file at 2 MB where plain u32 postings took 5 MB of the offline install.
 */
export interface LexicalIndexMeta {
  version: 1;
  kind: 'lexical-counts';
  /** How many texts were indexed, and the hash of them (poolTextsHash): a pool whose texts differ uses none of it. */
  texts: number;
  textsHash: string;
  terms: number;
  postings: number;
  postingBytes: number;
  vocabularyBytes: number;
  /** hashBytes of the .bin: a damaged or half-written file is refused. */
  bytesHash: string;
}

function layout(texts: number, terms: number, postingBytes: number, vocabularyBytes: number) {
  const docLengths = 0;
  const termDf = docLengths + 4 * Math.ceil(texts / 2);
  const postings = termDf + 4 * terms;
  const vocabulary = postings + postingBytes;
  return { docLengths, termDf, postings, vocabulary, total: vocabulary + vocabularyBytes };
}

function writeVarint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  out.push(value);
}

export function serializeLexicalCounts(texts: readonly string[], counts: LexicalCounts): { meta: LexicalIndexMeta; bytes: Uint8Array } {
  const { terms, termDf, starts, docs, tf, docLengths } = counts;
  if (terms.some((t) => t.includes('\n'))) throw new EngineError('invalid-input', 'A term holds a line break; it cannot be written one per line.');
  if (docLengths.some((l) => l > 0xffff)) throw new EngineError('invalid-input', 'A text has more than 65,535 words; the index file keeps lengths in 16 bits.');
  const postingBytes: number[] = [];
  for (let t = 0; t < terms.length; t++) {
    if (starts[t + 1]! - starts[t]! !== termDf[t]) throw new EngineError('invalid-input', 'The counts are not of texts that are their own corpus.');
    let previous = 0;
    for (let p = starts[t]!; p < starts[t + 1]!; p++) {
      writeVarint(postingBytes, docs[p]! - previous);
      writeVarint(postingBytes, tf[p]!);
      previous = docs[p]!;
    }
  }
  const vocabulary = new TextEncoder().encode(terms.join('\n'));
  const at = layout(texts.length, terms.length, postingBytes.length, vocabulary.length);
  const bytes = new Uint8Array(at.total);
  bytes.set(new Uint8Array(Uint16Array.from(docLengths).buffer), at.docLengths);
  bytes.set(new Uint8Array(Uint32Array.from(termDf).buffer), at.termDf);
  bytes.set(postingBytes, at.postings);
  bytes.set(vocabulary, at.vocabulary);
  return {
    meta: {
      version: 1,
      kind: 'lexical-counts',
      texts: texts.length,
      textsHash: poolTextsHash(texts),
      terms: terms.length,
      postings: docs.length,
      postingBytes: postingBytes.length,
      vocabularyBytes: vocabulary.length,
      bytesHash: hashBytes(bytes),
    },
    bytes,
  };
}

/**
 * The counts of a shipped index, after checking the header, the size, the hash of the bytes and that
 * they index exactly `texts`. Anything else is refused with an EngineError naming `location`; the
 * caller then counts the texts itself.
 */
export function parseLexicalCounts(
  metaJson: unknown,
  bytes: Uint8Array,
  location: string,
  texts: readonly string[],
  /** textContentKey of each text, when the caller has them (the worker's CLIP rows). */
  textKeys?: readonly string[],
): LexicalCounts {
  const bad = (what: string): never => {
    throw new EngineError('pack-file-corrupt', `${location} ${what}`);
  };
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) bad('is not a lexical index header.');
  const m = metaJson as Record<string, unknown>;
  if (m['version'] !== 1 || m['kind'] !== 'lexical-counts')
    bad(`is of kind ${JSON.stringify(m['kind'])} version ${String(m['version'])}; this app reads "lexical-counts" version 1.`);
  const count = (key: string): number => {
    const v = m[key];
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : bad(`has no valid "${key}".`);
  };
  const [n, terms, postings, postingBytes, vocabularyBytes] = ['texts', 'terms', 'postings', 'postingBytes', 'vocabularyBytes'].map(count) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (typeof m['textsHash'] !== 'string' || typeof m['bytesHash'] !== 'string') bad('lacks "textsHash" or "bytesHash".');
  if (n !== texts.length || m['textsHash'] !== poolTextsHash(texts, textKeys))
    bad(`indexes other texts than the pool's (${n} texts, hash ${String(m['textsHash'])}; the pool has ${texts.length}).`);
  const at = layout(n, terms, postingBytes, vocabularyBytes);
  if (bytes.byteLength !== at.total)
    bad(`describes ${at.total} bytes of index, but its .bin holds ${bytes.byteLength}: it is truncated or from another build.`);
  if (hashBytes(bytes) !== m['bytesHash']) bad('does not match the hash of its .bin: the file is damaged.');
  // One aligned copy of the fixed-width parts: a fetched buffer may start at any offset.
  const fixed = new Uint8Array(bytes.subarray(0, at.postings)).buffer;
  const docLengths = Uint32Array.from(new Uint16Array(fixed, at.docLengths, n));
  const termDf = new Uint32Array(fixed, at.termDf, terms);
  const starts = new Uint32Array(terms + 1);
  for (let t = 0; t < terms; t++) starts[t + 1] = starts[t]! + termDf[t]!;
  if (starts[terms] !== postings) bad('has postings that do not add up.');
  const docs = new Uint32Array(postings);
  const tf = new Uint16Array(postings);
  let at8 = at.postings;
  const end = at.vocabulary;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (at8 >= end) bad('ends in the middle of its postings.');
      const byte = bytes[at8++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    return bad('holds a posting that is not a varint.');
  };
  for (let t = 0; t < terms; t++) {
    let doc = 0;
    for (let p = starts[t]!; p < starts[t + 1]!; p++) {
      doc += varint();
      const count = varint();
      if (doc >= n || count === 0 || count > 0xffff || (p > starts[t]! && doc <= docs[p - 1]!)) bad('holds postings that are not of its texts.');
      docs[p] = doc;
      tf[p] = count;
    }
  }
  if (at8 !== end) bad('holds more postings than its header says.');
  const vocabulary = terms === 0 ? [] : new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at.vocabulary)).split('\n');
  if (vocabulary.length !== terms) bad(`lists ${vocabulary.length} terms, not ${terms}.`);
  return { terms: vocabulary, termDf, docLengths, starts, docs, tf };
}
