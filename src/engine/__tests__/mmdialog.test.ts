import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import {
  ConversationsReader,
  dialoguePreview,
  parseConversations,
  parseConversationsBytes,
  readDialogueRecord,
  speakerOf,
  type DialogueRecord,
} from '../datasets/mmdialog';
import { dialogueStats, toMmdialogRecord } from '../datasets/mmdialogExport';
import { decodeUtf8Strict, parseJsonDocument } from '../datasets/validation';

type JsonObject = { [key: string]: unknown };

const FILE = 'test/conversations.json';

/**
 * Three records the way MMDialog writes them. The texts hold brackets, quotes, backslashes (one at the
 * very end of a string) and non-ASCII, so that cutting records out of the text is really exercised.
 */
const RECORDS: JsonObject[] = [
  {
    conversation_id: 0,
    conversation: [
      { turn: [{ __TEXT__: 'Just got back from Kyoto! The temples were unreal.' }, { __MEDIA__: 'kyoto_temple.jpg' }] },
      { turn: [{ __TEXT__: 'Wow, that gate is so bright. Was it crowded?' }] },
      { turn: [{ __MEDIA__: 'crowd_01' }, { __TEXT__: 'Packed at noon [ugh], empty at 7am {worth it}' }] },
    ],
  },
  {
    conversation_id: 40,
    conversation: [
      { turn: [{ __TEXT__: 'Look what my cat did to the sofa 😾' }, { __MEDIA__: 'cat-sofa' }] },
      { turn: [{ __TEXT__: 'She said "no regrets", clearly.' }] },
      { turn: [{ __TEXT__: 'The backup is on C:\\' }, { __TEXT__: 'Café later?' }] },
    ],
    negative_candidate_media_keys: ['neg-0001', 'neg-0002', 'beach_sunset'],
    negative_candidate_texts: ['I prefer tea.', 'Not a "cat" person \\ sorry', 'See you at 8 ☕'],
  },
  {
    conversation_id: 'user-7',
    conversation: [{ turn: [{ __MEDIA__: 'beach_sunset' }] }, { turn: [{ __TEXT__: 'Gorgeous. Where is that?' }] }],
    // MMDialog may add fields; they are ignored.
    source_split: 'test',
  },
];

const TEXT = JSON.stringify(RECORDS, null, 2);
const MEDIA = new Set(['kyoto_temple.jpg', 'crowd_01', 'cat-sofa', 'neg-0001', 'neg-0002', 'beach_sunset']);

const EXPECTED: DialogueRecord[] = [
  {
    id: '0',
    turns: [
      {
        elements: [
          { kind: 'text', text: 'Just got back from Kyoto! The temples were unreal.' },
          { kind: 'media', key: 'kyoto_temple.jpg' },
        ],
      },
      { elements: [{ kind: 'text', text: 'Wow, that gate is so bright. Was it crowded?' }] },
      {
        elements: [
          { kind: 'media', key: 'crowd_01' },
          { kind: 'text', text: 'Packed at noon [ugh], empty at 7am {worth it}' },
        ],
      },
    ],
  },
  {
    id: '40',
    turns: [
      {
        elements: [
          { kind: 'text', text: 'Look what my cat did to the sofa 😾' },
          { kind: 'media', key: 'cat-sofa' },
        ],
      },
      { elements: [{ kind: 'text', text: 'She said "no regrets", clearly.' }] },
      {
        elements: [
          { kind: 'text', text: 'The backup is on C:\\' },
          { kind: 'text', text: 'Café later?' },
        ],
      },
    ],
    negativeMediaKeys: ['neg-0001', 'neg-0002', 'beach_sunset'],
    negativeTexts: ['I prefer tea.', 'Not a "cat" person \\ sorry', 'See you at 8 ☕'],
  },
  {
    id: 'user-7',
    turns: [{ elements: [{ kind: 'media', key: 'beach_sunset' }] }, { elements: [{ kind: 'text', text: 'Gorgeous. Where is that?' }] }],
  },
];

