import { EngineError } from '../errors';
import { SCREEN_CATEGORY_IDS, type ScreenCategoryId } from '../safety/screenLists';
import { describeJson, formatCount, isMediaKey, isPlainObject, MEDIA_KEY_RULE, ownValue, quoteForMessage } from './validation';

/**
 * The candidate pools the app ranks replies from: media.json (images with attribution), texts.json
 * (utterances) and plain .txt utterance files. Input is read field by field into fresh objects, never
 * copied, so keys such as "__proto__" in a file cannot reach any prototype.
 */

type PoolMediaKind = 'sticker' | 'photo' | 'scene' | 'image';
const MEDIA_KINDS: readonly PoolMediaKind[] = ['sticker', 'photo', 'scene', 'image'];

export interface PoolMediaItem {
  /** Media key, unique in the catalogue; a conversation's {"__MEDIA__": key} refers to it. */
  readonly key: string;
  /** Path relative to media.json with "/" between folders; never leaves the pool folder. */
  readonly file: string;
  readonly kind: PoolMediaKind;
  readonly width?: number;
  readonly height?: number;
  /** Text for screen readers; in user data it falls back to the label, then the key. */
  readonly alt: string;
  readonly label?: string;
  readonly topic?: string;
  readonly keywords: readonly string[];
  /** Where the file came from; "unknown" when user data does not say. */
  readonly source: string;
  readonly author?: string;
  /** "unknown" when user data does not say. */
  readonly licence: string;
  readonly sourceUrl?: string;
  /** SHA-256 of the file (64 hex digits): keys the image's embedding, so a changed file is re-embedded. */
  readonly sha256?: string;
}

export interface PoolText {
  readonly id: string;
  readonly text: string;
  readonly topic?: string;
  /** Where the text came from: "written" (for this project), or the id of an entry of the catalogue's sources. */
  readonly source?: string;
  /** Set by `npm run pool:human` on a text that booth strictness leaves out (a borderline one: mild insults, drinking, religion, party politics), with the screen's category. */
  readonly borderline?: ScreenCategoryId;
}

/** Who a group of the pool's texts is owed to (texts.json "sources"): shown in Credits beside the count of texts it gave. */
export interface PoolTextSource {
  readonly id: string;
  readonly name: string;
  readonly credit: string;
  readonly licence: string;
  readonly url: string;
}

/**
 * The "sources" table of texts.json: each source a texts' "source" may name, with its credit and
 * licence. Absent reads as none; in the shipped pool (strict) every field is required, because it is
 * shown to people as attribution.
 */
export function parseTextSources(json: unknown, options: PoolCatalogueOptions = {}): PoolTextSource[] {
  const file = options.file ?? 'texts.json';
  if (!isPlainObject(json)) return [];
  const table = ownValue(json, 'sources');
  if (table === undefined) return [];
  if (!isPlainObject(table)) invalid(`${file}: sources is ${describeJson(table)}, not an object of {"name", "credit", "licence", "url"} by source id.`);
  return Object.keys(table).map((id) => {
    const entry = ownValue(table, id);
    const where = `${file}, sources[${quoteForMessage(id, 40)}]`;
    if (!isPlainObject(entry)) invalid(`${where} is ${describeJson(entry)}, not an object.`);
    const advice = 'Say who made these texts and under which licence.';
    return {
      id,
      name: requiredString(entry, 'name', where, advice),
      credit: requiredString(entry, 'credit', where, advice),
      licence: requiredString(entry, 'licence', where, advice),
      url: requiredString(entry, 'url', where, advice, POOL_LIMITS.urlChars),
    };
  });
}

export interface PoolCatalogueOptions {
  /** Name used in messages, e.g. "pool/media.json". */
  readonly file?: string;
  /**
   * For the shipped demo pool: "version", and each item's kind, alt, source and licence, must be
   * given rather than defaulted, because they are shown to people as attribution.
   */
  readonly strict?: boolean;
  readonly maxItems?: number;
  /**
   * A dataset's media.json only adds alt texts and credits, so an empty one (a text-only chat
   * exported by versions that still wrote it) is read as no alt texts. A pool needs entries.
   */
  readonly allowEmpty?: boolean;
}

const POOL_LIMITS = {
  items: 100_000,
  textChars: 4000,
  /** alt, label, topic, source, author, licence, keywords. */
  fieldChars: 1000,
  idChars: 200,
  fileChars: 260,
  urlChars: 2000,
  keywords: 64,
  /** Pixels; anything larger is a typo, not an image. */
  dimension: 100_000,
} as const;

