import { EngineError } from '../errors';

// Available in browsers, workers and Node; declared here because the engine compiles without DOM types.
declare const TextDecoder: new (label: string, options: { ignoreBOM: boolean }) => { decode(bytes: Uint8Array): string };

/** One element of a turn: a piece of text, or an image named by its media key. */
export type DialogueElement = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'media'; readonly key: string };

/** One speaker's message: texts and images in the order they were sent. */
export interface DialogueTurn {
  readonly elements: readonly DialogueElement[];
}

export interface DialogueRecord {
  /** conversation_id from the file; numbers are kept as their decimal string. */
  readonly id: string;
  readonly turns: readonly DialogueTurn[];
  /** Distractors for 1-of-N retrieval; only MMDialog's valid and test splits have them. */
  readonly negativeTexts?: readonly string[];
  readonly negativeMediaKeys?: readonly string[];
}

/** Speakers alternate, so a turn's index says who sent it. */
export type DialogueSpeaker = 'A' | 'B';

/** The record as MMDialog writes it, for export. */
export type MmdialogElementJson = { __TEXT__: string } | { __MEDIA__: string };
export interface MmdialogRecordJson {
  conversation_id: number | string;
  conversation: { turn: MmdialogElementJson[] }[];
  negative_candidate_media_keys?: string[];
  negative_candidate_texts?: string[];
}

export interface ConversationsOptions {
  /** Name used in messages, e.g. "test/conversations.json". */
  readonly file?: string;
  /** Whether the dataset has an image for a media key; without it keys are only checked for form. */
  readonly hasMedia?: (key: string) => boolean;
  readonly maxRecords?: number;
  readonly maxTotalChars?: number;
}

export const DIALOGUE_LIMITS = {
  textChars: 4000,
  turnsPerDialogue: 200,
  elementsPerTurn: 64,
  /** Brackets inside one record; MMDialog records need 5, and deeper input is junk that could exhaust the stack. */
  nestingDepth: 64,
  idChars: 200,
  records: 100_000,
  totalChars: 1_000_000_000,
} as const;

const DEFAULT_FILE = 'conversations.json';
const MEDIA_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Says what a media key may look like, to follow "is not a valid media key: ". */
export const MEDIA_KEY_RULE = 'keys are 1 to 128 letters, digits, "_", "." or "-", starting with a letter or digit (so no slashes, spaces or leading dots)';
const ELEMENT_RULE = 'Each element must be {"__TEXT__": string} or {"__MEDIA__": media key}.';

// ---------------------------------------------------------------------------------------------
// Small helpers, shared with poolCatalogue.ts.

/** A key that is safe as a file name stem and in a URL: no path separators, so no traversal. */
export function isMediaKey(value: unknown): value is string {
  return typeof value === 'string' && MEDIA_KEY.test(value);
}