function clone(): JsonObject[] {
  return JSON.parse(JSON.stringify(RECORDS)) as JsonObject[];
}
const turnsOf = (record: JsonObject): JsonObject[] => record['conversation'] as JsonObject[];
const elementsOf = (record: JsonObject, turn: number): unknown[] => turnsOf(record)[turn]!['turn'] as unknown[];

/** The file with record 1 (conversation_id 40) changed. */
function withRecord1(edit: (record: JsonObject) => void): string {
  const records = clone();
  edit(records[1]!);
  return JSON.stringify(records);
}

/** Runs `read` and returns the EngineError it must throw. */
function failure(read: () => unknown): EngineError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('dataset-invalid');
    return error as EngineError;
  }
  throw new Error('expected the input to be rejected');
}

const parse = (text: string, hasMedia?: (key: string) => boolean): DialogueRecord[] =>
  parseConversations(text, hasMedia ? { file: FILE, hasMedia } : { file: FILE });
const messageFor = (text: string, hasMedia?: (key: string) => boolean): string => failure(() => parse(text, hasMedia)).message;

const RECORD_1 = `${FILE}, record 1 (conversation_id 40)`;

function readInChunks(text: string, size: number, options = { file: FILE }): DialogueRecord[] {
  const reader = new ConversationsReader(options);
  const records: DialogueRecord[] = [];
  for (let at = 0; at < text.length; at += size) records.push(...reader.push(text.slice(at, at + size)));
  records.push(...reader.end());
  return records;
}