const UNKNOWN = 'unknown';

function invalid(message: string): never {
  throw new EngineError('dataset-invalid', message);
}

function readVersion(json: object, file: string, strict: boolean): void {
  const version = ownValue(json, 'version');
  if (version === undefined && !strict) return;
  if (version !== 1) {
    invalid(
      `${file}: version is ${version === undefined ? 'missing' : typeof version === 'number' ? version : describeJson(version)}; this app reads version 1. Add "version": 1 or export the file again for this app.`,
    );
  }
}

function readList(json: unknown, file: string, name: 'items' | 'texts', shape: string, strict: boolean, maxItems: number, allowEmpty = false): unknown[] {
  if (!isPlainObject(json)) invalid(`${file} is ${describeJson(json)}, not an object. It should be ${shape}.`);
  readVersion(json, file, strict);
  const list = ownValue(json, name);
  if (list === undefined) invalid(`${file}: ${name} is missing. The file should be ${shape}.`);
  if (!Array.isArray(list)) invalid(`${file}: ${name} is ${describeJson(list)}, not an array. The file should be ${shape}.`);
  if (list.length === 0 && !allowEmpty) invalid(`${file}: ${name} is empty. A pool needs at least one entry.`);
  if (list.length > maxItems) invalid(`${file}: ${name} has ${formatCount(list.length)} entries; the limit is ${formatCount(maxItems)}. Use a smaller pool.`);
  return list;
}

/** A string field, trimmed; absent, null and blank all read as undefined. */
function optionalString(item: object, name: string, where: string, max: number = POOL_LIMITS.fieldChars): string | undefined {
  const raw = ownValue(item, name);
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') invalid(`${where}: ${name} is ${describeJson(raw)}, not a string.`);
  if (raw.length > max) invalid(`${where}: ${name} is ${formatCount(raw.length)} characters long; the limit is ${formatCount(max)}. Shorten it.`);
  const text = raw.trim();
  return text === '' ? undefined : text;
}

function requiredString(item: object, name: string, where: string, advice: string, max?: number): string {
  const value = optionalString(item, name, where, max);
  if (value === undefined) invalid(`${where}: ${name} is missing or empty. ${advice}`);
  return value;
}

function optionalDimension(item: object, name: 'width' | 'height', where: string): number | undefined {
  const raw = ownValue(item, name);
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > POOL_LIMITS.dimension) {
    invalid(
      `${where}: ${name} is ${typeof raw === 'number' ? raw : describeJson(raw)}; it must be a whole number of pixels from 1 to ${formatCount(POOL_LIMITS.dimension)}, or left out.`,
    );
  }
  return raw;
}

/** Why `path` is not a safe path relative to the catalogue, or null when it is. */
function relativePathProblem(path: string): string | null {
  if (path.length > POOL_LIMITS.fileChars) return `is ${formatCount(path.length)} characters long; the limit is ${POOL_LIMITS.fileChars}`;
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains control characters';
  if (path.includes('\\')) return 'uses "\\"; use "/" between folders';
  if (path.startsWith('/')) return 'starts with "/"; it must be relative to the catalogue';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) return 'is a URL or drive path; it must be relative to the catalogue';
  for (const segment of path.split('/')) {
    if (segment === '') return 'has an empty folder name ("//" or a "/" at the end)';
    // "%2e%2e" too: a server may decode it to ".." when the path is fetched.
    if (/^(\.|%2e){2}$/i.test(segment)) return 'uses ".." to leave the pool folder';
  }
  return null;
}

function readKeywords(item: object, where: string): string[] {
  const raw = ownValue(item, 'keywords');
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) invalid(`${where}: keywords is ${describeJson(raw)}, not an array. Make it a list of words, or leave it out.`);
  if (raw.length > POOL_LIMITS.keywords) invalid(`${where}: keywords has ${raw.length} entries; the limit is ${POOL_LIMITS.keywords}.`);
  const keywords: string[] = [];
  for (let k = 0; k < raw.length; k++) {
    const word: unknown = raw[k];
    if (typeof word !== 'string' || word.trim() === '' || word.length > POOL_LIMITS.fieldChars) {
      invalid(
        `${where}: keywords[${k}] is ${typeof word === 'string' ? (word.trim() === '' ? 'empty' : 'too long') : describeJson(word)}; each keyword must be a non-empty string of at most ${formatCount(POOL_LIMITS.fieldChars)} characters.`,
      );
    }
    keywords.push(word.trim());
  }
  return keywords;
}