/** A JSON object made by JSON.parse or a literal; class instances and objects with odd prototypes are refused. */
export function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reads one own property; inherited ones (say, through a crafted __proto__) never count. */
export function ownValue(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** "a string", "an array"... for "X is a string, not an array." */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'an object with an unusual prototype';
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value}`;
}

/** Quotes a value from the file for a message, shortened so that a huge string cannot flood it. */
export function quoteForMessage(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** 10485760 → "10,485,760", without depending on the locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Throws the 'dataset-invalid' error every dataset reader uses: the message says where and what to do. */
export function invalid(message: string, cause?: unknown): never {
  throw new EngineError('dataset-invalid', message, cause === undefined ? undefined : { cause });
}

function baseName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1) || file;
}

// ---------------------------------------------------------------------------------------------
// Bytes and whole JSON documents.

/** Where UTF-8 breaks: the offset of the first byte that does not start a well-formed sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Uint8Array): { offset: number; cutOff: boolean } | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // How many continuation bytes follow the lead byte, and the allowed range of the first of them;
    // the narrowed ranges rule out overlong forms, surrogates and code points past U+10FFFF.
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) (need = 2), (lo = 0xa0);
    else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
    else if (b === 0xed) (need = 2), (hi = 0x9f);
    else if (b === 0xf0) (need = 3), (lo = 0x90);
    else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) (need = 3), (hi = 0x8f);
    else return { offset: i, cutOff: false };
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return { offset: i, cutOff: true };
      const next = bytes[i + k]!;
      if (next < (k === 1 ? lo : 0x80) || next > (k === 1 ? hi : 0xbf)) return { offset: i, cutOff: false };
    }
    i += need + 1;
  }
  return null;
}

/**
 * Decodes a UTF-8 file, refusing anything else: a Latin-1 or UTF-16 file would otherwise turn into
 * mojibake silently. A leading byte order mark is dropped.
 */
export function decodeUtf8Strict(bytes: Uint8Array, file: string): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad) {
    const hex = bytes[bad.offset]!.toString(16).padStart(2, '0');
    const note = bad.cutOff ? ' (the file ends in the middle of a character)' : '';
    invalid(`${file} is not UTF-8: byte ${bad.offset} (0x${hex}) is invalid${note}. Save the file as UTF-8.`);
  }
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  // ignoreBOM keeps the decoder from dropping a second BOM after we dropped the first.
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(hasBom ? bytes.subarray(3) : bytes);
}

/** Deepest bracket nesting outside strings, stopping early once past `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === LBRACE || c === LBRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === RBRACE || c === RBRACKET) depth--;
  }
  return deepest;
}

/**
 * JSON.parse for a whole small file (media.json, texts.json) with the file named in errors. Nesting is
 * checked first because JSON.parse on deeply nested junk throws a RangeError or exhausts the stack.
 */
