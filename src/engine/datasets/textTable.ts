import { EngineError } from '../errors';
import { hashBytes } from '../pool/contentHash';
import { SCREEN_CATEGORY_IDS, type ScreenCategoryId } from '../safety/screenLists';
import type { PoolText, PoolTextSource } from './poolCatalogue';

/**
 * The demo pool's texts as the page reads them (issue 38): texts.json holds 64k records of JSON, 7.9 MB
 * that the worker parsed and validated record by record while it loaded (0.2-0.3 s of one core in
 * Node). `npm run pool:index` writes them once more as a small JSON header (`.json`) and one binary
 * file (`.bin`), little-endian:
 *   textEnds u32[n] · idEnds u32[n] (where each text and id ends, in UTF-16 code units) ·
 *   topic u8[n] · source u8[n] · borderline u8[n] (0: none, k: the header's list entry k-1) ·
 *   the texts, then the ids, each as one UTF-8 run.
 * Each run is decoded once and cut by the ends, so reading it makes no string per byte range. The
 * header also carries the catalogue's sources and how many texts each gave, for the Credits view.
 */
export interface TextTableMeta {
  version: 1;
  kind: 'text-table';
  texts: number;
  /** UTF-8 bytes of the texts' run and of the ids' run. */
  textBytes: number;
  idBytes: number;
  topics: string[];
  sources: string[];
  borderline: ScreenCategoryId[];
  /** texts.json's "sources" (who the texts are owed to), as parseTextSources reads them. */
  credits: PoolTextSource[];
  /** How many texts name each of `sources`, in its order, and how many name none (last). */
  sourceCounts: number[];
  /** hashBytes of the .bin: a damaged or half-written file is refused. */
  bytesHash: string;
}

/** Values of one column: at most 255, as a u8 names them. */
function columnOf(values: readonly (string | undefined)[], name: string): { list: string[]; codes: Uint8Array } {
  const list: string[] = [];
  const index = new Map<string, number>();
  const codes = new Uint8Array(values.length);
  values.forEach((value, row) => {
    if (value === undefined) return;
    let code = index.get(value);
    if (code === undefined) {
      if (list.length === 255) throw new Error(`The pool's texts have more than 255 different values of "${name}"; the text table holds 255.`);
      list.push(value);
      code = list.length;
      index.set(value, code);
    }
    codes[row] = code;
  });
  return { list, codes };
}

/** What pool:index writes: the texts as read from texts.json (parseTextCatalogue) and its sources. */
export function serializeTextTable(texts: readonly PoolText[], credits: readonly PoolTextSource[]): { meta: TextTableMeta; bytes: Uint8Array } {
  const n = texts.length;
  const encoder = new TextEncoder();
  const textRun = encoder.encode(texts.map((t) => t.text).join(''));
  const idRun = encoder.encode(texts.map((t) => t.id).join(''));
  const ends = (strings: readonly string[]) => {
    const out = new Uint32Array(n);
    let end = 0;
    strings.forEach((s, i) => (out[i] = end += s.length));
    return out;
  };
  const topics = columnOf(
    texts.map((t) => t.topic),
    'topic',
  );
  const sources = columnOf(
    texts.map((t) => t.source),
    'source',
  );
  const borderline = columnOf(
    texts.map((t) => t.borderline),
    'borderline',
  );
  const bytes = new Uint8Array(11 * n + textRun.length + idRun.length);
  const words = new Uint8Array(new Uint32Array([...ends(texts.map((t) => t.text)), ...ends(texts.map((t) => t.id))]).buffer);
  bytes.set(words, 0);
  bytes.set(topics.codes, 8 * n);
  bytes.set(sources.codes, 9 * n);
  bytes.set(borderline.codes, 10 * n);
  bytes.set(textRun, 11 * n);
  bytes.set(idRun, 11 * n + textRun.length);
  const sourceCounts = new Array<number>(sources.list.length + 1).fill(0);
  for (const code of sources.codes) sourceCounts[code === 0 ? sources.list.length : code - 1]! += 1;
  return {
    meta: {
      version: 1,
      kind: 'text-table',
      texts: n,
      textBytes: textRun.length,
      idBytes: idRun.length,
      topics: topics.list,
      sources: sources.list,
      borderline: borderline.list as ScreenCategoryId[],
      credits: [...credits],
      sourceCounts,
      bytesHash: hashBytes(bytes),
    },
    bytes,
  };
}