describe('MMDialog conversations: valid input', () => {
  it('reads a small dataset with and without negatives, checking media keys against the images', () => {
    const asked: string[] = [];
    const records = parse(TEXT, (key) => {
      asked.push(key);
      return MEDIA.has(key);
    });
    expect(records).toEqual(EXPECTED);
    expect(records[2]).not.toHaveProperty('negativeTexts');
    expect(asked).toContain('neg-0002');
  });

  it('reads JSON Lines with blank lines, CRLF endings, a BOM and no final newline', () => {
    const lines = '\uFEFF' + RECORDS.map((r) => JSON.stringify(r)).join('\r\n\r\n  \n');
    expect(parseConversations(lines, { file: 'train.jsonl' })).toEqual(EXPECTED);
  });

  it('names the line in JSON Lines messages', () => {
    const lines = ['', ...clone().map((r) => JSON.stringify(r))];
    const last = JSON.parse(lines[3]!) as JsonObject;
    elementsOf(last, 1)[0] = { __TEXT__: '' };
    lines[3] = JSON.stringify(last);
    expect(failure(() => parseConversations(lines.join('\n'), { file: 'train.jsonl' })).message).toBe(
      'train.jsonl, record 2 (line 4, conversation_id "user-7"): conversation[1].turn[0].__TEXT__ is empty. Give the element some text or remove it.',
    );
  });

  it('gives the same records when the file arrives in chunks of 1, 7 or 4096 characters', () => {
    const whole = parse(TEXT);
    for (const size of [1, 7, 4096]) expect(readInChunks(TEXT, size)).toEqual(whole);
    const lines = RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n';
    for (const size of [1, 7, 4096]) expect(readInChunks(lines, size)).toEqual(whole);
  });

  it('hands each record over as soon as it is complete', () => {
    const reader = new ConversationsReader({ file: FILE });
    const first = JSON.stringify(RECORDS[0]);
    expect(reader.push('[' + first.slice(0, 20))).toEqual([]);
    expect(reader.push(first.slice(20) + ', ')).toEqual([EXPECTED[0]]);
    expect(reader.push(JSON.stringify(RECORDS[1]) + ',' + JSON.stringify(RECORDS[2]).slice(0, -1))).toEqual([EXPECTED[1]]);
    expect(reader.push('}]\n')).toEqual([EXPECTED[2]]);
    expect(reader.end()).toEqual([]);
    expect(() => reader.push('[]')).toThrow(`ConversationsReader for ${FILE} was already ended.`);
  });

  it('stays failed after a bad record, so nothing past it is read', () => {
    const reader = new ConversationsReader({ file: FILE });
    const duplicate = JSON.stringify(RECORDS[0]);
    expect(() => reader.push(`[${duplicate},\n${duplicate},`)).toThrow(`${FILE}, record 1: conversation_id 0 is also the id of record 0.`);
    expect(() => reader.push(`${JSON.stringify(RECORDS[1])}]`)).toThrow('is also the id of record 0');
    expect(() => reader.end()).toThrow('is also the id of record 0');
  });

  it('reports the same error whatever the chunk size', () => {
    const bad = withRecord1((r) => (elementsOf(r, 2)[1] = { __MEDIA__: 'a/b' }));
    const expected = messageFor(bad);
    expect(expected).toContain(`${RECORD_1}: conversation[2].turn[1].__MEDIA__ "a/b" is not a valid media key`);
    for (const size of [1, 7, 4096]) expect(failure(() => readInChunks(bad, size)).message).toBe(expected);
  });

  it('stays failed after an error', () => {
    const reader = new ConversationsReader({ file: FILE });
    const first = failure(() => reader.push('[1,'));
    expect(failure(() => reader.push('{}]'))).toBe(first);
  });

  it('round-trips through toMmdialogRecord', () => {
    const records = parse(TEXT);
    const exported = records.map(toMmdialogRecord);
    expect(Object.keys(exported[1]!)).toEqual(['conversation_id', 'conversation', 'negative_candidate_media_keys', 'negative_candidate_texts']);
    expect(Object.keys(exported[2]!)).toEqual(['conversation_id', 'conversation']);
    // Numeric ids go back as numbers, as MMDialog writes them.
    expect(exported[0]).toEqual(RECORDS[0]);
    expect(exported[1]).toEqual(RECORDS[1]);
    expect(exported[2]!.conversation_id).toBe('user-7');
    expect(parse(JSON.stringify(exported))).toEqual(records);
    expect(parse(exported.map((r) => JSON.stringify(r)).join('\n'))).toEqual(records);
  });

  it('validates a single parsed record', () => {
    expect(readDialogueRecord(RECORDS[2], { file: FILE, index: 2 })).toEqual(EXPECTED[2]);
    expect(failure(() => readDialogueRecord({ conversation_id: 5 }, { file: FILE, index: 9 })).message).toContain(
      `${FILE}, record 9 (conversation_id 5): conversation is missing.`,
    );
  });

  it('says who speaks each turn and counts what the dialogues hold', () => {
    expect([0, 1, 2, 3].map(speakerOf)).toEqual(['A', 'B', 'A', 'B']);
    expect(() => speakerOf(-1)).toThrow(EngineError);
    expect(dialogueStats(EXPECTED)).toEqual({
      dialogues: 3,
      turns: 8,
      turnsWithImage: 4,
      elements: { text: 8, media: 4 },
      minTurns: 2,
      maxTurns: 3,
    });
    expect(dialogueStats([])).toEqual({ dialogues: 0, turns: 0, turnsWithImage: 0, elements: { text: 0, media: 0 }, minTurns: 0, maxTurns: 0 });
  });
});