function readMediaItem(raw: unknown, index: number, file: string, strict: boolean): PoolMediaItem {
  let where = `${file}, items[${index}]`;
  if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}, not an object. Each item must be {"key": ..., "file": ..., "alt": ...}.`);
  const key = ownValue(raw, 'key');
  if (key === undefined) invalid(`${where}: key is missing. Give each item a media key (${MEDIA_KEY_RULE}).`);
  if (!isMediaKey(key)) {
    invalid(
      `${where}: key ${typeof key === 'string' ? quoteForMessage(key) : `is ${describeJson(key)} and`} is not a valid media key: ${MEDIA_KEY_RULE}. Rename it.`,
    );
  }
  where = `${where} (key "${key}")`;

  const path = requiredString(raw, 'file', where, 'Give the image file\'s path relative to the catalogue, e.g. "media/cat.webp".', POOL_LIMITS.fileChars);
  const pathProblem = relativePathProblem(path);
  if (pathProblem)
    invalid(`${where}: file ${quoteForMessage(path)} ${pathProblem}. Put the image in the pool folder and give its path from there, e.g. "media/cat.webp".`);

  const kindRaw = ownValue(raw, 'kind');
  let kind: PoolMediaKind = 'image';
  if (kindRaw !== undefined || strict) {
    const known = MEDIA_KINDS.find((k) => k === kindRaw);
    if (!known) {
      invalid(
        `${where}: kind is ${typeof kindRaw === 'string' ? quoteForMessage(kindRaw) : describeJson(kindRaw)}; it must be one of ${MEDIA_KINDS.map((k) => `"${k}"`).join(', ')}.`,
      );
    }
    kind = known;
  }

  const label = optionalString(raw, 'label', where);
  const alt = strict
    ? requiredString(raw, 'alt', where, 'Describe the image in a few words for people who cannot see it.')
    : (optionalString(raw, 'alt', where) ?? label ?? key);
  const source = strict ? requiredString(raw, 'source', where, 'Say where the image came from.') : (optionalString(raw, 'source', where) ?? UNKNOWN);
  const licence = strict
    ? requiredString(raw, 'licence', where, 'Give the licence the image is used under, e.g. "CC BY 4.0".')
    : (optionalString(raw, 'licence', where) ?? UNKNOWN);

  const sourceUrl = optionalString(raw, 'sourceUrl', where, POOL_LIMITS.urlChars);
  if (sourceUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(sourceUrl)) {
    invalid(`${where}: sourceUrl ${quoteForMessage(sourceUrl)} is not an http(s) address. Give a full https:// link, or leave it out.`);
  }

  // Built field by field: nothing else from the input object is carried over.
  const item: {
    -readonly [K in keyof PoolMediaItem]: PoolMediaItem[K];
  } = { key, file: path, kind, alt, keywords: readKeywords(raw, where), source, licence };
  const width = optionalDimension(raw, 'width', where);
  const height = optionalDimension(raw, 'height', where);
  const topic = optionalString(raw, 'topic', where);
  const author = optionalString(raw, 'author', where);
  if (width !== undefined) item.width = width;
  if (height !== undefined) item.height = height;
  if (label !== undefined) item.label = label;
  if (topic !== undefined) item.topic = topic;
  if (author !== undefined) item.author = author;
  if (sourceUrl !== undefined) item.sourceUrl = sourceUrl;
  const sha256 = ownValue(raw, 'sha256');
  if (sha256 !== undefined) {
    if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))
      invalid(
        `${where}: sha256 is ${typeof sha256 === 'string' ? quoteForMessage(sha256) : describeJson(sha256)}; it must be 64 lower-case hex digits (the file's SHA-256), or be left out.`,
      );
    item.sha256 = sha256;
  }
  return item;
}

/** Validates media.json: {"version": 1, "items": [{key, file, kind, alt, ...}]}. */
export function parseMediaCatalogue(json: unknown, options: PoolCatalogueOptions = {}): PoolMediaItem[] {
  const file = options.file ?? 'media.json';
  const strict = options.strict ?? false;
  const list = readList(
    json,
    file,
    'items',
    '{"version": 1, "items": [{"key": ..., "file": ..., "alt": ...}, ...]}',
    strict,
    options.maxItems ?? POOL_LIMITS.items,
    options.allowEmpty,
  );
  const indexOfKey = new Map<string, number>();
  const items: PoolMediaItem[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = readMediaItem(list[i], i, file, strict);
    const earlier = indexOfKey.get(item.key);
    if (earlier !== undefined) invalid(`${file}, items[${i}]: key "${item.key}" is also the key of items[${earlier}]. Give each item its own key.`);
    indexOfKey.set(item.key, i);
    items.push(item);
  }
  return items;
}