export function parseJsonDocument(text: string, file: string, maxDepth: number = DIALOGUE_LIMITS.nestingDepth): unknown {
  const body = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  if (body.trim() === '') invalid(`${file} is empty. Export the file again.`);
  if (nestingDepth(body, maxDepth) > maxDepth) {
    invalid(`${file} nests brackets more than ${maxDepth} levels deep, so it is not a file this app can read. Check that it is the right file.`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    invalid(`${file} is not valid JSON (${errorText(cause)}). Check the file for a missing comma, quote or bracket, or export it again.`, cause);
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// One record.

interface RecordContext {
  readonly file: string;
  readonly hasMedia: ((key: string) => boolean) | undefined;
  /** "test/conversations.json, record 12 (conversation_id 40)", once the id is known. */
  where(id?: string): string;
}

function displayId(id: string): string {
  return /^-?\d+$/.test(id) ? id : quoteForMessage(id, 40);
}

function recordWhere(file: string, index: number, line: number | undefined): (id?: string) => string {
  return (id) => {
    const notes: string[] = [];
    if (line !== undefined) notes.push(`line ${line}`);
    if (id !== undefined) notes.push(`conversation_id ${displayId(id)}`);
    return `${file}, record ${index}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  };
}

function readId(value: object, where: string): string {
  const raw = ownValue(value, 'conversation_id');
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw === 'string' && raw.trim() !== '' && raw.length <= DIALOGUE_LIMITS.idChars) return raw.trim();
  if (raw === undefined) invalid(`${where}: conversation_id is missing. Give each record a number or string "conversation_id".`);
  return invalid(
    `${where}: conversation_id is ${describeJson(raw)}${typeof raw === 'string' ? ` of ${formatCount(raw.length)} characters` : ''}; it must be a number or a non-empty string of at most ${DIALOGUE_LIMITS.idChars} characters.`,
  );
}

function checkMediaKey(raw: unknown, path: string, where: string, ctx: RecordContext, removeWhat: string): string {
  if (typeof raw !== 'string') invalid(`${where}: ${path} is ${describeJson(raw)}, not a media key string. ${ELEMENT_RULE}`);
  if (!isMediaKey(raw)) invalid(`${where}: ${path} ${quoteForMessage(raw)} is not a valid media key: ${MEDIA_KEY_RULE}. Rename the image and its key to match.`);
  if (ctx.hasMedia && !ctx.hasMedia(raw)) {
    const fileName = /\.(jpe?g|png|gif|webp|avif)$/i.test(raw) ? raw : `${raw}.jpg`;
    invalid(`${where}: ${path} refers to media key "${raw}", which is not in the dataset's images. Add ${fileName} next to ${baseName(ctx.file)} or remove ${removeWhat}.`);
  }
  return raw;
}

function checkText(raw: unknown, path: string, where: string, emptyAdvice: string): string {
  if (typeof raw !== 'string') invalid(`${where}: ${path} is ${describeJson(raw)}, not a string. Write the text as a JSON string in quotes.`);
  if (raw.length > DIALOGUE_LIMITS.textChars) {
    invalid(`${where}: ${path} is ${formatCount(raw.length)} characters long; the limit is ${formatCount(DIALOGUE_LIMITS.textChars)}. Shorten the text.`);
  }
  const text = raw.trim();
  if (text === '') invalid(`${where}: ${path} is empty. ${emptyAdvice}`);
  return text;
}

function readElement(raw: unknown, path: string, where: string, ctx: RecordContext): DialogueElement {
  if (!isPlainObject(raw)) invalid(`${where}: ${path} is ${describeJson(raw)}, not an object. ${ELEMENT_RULE}`);
  const hasText = Object.hasOwn(raw, '__TEXT__');
  const hasMediaKey = Object.hasOwn(raw, '__MEDIA__');
  if (hasText && hasMediaKey) invalid(`${where}: ${path} has both "__TEXT__" and "__MEDIA__". Split it into two elements, one for the text and one for the image.`);
  if (!hasText && !hasMediaKey) invalid(`${where}: ${path} has no "__TEXT__" or "__MEDIA__" key. ${ELEMENT_RULE}`);
  // Object.keys lists own keys only, "__proto__" included when JSON.parse made it a plain property.
  const extra = Object.keys(raw).find((key) => key !== '__TEXT__' && key !== '__MEDIA__');
  if (extra !== undefined) invalid(`${where}: ${path} has an unknown key ${quoteForMessage(extra)}. ${ELEMENT_RULE} Remove the other keys.`);
  if (hasText) {
    const text = checkText(ownValue(raw, '__TEXT__'), `${path}.__TEXT__`, where, 'Give the element some text or remove it.');
    return { kind: 'text', text };
  }
  return { kind: 'media', key: checkMediaKey(ownValue(raw, '__MEDIA__'), `${path}.__MEDIA__`, where, ctx, 'the element') };
}

function readTurn(raw: unknown, path: string, where: string, ctx: RecordContext): DialogueTurn {
  if (!isPlainObject(raw)) invalid(`${where}: ${path} is ${describeJson(raw)}, not an object. Each turn must be {"turn": [elements]}.`);
  const list = ownValue(raw, 'turn');
  if (list === undefined) invalid(`${where}: ${path} has no "turn" key. Each turn must be {"turn": [elements]}.`);
  if (!Array.isArray(list)) invalid(`${where}: ${path}.turn is ${describeJson(list)}, not an array. It must be a list of elements, [{"__TEXT__": ...}, {"__MEDIA__": ...}].`);
  if (list.length === 0) {
    invalid(`${where}: ${path}.turn is empty. Give the turn at least one text or image element, or remove the turn (the later turns then change speaker).`);
  }
  if (list.length > DIALOGUE_LIMITS.elementsPerTurn) {
    invalid(`${where}: ${path}.turn has ${formatCount(list.length)} elements; the limit is ${DIALOGUE_LIMITS.elementsPerTurn}. Shorten the message.`);
  }
  const elements: DialogueElement[] = [];
  for (let j = 0; j < list.length; j++) elements.push(readElement(list[j], `${path}.turn[${j}]`, where, ctx));
  return { elements };
}

function readNegatives(record: object, key: string, kind: 'text' | 'media', where: string, ctx: RecordContext): string[] | undefined {
  const raw = ownValue(record, key);
  // Python exports often write null for "no negatives" (the train split).
  if (raw === undefined || raw === null) return undefined;
  const what = kind === 'text' ? 'candidate texts' : 'media keys';
  if (!Array.isArray(raw)) invalid(`${where}: ${key} is ${describeJson(raw)}, not an array. Make it a list of ${what}, or remove it (only the valid and test splits have negatives).`);
  if (raw.length === 0) invalid(`${where}: ${key} is empty. List at least one of the ${what}, or remove the key.`);
  const out: string[] = [];
  for (let k = 0; k < raw.length; k++) {
    const path = `${key}[${k}]`;
    out.push(
      kind === 'text'
        ? checkText(raw[k], path, where, 'Remove it from the list or give it some text.')
        : checkMediaKey(raw[k], path, where, ctx, 'it from the list'),
    );
  }
  return out;
}

function readRecord(value: unknown, ctx: RecordContext): DialogueRecord {
  if (!isPlainObject(value)) {
    invalid(`${ctx.where()} is ${describeJson(value)}, not an object. Each record must be {"conversation_id": ..., "conversation": [turns]}.`);
  }
  const id = readId(value, ctx.where());
  const where = ctx.where(id);
  const conversation = ownValue(value, 'conversation');
  if (conversation === undefined) invalid(`${where}: conversation is missing. Each record needs "conversation": a list of turns, [{"turn": [...]}, ...].`);
  if (!Array.isArray(conversation)) invalid(`${where}: conversation is ${describeJson(conversation)}, not an array. It must be a list of turns, [{"turn": [...]}, ...].`);
  if (conversation.length === 0) invalid(`${where}: conversation is empty. A dialogue needs at least one turn; remove the record or add its turns.`);
  if (conversation.length > DIALOGUE_LIMITS.turnsPerDialogue) {
    invalid(`${where}: conversation has ${formatCount(conversation.length)} turns; the limit is ${DIALOGUE_LIMITS.turnsPerDialogue}. Split the dialogue into shorter ones.`);
  }
  const turns: DialogueTurn[] = [];
  for (let i = 0; i < conversation.length; i++) turns.push(readTurn(conversation[i], `conversation[${i}]`, where, ctx));
  const negativeMediaKeys = readNegatives(value, 'negative_candidate_media_keys', 'media', where, ctx);
  const negativeTexts = readNegatives(value, 'negative_candidate_texts', 'text', where, ctx);
  // Fresh object with known fields only: nothing from the input (say, a "__proto__" key) is copied over.
  const record: { id: string; turns: DialogueTurn[]; negativeTexts?: string[]; negativeMediaKeys?: string[] } = { id, turns };
  if (negativeTexts) record.negativeTexts = negativeTexts;
  if (negativeMediaKeys) record.negativeMediaKeys = negativeMediaKeys;
  return record;
}

/** Validates one already-parsed MMDialog record; `index` is its 0-based place in the file, for messages. */
export function readDialogueRecord(value: unknown, options: ConversationsOptions & { index?: number } = {}): DialogueRecord {
  const file = options.file ?? DEFAULT_FILE;
  return readRecord(value, { file, hasMedia: options.hasMedia, where: recordWhere(file, options.index ?? 0, undefined) });
}

// ---------------------------------------------------------------------------------------------
// Whole files, streamed.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const BOM = 0xfeff;

function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** 'start': nothing but whitespace yet; 'array': inside [ ... ]; 'lines': JSON Lines; 'closed': after the final ]. */
type ReaderMode = 'start' | 'array' | 'lines' | 'closed';

/**
 * Reads conversations.json piece by piece: either a JSON array of records or JSON Lines (one record a
 * line). Each record is cut out of the text by tracking strings, escapes and bracket depth, then parsed
 * and validated on its own, so a large split never has to be one string and errors name the record.
 * Records are numbered from 0, like array indexes.
 */
export class ConversationsReader {
  private readonly file: string;
  private readonly hasMedia: ((key: string) => boolean) | undefined;
  private readonly maxRecords: number;
  private readonly maxTotalChars: number;
  private mode: ReaderMode = 'start';
  private totalChars = 0;
  private line = 1;
  /** Records read so far, which is also the index of the next one. */
  private count = 0;
  private readonly indexOfId = new Map<string, number>();
  private failure: unknown = undefined;
  private ended = false;
  // The record being cut out.
  private inRecord = false;
  private parts: string[] = [];
  private recordLine = 1;
  private readonly openers: number[] = [];
  private inString = false;
  private escaped = false;
  /** Array mode: after "[" or ",", before the next record. */
  private expectRecord = true;

  constructor(options: ConversationsOptions = {}) {
    this.file = options.file ?? DEFAULT_FILE;
    this.hasMedia = options.hasMedia;
    this.maxRecords = options.maxRecords ?? DIALOGUE_LIMITS.records;
    this.maxTotalChars = options.maxTotalChars ?? DIALOGUE_LIMITS.totalChars;
  }

  /** Feeds the next piece of text; returns the records completed by it. */
  push(chunk: string): DialogueRecord[] {
    return this.guard(() => this.scan(chunk));
  }

  /** Says the text is complete; returns the last record of a JSON Lines file without a final newline. */
  end(): DialogueRecord[] {
    return this.guard(() => {
      this.ended = true;
      const out: DialogueRecord[] = [];
      if (this.mode === 'lines' && this.inRecord) this.finishRecord('', out, true);
      if (this.mode === 'start') invalid(`${this.file} is empty. It should hold a JSON array of dialogue records, or one record per line.`);
      if (this.mode === 'array') {
        if (this.inRecord) {
          invalid(`${this.file} ends in the middle of record ${this.count} (which starts on line ${this.recordLine}): the file is cut off or a closing bracket is missing. Copy or export the file again.`);
        }
        invalid(`${this.file} ends without the closing "]" of the record list (after record ${this.count - 1}): the file is cut off. Copy or export the file again.`);
      }
      if (this.count === 0) invalid(`${this.file} has no records. It should hold at least one dialogue.`);
      return out;
    });
  }

  /** Keeps the reader failed after its first error, so a caller cannot read on past a bad record. */
  private guard(step: () => DialogueRecord[]): DialogueRecord[] {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) throw new EngineError('invalid-input', `ConversationsReader for ${this.file} was already ended.`);
    try {
      return step();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  private scan(chunk: string): DialogueRecord[] {
    const out: DialogueRecord[] = [];
    const offset = this.totalChars;
    this.totalChars += chunk.length;
    if (this.totalChars > this.maxTotalChars) {
      invalid(`${this.file} is longer than ${formatCount(this.maxTotalChars)} characters, more than this app reads at once. Use a smaller split or fewer dialogues.`);
    }
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inRecord) {
        if (this.mode === 'lines' && c === NEWLINE) {
          // A JSON Lines record ends at its newline whatever else is open; JSON.parse reports the rest.
          this.finishRecord(chunk.slice(start, i), out);
        } else if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) this.inString = false;
        } else if (c === QUOTE) this.inString = true;
        else if (c === LBRACE || c === LBRACKET) {
          this.openers.push(c);
          if (this.openers.length > DIALOGUE_LIMITS.nestingDepth) {
            invalid(`${this.recordPlace()} nests brackets more than ${DIALOGUE_LIMITS.nestingDepth} levels deep; MMDialog records need 5. This is not a conversations file, or it is damaged.`);
          }
        } else if (c === RBRACE || c === RBRACKET) {
          const opener = this.openers.pop();
          if (opener === undefined) {
            if (this.mode === 'array' && c === RBRACKET) {
              // "]" right after a bare value such as [1, 2]: the value ends and so does the list.
              this.finishRecord(chunk.slice(start, i), out);
              this.mode = 'closed';
            } else invalid(`${this.recordPlace()} is not valid JSON: "${String.fromCharCode(c)}" on line ${this.line} closes a bracket that was never opened.`);
          } else if (opener !== (c === RBRACE ? LBRACE : LBRACKET)) {
            invalid(`${this.recordPlace()} is not valid JSON: "${String.fromCharCode(c)}" on line ${this.line} closes a "${String.fromCharCode(opener)}". Check the brackets of that record.`);
          } else if (this.openers.length === 0 && this.mode === 'array') {
            this.finishRecord(chunk.slice(start, i + 1), out);
            this.expectRecord = false;
          }
        } else if (c === COMMA && this.mode === 'array' && this.openers.length === 0) {
          this.finishRecord(chunk.slice(start, i), out);
          this.expectRecord = true;
        }
      } else if (isJsonWhitespace(c) || (c === BOM && offset + i === 0)) {
        // between records
      } else if (this.mode === 'start') {
        if (c === LBRACKET) this.mode = 'array';
        else if (c === LBRACE) {
          this.mode = 'lines';
          start = this.beginRecord(i);
          i--; // the "{" is read again, as the record's first character
          continue;
        } else {
          invalid(
            `${this.file} is neither a JSON array of records nor JSON Lines: it starts with ${quoteForMessage(chunk.slice(i, i + 20))}. It should be a list [{"conversation_id": ..., "conversation": [...]}, ...] or one such record per line.`,
          );
        }
      } else if (this.mode === 'array') {
        if (c === COMMA) {
          if (this.expectRecord) invalid(`${this.file} has an extra comma on line ${this.line}, before record ${this.count}. Remove it.`);
          this.expectRecord = true;
        } else if (c === RBRACKET) {
          if (this.expectRecord && this.count > 0) invalid(`${this.file} has a comma after the last record (line ${this.line}). Remove it; JSON does not allow trailing commas.`);
          this.mode = 'closed';
        } else {
          if (!this.expectRecord) invalid(`${this.file} is missing a comma between record ${this.count - 1} and record ${this.count} (line ${this.line}).`);
          start = this.beginRecord(i);
          i--;
          continue;
        }
      } else if (this.mode === 'lines') {
        start = this.beginRecord(i);
        i--;
        continue;
      } else {
        invalid(`${this.file} has more text after the closing "]" of the record list (line ${this.line}). Remove it, or put all records inside the list.`);
      }
      if (c === NEWLINE) this.line++;
    }
    if (this.inRecord) this.parts.push(chunk.slice(start));
    return out;
  }

  private beginRecord(at: number): number {
    if (this.count >= this.maxRecords) {
      invalid(`${this.file} has more than ${formatCount(this.maxRecords)} records, more than this app reads at once. Use a smaller split.`);
    }
    this.inRecord = true;
    this.recordLine = this.line;
    return at;
  }

  /** "test/conversations.json, record 3 (line 4)": where the record being read starts. */
  private recordPlace(): string {
    return `${this.file}, record ${this.count} (line ${this.recordLine})`;
  }

  private finishRecord(tail: string, out: DialogueRecord[], last = false): void {
    const text = this.parts.length > 0 ? this.parts.join('') + tail : tail;
    const place = this.recordPlace();
    this.parts = [];
    this.inRecord = false;
    this.openers.length = 0;
    this.inString = false;
    this.escaped = false;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (cause) {
      // The depth check above keeps RangeError (too deep) from happening; it is reported the same way if it does.
      const cutOff = last ? ' It is the last line, so the file may be cut off.' : '';
      invalid(`${place} is not valid JSON (${errorText(cause)}). Check that record for a missing comma, quote or bracket.${cutOff}`, cause);
    }
    const index = this.count;
    const record = readRecord(value, {
      file: this.file,
      hasMedia: this.hasMedia,
      where: recordWhere(this.file, index, this.mode === 'lines' ? this.recordLine : undefined),
    });
    const earlier = this.indexOfId.get(record.id);
    if (earlier !== undefined) {
      invalid(`${this.file}, record ${index}: conversation_id ${displayId(record.id)} is also the id of record ${earlier}. Give each dialogue its own id.`);
    }
    this.indexOfId.set(record.id, index);
    this.count++;
    out.push(record);
  }
}