describe('MMDialog conversations: malformed input', () => {
  it('rejects a record without a conversation', () => {
    expect(messageFor(withRecord1((r) => delete r['conversation']))).toBe(
      `${RECORD_1}: conversation is missing. Each record needs "conversation": a list of turns, [{"turn": [...]}, ...].`,
    );
  });

  it('rejects a conversation that is not an array, or is empty', () => {
    expect(messageFor(withRecord1((r) => (r['conversation'] = 'hello')))).toContain(`${RECORD_1}: conversation is a string, not an array.`);
    expect(messageFor(withRecord1((r) => (r['conversation'] = [])))).toContain(`${RECORD_1}: conversation is empty.`);
  });

  it('rejects a turn that is not an object or whose "turn" is not an array', () => {
    expect(messageFor(withRecord1((r) => (turnsOf(r)[1]!['turn'] = { __TEXT__: 'hi' })))).toContain(
      `${RECORD_1}: conversation[1].turn is an object, not an array.`,
    );
    expect(messageFor(withRecord1((r) => (turnsOf(r)[0] = [{ __TEXT__: 'hi' }] as unknown as JsonObject)))).toContain(
      `${RECORD_1}: conversation[0] is an array, not an object. Each turn must be {"turn": [elements]}.`,
    );
    expect(messageFor(withRecord1((r) => (turnsOf(r)[0] = { text: 'hi' })))).toContain(`${RECORD_1}: conversation[0] has no "turn" key.`);
  });

  it('rejects an empty turn', () => {
    expect(messageFor(withRecord1((r) => (turnsOf(r)[2]!['turn'] = [])))).toBe(
      `${RECORD_1}: conversation[2].turn is empty. Give the turn at least one text or image element, or remove the turn (the later turns then change speaker).`,
    );
  });

  it('rejects an element with both keys', () => {
    expect(messageFor(withRecord1((r) => (elementsOf(r, 0)[1] = { __TEXT__: 'look', __MEDIA__: 'cat-sofa' })))).toContain(
      `${RECORD_1}: conversation[0].turn[1] has both "__TEXT__" and "__MEDIA__". Split it into two elements`,
    );
  });

  it('rejects an element with no known key, or with an extra key', () => {
    expect(messageFor(withRecord1((r) => (elementsOf(r, 2)[0] = { text: 'hi' })))).toBe(
      `${RECORD_1}: conversation[2].turn[0] has no "__TEXT__" or "__MEDIA__" key. Each element must be {"__TEXT__": string} or {"__MEDIA__": media key}.`,
    );
    expect(messageFor(withRecord1((r) => (elementsOf(r, 1)[0] = { __TEXT__: 'hi', lang: 'en' })))).toContain(
      `${RECORD_1}: conversation[1].turn[0] has an unknown key "lang".`,
    );
    expect(messageFor(withRecord1((r) => (elementsOf(r, 1)[0] = 'hi')))).toContain(`${RECORD_1}: conversation[1].turn[0] is a string, not an object.`);
  });

  it('rejects __TEXT__ that is not a string, or blank', () => {
    expect(messageFor(withRecord1((r) => (elementsOf(r, 0)[0] = { __TEXT__: 42 })))).toContain(
      `${RECORD_1}: conversation[0].turn[0].__TEXT__ is a number, not a string.`,
    );
    expect(messageFor(withRecord1((r) => (elementsOf(r, 0)[0] = { __TEXT__: '  \n ' })))).toContain(`${RECORD_1}: conversation[0].turn[0].__TEXT__ is empty.`);
  });

  it("rejects a media key that is not among the dataset's images", () => {
    const without = (key: string) => (k: string) => k !== key && MEDIA.has(k);
    expect(messageFor(TEXT, without('cat-sofa'))).toBe(
      `${RECORD_1}: conversation[0].turn[1].__MEDIA__ refers to media key "cat-sofa", which is not in the dataset's images. Add cat-sofa.jpg next to conversations.json or remove the element.`,
    );
    // A key that is already a file name is not given a second extension.
    expect(messageFor(TEXT, without('kyoto_temple.jpg'))).toContain('Add kyoto_temple.jpg next to conversations.json');
    expect(messageFor(TEXT, without('neg-0002'))).toContain(`${RECORD_1}: negative_candidate_media_keys[1] refers to media key "neg-0002"`);
  });

  it('rejects a 10 MB message, giving its length and the limit', () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const message = messageFor(withRecord1((r) => (elementsOf(r, 1)[0] = { __TEXT__: huge })));
    expect(message).toBe(`${RECORD_1}: conversation[1].turn[0].__TEXT__ is 10,485,760 characters long; the limit is 4,000. Shorten the text.`);
  });

  it('rejects bytes that are not UTF-8, giving the offset of the first bad byte', () => {
    const bytes = new TextEncoder().encode(TEXT);
    const broken = new Uint8Array(bytes);
    broken[1234] = 0xff;
    expect(failure(() => parseConversationsBytes(broken, { file: FILE })).message).toBe(
      `${FILE} is not UTF-8: byte 1234 (0xff) is invalid. Save the file as UTF-8.`,
    );
    expect(parseConversationsBytes(bytes, { file: FILE })).toEqual(EXPECTED);
  });

  it('rejects deeply nested junk without crashing', () => {
    expect(messageFor('['.repeat(100_000))).toBe(
      `${FILE}, record 0 (line 1) nests brackets more than 64 levels deep; MMDialog records need 5. This is not a conversations file, or it is damaged.`,
    );
    expect(messageFor(`[${JSON.stringify(RECORDS[0])},\n{"conversation": ${'['.repeat(100_000)}`)).toContain(
      `${FILE}, record 1 (line 2) nests brackets more than 64 levels deep`,
    );
    expect(messageFor('{"conversation_id": 1, "x": ' + '{"a": '.repeat(100_000))).toContain(`${FILE}, record 0 (line 1) nests brackets`);
    expect(failure(() => parseJsonDocument('['.repeat(100_000) + ']'.repeat(100_000), 'media.json')).message).toContain(
      'media.json nests brackets more than 64 levels deep',
    );
  });

  it('rejects negatives that are not arrays of strings', () => {
    expect(messageFor(withRecord1((r) => (r['negative_candidate_texts'] = 'I prefer tea.')))).toContain(
      `${RECORD_1}: negative_candidate_texts is a string, not an array.`,
    );
    expect(messageFor(withRecord1((r) => (r['negative_candidate_media_keys'] = [7, 8])))).toContain(
      `${RECORD_1}: negative_candidate_media_keys[0] is a number, not a media key string.`,
    );
    expect(messageFor(withRecord1((r) => (r['negative_candidate_texts'] = ['fine', { text: 'no' }])))).toContain(
      `${RECORD_1}: negative_candidate_texts[1] is an object, not a string.`,
    );
    expect(messageFor(withRecord1((r) => (r['negative_candidate_texts'] = [])))).toContain(`${RECORD_1}: negative_candidate_texts is empty.`);
    // null reads as "no negatives", as Python exports write it.
    expect(parse(withRecord1((r) => (r['negative_candidate_texts'] = null)))[1]).not.toHaveProperty('negativeTexts');
  });

  it('rejects media keys that are paths', () => {
    expect(messageFor(withRecord1((r) => (elementsOf(r, 0)[1] = { __MEDIA__: '../../etc/passwd' })))).toContain(
      `${RECORD_1}: conversation[0].turn[1].__MEDIA__ "../../etc/passwd" is not a valid media key`,
    );
    for (const key of ['..', '.hidden', 'a/b', 'a\\b', '/abs', 'with space', '', 'k'.repeat(129)]) {
      expect(messageFor(withRecord1((r) => (r['negative_candidate_media_keys'] = ['neg-0001', key])))).toContain(
        `${RECORD_1}: negative_candidate_media_keys[1] ${JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key)} is not a valid media key`,
      );
    }
  });

  it('rejects top-level JSON that is neither an array of records nor JSON Lines', () => {
    for (const text of ['"conversations"', '42', 'null', 'true', 'conversation_id,conversation']) {
      expect(messageFor(text)).toContain(`${FILE} is neither a JSON array of records nor JSON Lines`);
    }
    expect(messageFor('')).toContain(`${FILE} is empty.`);
    expect(messageFor(' [ ] ')).toContain(`${FILE} has no records.`);
    expect(messageFor('[1, 2]')).toBe(`${FILE}, record 0 is a number, not an object. Each record must be {"conversation_id": ..., "conversation": [turns]}.`);
  });

  it('rejects truncated JSON', () => {
    const cut = TEXT.indexOf('She said');
    expect(messageFor(TEXT.slice(0, cut))).toBe(
      `${FILE} ends in the middle of record 1 (which starts on line 34): the file is cut off or a closing bracket is missing. Copy or export the file again.`,
    );
    expect(messageFor(TEXT.slice(0, TEXT.lastIndexOf(']')))).toContain(`${FILE} ends without the closing "]" of the record list (after record 2)`);
    const lines = RECORDS.map((r) => JSON.stringify(r)).join('\n');
    expect(messageFor(lines.slice(0, -30))).toMatch(/^test\/conversations\.json, record 2 \(line 3\) is not valid JSON \(.+\)\. .* the file may be cut off\.$/);
  });

  it('names the record and line of a syntax error', () => {
    const bad = TEXT.replace('"Wow, that gate', '"Wow, that gate" x "');
    expect(messageFor(bad)).toMatch(/^test\/conversations\.json, record 0 \(line 2\) is not valid JSON \(/);
    const teaLine = TEXT.slice(0, TEXT.indexOf('"I prefer tea."')).split('\n').length;
    expect(messageFor(TEXT.replace('"I prefer tea."', '"I prefer tea."}'))).toBe(
      `${FILE}, record 1 (line 34) is not valid JSON: "}" on line ${teaLine} closes a "[". Check the brackets of that record.`,
    );
    expect(messageFor(`[${JSON.stringify(RECORDS[0])},,${JSON.stringify(RECORDS[1])}]`)).toContain(`${FILE} has an extra comma on line 1, before record 1.`);
    expect(messageFor(`[${JSON.stringify(RECORDS[0])},]`)).toContain(`${FILE} has a comma after the last record`);
    expect(messageFor(`[${JSON.stringify(RECORDS[0])} ${JSON.stringify(RECORDS[1])}]`)).toContain(`${FILE} is missing a comma between record 0 and record 1`);
    expect(messageFor(`[${JSON.stringify(RECORDS[0])}]\n]`)).toContain(`${FILE} has more text after the closing "]" of the record list (line 2).`);
  });

  it('rejects a missing or odd conversation_id and repeated ids', () => {
    expect(messageFor(withRecord1((r) => delete r['conversation_id']))).toContain(`${FILE}, record 1: conversation_id is missing.`);
    expect(messageFor(withRecord1((r) => (r['conversation_id'] = [40])))).toContain(`${FILE}, record 1: conversation_id is an array;`);
    expect(messageFor(withRecord1((r) => (r['conversation_id'] = 'user-7')))).toContain(
      `${FILE}, record 2: conversation_id "user-7" is also the id of record 1. Give each dialogue its own id.`,
    );
  });

  it('enforces the limits on turns, elements, records and characters', () => {
    const turns = Array.from({ length: 201 }, (_, i) => ({ turn: [{ __TEXT__: `turn ${i}` }] }));
    expect(messageFor(withRecord1((r) => (r['conversation'] = turns)))).toContain(`${RECORD_1}: conversation has 201 turns; the limit is 200.`);
    const elements = Array.from({ length: 65 }, () => ({ __TEXT__: 'ha' }));
    expect(messageFor(withRecord1((r) => (turnsOf(r)[0]!['turn'] = elements)))).toContain(
      `${RECORD_1}: conversation[0].turn has 65 elements; the limit is 64.`,
    );
    expect(failure(() => parseConversations(TEXT, { file: FILE, maxRecords: 2 })).message).toContain(`${FILE} has more than 2 records`);
    expect(failure(() => parseConversations(TEXT, { file: FILE, maxTotalChars: 100 })).message).toContain(`${FILE} is longer than 100 characters`);
  });
});

