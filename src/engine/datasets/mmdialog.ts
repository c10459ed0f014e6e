import { EngineError } from '../errors';
import { JsonRecordStream, type RecordPlace, type RecordStreamWording, readWholeJsonArray } from './jsonRecordStream';
import {
  JSON_NESTING_LIMIT,
  MEDIA_KEY_RULE,
  decodeUtf8Strict,
  describeJson,
  formatCount,
  invalid,
  isMediaKey,
  isPlainObject,
  ownValue,
  quoteForMessage,
} from './validation';

/**
 * The MMDialog reader: conversations.json as a JSON array of records or as JSON Lines, each record
 * checked against MMDialog's shape (conversation_id, turns of text and media elements, negatives) with
 * a message that names the record and says what to change. Writing records back: mmdialogExport.ts.
 */

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
  nestingDepth: JSON_NESTING_LIMIT,
  idChars: 200,
  records: 100_000,
  totalChars: 1_000_000_000,
} as const;

const DEFAULT_FILE = 'conversations.json';
const ELEMENT_RULE = 'Each element must be {"__TEXT__": string} or {"__MEDIA__": media key}.';

// ---------------------------------------------------------------------------------------------
// One record.

function baseName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1) || file;
}

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
  if (!isMediaKey(raw))
    invalid(`${where}: ${path} ${quoteForMessage(raw)} is not a valid media key: ${MEDIA_KEY_RULE}. Rename the image and its key to match.`);
  if (ctx.hasMedia && !ctx.hasMedia(raw)) {
    const fileName = /\.(jpe?g|png|gif|webp|avif)$/i.test(raw) ? raw : `${raw}.jpg`;
    invalid(
      `${where}: ${path} refers to media key "${raw}", which is not in the dataset's images. Add ${fileName} next to ${baseName(ctx.file)} or remove ${removeWhat}.`,
    );
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
  if (hasText && hasMediaKey)
    invalid(`${where}: ${path} has both "__TEXT__" and "__MEDIA__". Split it into two elements, one for the text and one for the image.`);
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
  if (!Array.isArray(list))
    invalid(`${where}: ${path}.turn is ${describeJson(list)}, not an array. It must be a list of elements, [{"__TEXT__": ...}, {"__MEDIA__": ...}].`);
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
  if (!Array.isArray(raw))
    invalid(`${where}: ${key} is ${describeJson(raw)}, not an array. Make it a list of ${what}, or remove it (only the valid and test splits have negatives).`);
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
  if (!Array.isArray(conversation))
    invalid(`${where}: conversation is ${describeJson(conversation)}, not an array. It must be a list of turns, [{"turn": [...]}, ...].`);
  if (conversation.length === 0) invalid(`${where}: conversation is empty. A dialogue needs at least one turn; remove the record or add its turns.`);
  if (conversation.length > DIALOGUE_LIMITS.turnsPerDialogue) {
    invalid(
      `${where}: conversation has ${formatCount(conversation.length)} turns; the limit is ${DIALOGUE_LIMITS.turnsPerDialogue}. Split the dialogue into shorter ones.`,
    );
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

const CONVERSATIONS_WORDING: RecordStreamWording = {
  readerName: 'ConversationsReader',
  whenEmpty: 'It should hold a JSON array of dialogue records, or one record per line.',
  whenNoRecords: 'It should hold at least one dialogue.',
  whenTooLong: 'Use a smaller split or fewer dialogues.',
  expectedShape: 'It should be a list [{"conversation_id": ..., "conversation": [...]}, ...] or one such record per line.',
  whenTooDeep: 'MMDialog records need 5. This is not a conversations file, or it is damaged.',
};

/**
 * Reads conversations.json piece by piece (see JsonRecordStream), so a large split never has to be one
 * string; each record is validated on its own and no two may share a conversation_id. Records are
 * numbered from 0, like array indexes.
 */
export class ConversationsReader {
  private readonly stream: JsonRecordStream<DialogueRecord>;
  private readonly indexOfId = new Map<string, number>();

  private readonly limits: { maxRecords: number; maxTotalChars: number; maxDepth: number };
  private readonly read: (value: unknown, place: RecordPlace) => DialogueRecord;

  constructor(options: ConversationsOptions = {}) {
    const file = options.file ?? DEFAULT_FILE;
    const hasMedia = options.hasMedia;
    this.limits = {
      maxRecords: options.maxRecords ?? DIALOGUE_LIMITS.records,
      maxTotalChars: options.maxTotalChars ?? DIALOGUE_LIMITS.totalChars,
      maxDepth: DIALOGUE_LIMITS.nestingDepth,
    };
    this.read = (value, place) => this.readUnique(value, place, file, hasMedia);
    this.stream = new JsonRecordStream({ file, ...this.limits, wording: CONVERSATIONS_WORDING, read: this.read });
  }

  /**
   * The whole text at once, when it is a JSON array every record of which is fine (readWholeJsonArray);
   * null otherwise, and this reader is then spent: stream the text with a new one for the message.
   */
  readWhole(text: string): DialogueRecord[] | null {
    return readWholeJsonArray(text, this.limits, this.read);
  }

  /** Feeds the next piece of text; returns the records completed by it. */
  push(chunk: string): DialogueRecord[] {
    return this.stream.push(chunk);
  }

  /** Says the text is complete; returns the last record of a JSON Lines file without a final newline. */
  end(): DialogueRecord[] {
    return this.stream.end();
  }

  private readUnique(value: unknown, place: RecordPlace, file: string, hasMedia: ((key: string) => boolean) | undefined): DialogueRecord {
    const record = readRecord(value, { file, hasMedia, where: recordWhere(file, place.index, place.line) });
    const earlier = this.indexOfId.get(record.id);
    if (earlier !== undefined) {
      invalid(`${file}, record ${place.index}: conversation_id ${displayId(record.id)} is also the id of record ${earlier}. Give each dialogue its own id.`);
    }
    this.indexOfId.set(record.id, place.index);
    return record;
  }
}

/** Reads a whole conversations.json (JSON array or JSON Lines) held in one string. */
export function parseConversations(text: string, options: ConversationsOptions = {}): DialogueRecord[] {
  const whole = new ConversationsReader(options).readWhole(text);
  if (whole) return whole;
  const reader = new ConversationsReader(options);
  const records = reader.push(text);
  for (const record of reader.end()) records.push(record);
  return records;
}

/** Reads conversations.json from its bytes, refusing files that are not UTF-8. */
export function parseConversationsBytes(bytes: Uint8Array, options: ConversationsOptions = {}): DialogueRecord[] {
  return parseConversations(decodeUtf8Strict(bytes, options.file ?? DEFAULT_FILE), options);
}

/** Turn 0 is speaker A, turn 1 speaker B, and so on. */
export function speakerOf(turnIndex: number): DialogueSpeaker {
  if (!Number.isInteger(turnIndex) || turnIndex < 0) throw new EngineError('invalid-input', `speakerOf: turn index ${turnIndex} is not a whole number >= 0.`);
  return turnIndex % 2 === 0 ? 'A' : 'B';
}

/**
 * A line that tells dialogues apart in a list: the first turn's text, or, when it opens with photos
 * alone, a camera and the first text that follows (else the list would show an empty title).
 */
export function dialoguePreview(record: DialogueRecord, maxLength = 80): string {
  const textsOf = (turn: DialogueTurn) => turn.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []));
  const first = textsOf(record.turns[0] ?? { elements: [] })
    .join(' ')
    .trim();
  if (first !== '') return first.slice(0, maxLength);
  const later = record.turns.map((t) => textsOf(t).join(' ').trim()).find((t) => t !== '');
  return (later ? `📷 … ${later}` : `📷 ${record.turns.length === 1 ? 'a photo' : 'photos only'}`).slice(0, maxLength);
}