function readPoolText(raw: unknown, index: number, file: string): PoolText {
  let where = `${file}, texts[${index}]`;
  if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}, not an object. Each entry must be {"id": ..., "text": ...}.`);
  const idRaw = ownValue(raw, 'id');
  let id: string;
  if (typeof idRaw === 'number' && Number.isFinite(idRaw)) id = String(idRaw);
  else if (typeof idRaw === 'string' && idRaw.trim() !== '' && idRaw.length <= POOL_LIMITS.idChars) id = idRaw.trim();
  else invalid(`${where}: id is ${describeJson(idRaw)}; it must be a number or a non-empty string of at most ${POOL_LIMITS.idChars} characters.`);
  where = `${where} (id ${quoteForMessage(id, 40)})`;
  const textRaw = ownValue(raw, 'text');
  if (typeof textRaw !== 'string') invalid(`${where}: text is ${describeJson(textRaw)}, not a string.`);
  if (textRaw.length > POOL_LIMITS.textChars) {
    invalid(`${where}: text is ${formatCount(textRaw.length)} characters long; the limit is ${formatCount(POOL_LIMITS.textChars)}. Shorten it.`);
  }
  const text = textRaw.trim();
  if (text === '') invalid(`${where}: text is empty. Write the utterance, or remove the entry.`);
  const entry: { -readonly [K in keyof PoolText]: PoolText[K] } = { id, text };
  const topic = optionalString(raw, 'topic', where);
  const source = optionalString(raw, 'source', where);
  if (topic !== undefined) entry.topic = topic;
  if (source !== undefined) entry.source = source;
  const borderline = ownValue(raw, 'borderline');
  if (borderline !== undefined && borderline !== null) {
    if (typeof borderline !== 'string' || !(SCREEN_CATEGORY_IDS as readonly string[]).includes(borderline))
      invalid(`${where}: borderline is ${describeJson(borderline)}; it must be one of ${SCREEN_CATEGORY_IDS.join(', ')}, or left out.`);
    entry.borderline = borderline as ScreenCategoryId;
  }
  return entry;
}

/** Validates texts.json: {"version": 1, "texts": [{id, text, topic?, source?, borderline?}]}. */
export function parseTextCatalogue(json: unknown, options: PoolCatalogueOptions = {}): PoolText[] {
  const file = options.file ?? 'texts.json';
  const list = readList(
    json,
    file,
    'texts',
    '{"version": 1, "texts": [{"id": ..., "text": ...}, ...]}',
    options.strict ?? false,
    options.maxItems ?? POOL_LIMITS.items,
  );
  const indexOfId = new Map<string, number>();
  const texts: PoolText[] = [];
  for (let i = 0; i < list.length; i++) {
    const entry = readPoolText(list[i], i, file);
    const earlier = indexOfId.get(entry.id);
    if (earlier !== undefined)
      invalid(`${file}, texts[${i}]: id ${quoteForMessage(entry.id, 40)} is also the id of texts[${earlier}]. Give each text its own id.`);
    indexOfId.set(entry.id, i);
    texts.push(entry);
  }
  return texts;
}

/**
 * A person's own utterances, one a line (.txt). Lines are trimmed; blank and repeated lines are
 * skipped, since a pool only needs each reply once. Ids are "line-<n>" with n the 1-based line number,
 * so a message about an utterance can point back into the file.
 */
export function parseUtteranceFile(text: string, options: { readonly file?: string; readonly maxItems?: number } = {}): PoolText[] {
  const file = options.file ?? 'utterances.txt';
  const maxItems = options.maxItems ?? POOL_LIMITS.items;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const seen = new Set<string>();
  const texts: PoolText[] = [];
  const lines = body.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const utterance = lines[i]!.trim();
    if (utterance === '' || seen.has(utterance)) continue;
    if (utterance.length > POOL_LIMITS.textChars) {
      invalid(
        `${file}, line ${i + 1} is ${formatCount(utterance.length)} characters long; the limit is ${formatCount(POOL_LIMITS.textChars)}. Split it into shorter utterances, one a line.`,
      );
    }
    if (texts.length >= maxItems) invalid(`${file} has more than ${formatCount(maxItems)} different utterances. Use a smaller file.`);
    seen.add(utterance);
    texts.push({ id: `line-${i + 1}`, text: utterance });
  }
  if (texts.length === 0) invalid(`${file} has no utterances. Write one utterance a line.`);
  return texts;
}