describe('prototype pollution', () => {
  it('ignores "__proto__", "constructor" and "prototype" in records and refuses them in elements', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const text = `[
      {"conversation_id": 1, "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": {"polluted": true},
       "conversation": [{"__proto__": {"polluted": true}, "turn": [{"__TEXT__": "hi"}]}]}
    ]`;
    const records = parseConversations(text, { file: FILE });
    expect(records).toEqual([{ id: '1', turns: [{ elements: [{ kind: 'text', text: 'hi' }] }] }]);
    expect(Object.keys(records[0]!)).toEqual(['id', 'turns']);
    expect(Object.getPrototypeOf(records[0])).toBe(Object.prototype);
    expect(Object.getPrototypeOf(records[0]!.turns[0]!.elements[0])).toBe(Object.prototype);

    const element = (inner: string) => `{"conversation_id": 2, "conversation": [{"turn": [${inner}]}]}\n`;
    expect(messageFor(element('{"__TEXT__": "hi", "__proto__": {"polluted": true}}'))).toContain('conversation[0].turn[0] has an unknown key "__proto__"');
    expect(messageFor(element('{"__TEXT__": "hi", "constructor": {"prototype": {"polluted": true}}}'))).toContain(
      'conversation[0].turn[0] has an unknown key "constructor"',
    );
    // A key reached only through the prototype never counts.
    expect(messageFor(element('{"__proto__": {"__TEXT__": "sneaky", "polluted": true}}'))).toContain(
      'conversation[0].turn[0] has no "__TEXT__" or "__MEDIA__" key',
    );
    const crafted = { conversation_id: 3, __proto__: { conversation: [{ turn: [{ __TEXT__: 'inherited' }] }] } };
    expect(failure(() => readDialogueRecord(crafted)).message).toContain('is an object with an unusual prototype, not an object');

    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>)['constructor']).toBe(Object);
  });
});