/** Reads a whole conversations.json (JSON array or JSON Lines) held in one string. */
export function parseConversations(text: string, options: ConversationsOptions = {}): DialogueRecord[] {
  const reader = new ConversationsReader(options);
  const records = reader.push(text);
  for (const record of reader.end()) records.push(record);
  return records;
}

/** Reads conversations.json from its bytes, refusing files that are not UTF-8. */
export function parseConversationsBytes(bytes: Uint8Array, options: ConversationsOptions = {}): DialogueRecord[] {
  return parseConversations(decodeUtf8Strict(bytes, options.file ?? DEFAULT_FILE), options);
}

// ---------------------------------------------------------------------------------------------
// Writing back, speakers, statistics.

/** Writes a record the way MMDialog does, so an exported conversation reads back through parseConversations. */
export function toMmdialogRecord(record: DialogueRecord): MmdialogRecordJson {
  // MMDialog's ids are numbers; ids that came from numbers go back as numbers.
  const numeric = /^(0|[1-9]\d*)$/.test(record.id) && Number.isSafeInteger(Number(record.id));
  const out: MmdialogRecordJson = {
    conversation_id: numeric ? Number(record.id) : record.id,
    conversation: record.turns.map((turn) => ({
      turn: turn.elements.map((element): MmdialogElementJson => (element.kind === 'text' ? { __TEXT__: element.text } : { __MEDIA__: element.key })),
    })),
  };
  if (record.negativeMediaKeys) out.negative_candidate_media_keys = [...record.negativeMediaKeys];
  if (record.negativeTexts) out.negative_candidate_texts = [...record.negativeTexts];
  return out;
}