function badHeader(location: string, what: string): never {
  throw new EngineError('pack-file-corrupt', `${location} ${what}`);
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** The header alone, checked: what the Credits view reads (it needs no text). */
export function parseTextTableMeta(metaJson: unknown, location: string): TextTableMeta {
  if (typeof metaJson !== 'object' || metaJson === null || Array.isArray(metaJson)) badHeader(location, "is not a header of the pool's texts.");
  const m = metaJson as Record<string, unknown>;
  if (m['version'] !== 1 || m['kind'] !== 'text-table')
    badHeader(location, `is of kind ${JSON.stringify(m['kind'])} version ${String(m['version'])}; this app reads "text-table" version 1.`);
  if (!isCount(m['texts']) || !isCount(m['textBytes']) || !isCount(m['idBytes']) || typeof m['bytesHash'] !== 'string')
    badHeader(location, 'lacks valid "texts", "textBytes", "idBytes" or "bytesHash".');
  if (!isStringList(m['topics']) || !isStringList(m['sources']) || !isStringList(m['borderline']) || !Array.isArray(m['credits']))
    badHeader(location, 'lacks its "topics", "sources", "borderline" or "credits" lists.');
  const lists = [m['topics'], m['sources'], m['borderline']] as string[][];
  if (lists.some((list) => list.length > 255)) badHeader(location, 'names more than 255 values in a column.');
  if (m['borderline'].some((c) => !(SCREEN_CATEGORY_IDS as readonly string[]).includes(c)))
    badHeader(location, `names a borderline category this app does not know (it knows ${SCREEN_CATEGORY_IDS.join(', ')}).`);
  const counts = m['sourceCounts'];
  if (!Array.isArray(counts) || counts.length !== m['sources'].length + 1 || !counts.every(isCount))
    badHeader(location, 'lacks a count of texts for each source.');
  const credits = m['credits'] as unknown[];
  if (
    !credits.every(
      (c) =>
        typeof c === 'object' && c !== null && ['id', 'name', 'credit', 'licence', 'url'].every((k) => typeof (c as Record<string, unknown>)[k] === 'string'),
    )
  )
    badHeader(location, 'has a source credit without its id, name, credit, licence or url.');
  return metaJson as TextTableMeta;
}

/**
 * The pool's texts from a shipped table, after checking its header, its size, the hash of its bytes,
 * that every end lies in order inside its run and that the runs are UTF-8. Anything else is refused
 * with an EngineError naming `location`; the caller then reads texts.json.
 */
export function parseTextTable(metaJson: unknown, bytes: Uint8Array, location: string): PoolText[] {
  const meta = parseTextTableMeta(metaJson, location);
  const n = meta.texts;
  const size = 11 * n + meta.textBytes + meta.idBytes;
  if (bytes.byteLength !== size)
    badHeader(location, `describes ${size} bytes of texts, but its .bin holds ${bytes.byteLength}: it is truncated or from another build.`);
  if (hashBytes(bytes) !== meta.bytesHash) badHeader(location, 'does not match the hash of its .bin: the file is damaged.');
  // One aligned copy: a fetched buffer may start at any offset.
  const words = new Uint32Array(new Uint8Array(bytes.subarray(0, 8 * n)).buffer);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let textRun: string;
  let idRun: string;
  try {
    textRun = decoder.decode(bytes.subarray(11 * n, 11 * n + meta.textBytes));
    idRun = decoder.decode(bytes.subarray(11 * n + meta.textBytes));
  } catch {
    badHeader(location, 'holds bytes that are not UTF-8 text: the file is damaged.');
  }
  const cut = (run: string, ends: Uint32Array, what: string) => {
    const out = new Array<string>(n);
    let start = 0;
    for (let i = 0; i < n; i++) {
      const end = ends[i]!;
      if (end <= start || end > run.length) badHeader(location, `has ${what} ${i} empty, out of order or beyond its run.`);
      out[i] = run.slice(start, end);
      start = end;
    }
    if (start !== run.length) badHeader(location, `has ${what}s that do not fill their run.`);
    return out;
  };
  const texts = cut(textRun, words.subarray(0, n), 'text');
  const ids = cut(idRun, words.subarray(n, 2 * n), 'id');
  const column = (offset: number, list: readonly string[], what: string) => (row: number) => {
    const code = bytes[offset + row]!;
    if (code > list.length) badHeader(location, `names ${what} ${code} for text ${row}, of ${list.length}.`);
    return code === 0 ? undefined : list[code - 1];
  };
  const topic = column(8 * n, meta.topics, 'topic');
  const source = column(9 * n, meta.sources, 'source');
  const borderline = column(10 * n, meta.borderline, 'borderline category');
  const out = new Array<PoolText>(n);
  for (let row = 0; row < n; row++) {
    const entry: { -readonly [K in keyof PoolText]: PoolText[K] } = { id: ids[row]!, text: texts[row]! };
    const t = topic(row);
    const s = source(row);
    const b = borderline(row);
    if (t !== undefined) entry.topic = t;
    if (s !== undefined) entry.source = s;
    if (b !== undefined) entry.borderline = b as ScreenCategoryId;
    out[row] = entry;
  }
  return out;
}