describe('decodeUtf8Strict', () => {
  const bytes = (...values: number[]) => new Uint8Array(values);

  it('decodes UTF-8 and drops one leading BOM', () => {
    expect(decodeUtf8Strict(new TextEncoder().encode('Café ☕ 😾'), 'a.json')).toBe('Café ☕ 😾');
    expect(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x61), 'a.json')).toBe('a');
    expect(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x61), 'a.json')).toBe('\uFEFFa');
    expect(decodeUtf8Strict(bytes(), 'a.json')).toBe('');
  });

  it('gives the offset of the first byte that is not UTF-8', () => {
    const cases: [Uint8Array, number, string][] = [
      [bytes(0x63, 0x61, 0x66, 0xe9, 0x21), 3, 'e9'], // Latin-1 "café!"
      [bytes(0x61, 0x80), 1, '80'], // stray continuation byte
      [bytes(0xc0, 0x80), 0, 'c0'], // overlong NUL
      [bytes(0x61, 0xe0, 0x80, 0x80), 1, 'e0'], // overlong 3-byte form
      [bytes(0xed, 0xa0, 0x80), 0, 'ed'], // UTF-16 surrogate
      [bytes(0xf4, 0x90, 0x80, 0x80), 0, 'f4'], // past U+10FFFF
      [bytes(0xff, 0xfe, 0x61, 0x00), 0, 'ff'], // UTF-16 LE BOM
    ];
    for (const [input, offset, hex] of cases) {
      expect(failure(() => decodeUtf8Strict(input, 'x.json')).message).toBe(
        `x.json is not UTF-8: byte ${offset} (0x${hex}) is invalid. Save the file as UTF-8.`,
      );
    }
    expect(failure(() => decodeUtf8Strict(bytes(0x61, 0xe2, 0x98), 'x.json')).message).toBe(
      'x.json is not UTF-8: byte 1 (0xe2) is invalid (the file ends in the middle of a character). Save the file as UTF-8.',
    );
  });
});

describe('dialoguePreview', () => {
  const record = (...turns: DialogueRecord['turns'][number]['elements'][]): DialogueRecord => ({ id: '404', turns: turns.map((elements) => ({ elements })) });
  it("is the first turn's text", () => {
    expect(
      dialoguePreview(
        record(
          [
            { kind: 'text', text: 'good morning!' },
            { kind: 'media', key: 'x' },
          ],
          [{ kind: 'text', text: 'hi' }],
        ),
      ),
    ).toBe('good morning!');
  });
  it('is never empty when the dialogue opens with a photo alone', () => {
    expect(
      dialoguePreview(record([{ kind: 'media', key: 'cat' }], [{ kind: 'media', key: 'st' }], [{ kind: 'text', text: 'haha she gets away with everything' }])),
    ).toBe('📷 … haha she gets away with everything');
    expect(dialoguePreview(record([{ kind: 'media', key: 'cat' }]))).toBe('📷 a photo');
  });
});