/** Turn 0 is speaker A, turn 1 speaker B, and so on. */
export function speakerOf(turnIndex: number): DialogueSpeaker {
  if (!Number.isInteger(turnIndex) || turnIndex < 0) throw new EngineError('invalid-input', `speakerOf: turn index ${turnIndex} is not a whole number >= 0.`);
  return turnIndex % 2 === 0 ? 'A' : 'B';
}

export interface DialogueStats {
  dialogues: number;
  turns: number;
  /** Turns with at least one image element. */
  turnsWithImage: number;
  elements: { text: number; media: number };
  /** 0 when there are no dialogues. */
  minTurns: number;
  maxTurns: number;
}

export function dialogueStats(records: readonly DialogueRecord[]): DialogueStats {
  const stats: DialogueStats = { dialogues: records.length, turns: 0, turnsWithImage: 0, elements: { text: 0, media: 0 }, minTurns: 0, maxTurns: 0 };
  records.forEach((record, index) => {
    const n = record.turns.length;
    stats.turns += n;
    stats.minTurns = index === 0 ? n : Math.min(stats.minTurns, n);
    stats.maxTurns = Math.max(stats.maxTurns, n);
    for (const turn of record.turns) {
      let image = false;
      for (const element of turn.elements) {
        stats.elements[element.kind]++;
        if (element.kind === 'media') image = true;
      }
      if (image) stats.turnsWithImage++;
    }
  });
  return stats;
}
