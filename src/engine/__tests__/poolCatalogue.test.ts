import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { parseJsonDocument } from '../datasets/validation';
import { parseMediaCatalogue, parseTextCatalogue, parseUtteranceFile, type PoolMediaItem } from '../datasets/poolCatalogue';

type JsonObject = { [key: string]: unknown };

const STICKER: JsonObject = {
  key: 'st-1F600',
  file: 'media/st-1F600.webp',
  kind: 'sticker',
  width: 256,
  height: 256,
  alt: 'Grinning face sticker',
  label: 'grinning face',
  topic: 'feelings',
  keywords: ['happy', 'grin'],
  source: '@lobehub/fluent-emoji-3d@1.1.0 (npm)',
  author: 'Microsoft (Fluent Emoji)',
  licence: 'MIT',
  sourceUrl: 'https://github.com/microsoft/fluentui-emoji',
};
const PHOTO: JsonObject = {
  key: 'ph-harbour',
  file: 'media/photos/ph-harbour.webp',
  kind: 'photo',
  alt: 'Fishing boats in a harbour at dusk',
  keywords: [],
  source: 'Wikimedia Commons',
  licence: 'CC BY 4.0',
};

function catalogue(...items: unknown[]): JsonObject {
  return { version: 1, items };
}

function failure(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('dataset-invalid');
    return (error as EngineError).message;
  }
  throw new Error('expected the input to be rejected');
}

const strict = (json: unknown) => parseMediaCatalogue(json, { file: 'pool/media.json', strict: true });
const loose = (json: unknown) => parseMediaCatalogue(json, { file: 'my/media.json' });

describe('media catalogue', () => {
  it('reads a complete catalogue in strict mode', () => {
    const items = strict(catalogue(STICKER, PHOTO));
    expect(items[0]).toEqual(STICKER);
    const expected: PoolMediaItem = {
      key: 'ph-harbour',
      file: 'media/photos/ph-harbour.webp',
      kind: 'photo',
      alt: 'Fishing boats in a harbour at dusk',
      keywords: [],
      source: 'Wikimedia Commons',
      licence: 'CC BY 4.0',
    };
    expect(items[1]).toEqual(expected);
  });

  it('fills in what user data leaves out', () => {
    const items = loose({
      items: [
        { key: 'cat', file: 'cat.jpg' },
        { key: 'dog', file: 'dog.png', label: 'my dog' },
      ],
    });
    expect(items).toEqual([
      { key: 'cat', file: 'cat.jpg', kind: 'image', alt: 'cat', keywords: [], source: 'unknown', licence: 'unknown' },
      { key: 'dog', file: 'dog.png', kind: 'image', alt: 'my dog', label: 'my dog', keywords: [], source: 'unknown', licence: 'unknown' },
    ]);
  });

  it('requires alt, source, licence, kind and version in strict mode', () => {
    const without = (field: string) => {
      const item = { ...PHOTO };
      delete item[field];
      return catalogue(STICKER, item);
    };
    expect(failure(() => strict(without('alt')))).toBe(
      'pool/media.json, items[1] (key "ph-harbour"): alt is missing or empty. Describe the image in a few words for people who cannot see it.',
    );
    expect(failure(() => strict(without('source')))).toContain('pool/media.json, items[1] (key "ph-harbour"): source is missing or empty.');
    expect(failure(() => strict(without('licence')))).toContain('pool/media.json, items[1] (key "ph-harbour"): licence is missing or empty.');
    expect(failure(() => strict(without('kind')))).toContain(
      'pool/media.json, items[1] (key "ph-harbour"): kind is missing; it must be one of "sticker", "photo", "scene", "image".',
    );
    expect(failure(() => strict({ items: [PHOTO] }))).toContain('pool/media.json: version is missing; this app reads version 1.');
    expect(failure(() => loose({ version: 2, items: [PHOTO] }))).toContain('my/media.json: version is 2; this app reads version 1.');
  });

  it('rejects bad keys and repeated keys', () => {
    expect(failure(() => loose(catalogue({ file: 'a.jpg' })))).toContain('my/media.json, items[0]: key is missing.');
    expect(failure(() => loose(catalogue({ ...PHOTO, key: '../x' })))).toContain('my/media.json, items[0]: key "../x" is not a valid media key');
    expect(failure(() => loose(catalogue({ ...PHOTO, key: 12 })))).toContain('my/media.json, items[0]: key is a number and is not a valid media key');
    expect(failure(() => loose(catalogue(PHOTO, STICKER, { ...PHOTO, file: 'other.webp' })))).toBe(
      'my/media.json, items[2]: key "ph-harbour" is also the key of items[0]. Give each item its own key.',
    );
  });

  it('rejects file paths that leave the pool folder or are not relative', () => {
    const cases: [string, string][] = [
      ['../secret.jpg', 'uses ".." to leave the pool folder'],
      ['media/../../secret.jpg', 'uses ".." to leave the pool folder'],
      ['media/%2e%2e/x.jpg', 'uses ".." to leave the pool folder'],
      ['/etc/passwd', 'starts with "/"'],
      ['media\\cat.jpg', 'uses "\\"'],
      ['C:/pics/cat.jpg', 'is a URL or drive path'],
      ['https://example.com/cat.jpg', 'is a URL or drive path'],
      ['media//cat.jpg', 'has an empty folder name'],
    ];
    for (const [file, problem] of cases) {
      expect(failure(() => loose(catalogue({ ...PHOTO, file })))).toContain(
        `my/media.json, items[0] (key "ph-harbour"): file ${JSON.stringify(file)} ${problem}`,
      );
    }
    expect(failure(() => loose(catalogue({ ...PHOTO, file: undefined })))).toContain('items[0] (key "ph-harbour"): file is missing or empty.');
  });

  it('rejects wrongly typed optional fields', () => {
    expect(failure(() => loose(catalogue({ ...PHOTO, kind: 'video' })))).toContain('kind is "video"; it must be one of');
    expect(failure(() => loose(catalogue({ ...PHOTO, width: -3 })))).toContain('items[0] (key "ph-harbour"): width is -3; it must be a whole number of pixels');
    expect(failure(() => loose(catalogue({ ...PHOTO, height: '300' })))).toContain('height is a string; it must be a whole number');
    expect(failure(() => loose(catalogue({ ...PHOTO, keywords: 'boats' })))).toContain('keywords is a string, not an array.');
    expect(failure(() => loose(catalogue({ ...PHOTO, keywords: ['boats', 3] })))).toContain('keywords[1] is a number; each keyword must be a non-empty string');
    expect(failure(() => loose(catalogue({ ...PHOTO, alt: 7 })))).toContain('alt is a number, not a string.');
    expect(failure(() => loose(catalogue({ ...PHOTO, sourceUrl: 'javascript:alert(1)' })))).toContain(
      'sourceUrl "javascript:alert(1)" is not an http(s) address.',
    );
    expect(failure(() => loose(catalogue({ ...PHOTO, alt: 'a'.repeat(5000) })))).toContain('alt is 5,000 characters long; the limit is 1,000.');
  });

  it('rejects a file that is not a catalogue', () => {
    expect(failure(() => loose([PHOTO]))).toBe(
      'my/media.json is an array, not an object. It should be {"version": 1, "items": [{"key": ..., "file": ..., "alt": ...}, ...]}.',
    );
    expect(failure(() => loose({ version: 1 }))).toContain('my/media.json: items is missing.');
    expect(failure(() => loose(catalogue()))).toContain('my/media.json: items is empty.');
    expect(failure(() => loose(catalogue('cat.jpg')))).toContain('my/media.json, items[0] is a string, not an object.');
    expect(failure(() => parseMediaCatalogue(catalogue(PHOTO, STICKER), { maxItems: 1 }))).toContain('media.json: items has 2 entries; the limit is 1.');
    expect(failure(() => parseJsonDocument('{"version": 1, "items": [', 'media.json'))).toMatch(/^media\.json is not valid JSON \(.+\)\. Check the file/);
  });

  it('is not polluted by "__proto__" or "constructor" keys', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const json = parseJsonDocument(
      `{"version": 1, "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}},
        "items": [{"key": "cat", "file": "cat.jpg", "__proto__": {"polluted": true, "alt": "inherited"}, "constructor": {"prototype": {"polluted": true}}}]}`,
      'media.json',
    );
    const items = loose(json);
    expect(items).toEqual([{ key: 'cat', file: 'cat.jpg', kind: 'image', alt: 'cat', keywords: [], source: 'unknown', licence: 'unknown' }]);
    expect(Object.getPrototypeOf(items[0])).toBe(Object.prototype);
    const texts = parseTextCatalogue(parseJsonDocument('{"texts": [{"id": 1, "text": "hi", "__proto__": {"polluted": true, "topic": "x"}}]}', 'texts.json'));
    expect(texts).toEqual([{ id: '1', text: 'hi' }]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});

describe('text pool', () => {
  it('reads texts.json with optional topic and source', () => {
    const json = {
      version: 1,
      texts: [
        { id: 'greet-1', text: ' Hi! How was your day? ', topic: 'greetings' },
        { id: 2, text: 'Coffee first.', source: 'written for the demo' },
      ],
    };
    expect(parseTextCatalogue(json, { strict: true })).toEqual([
      { id: 'greet-1', text: 'Hi! How was your day?', topic: 'greetings' },
      { id: '2', text: 'Coffee first.', source: 'written for the demo' },
    ]);
  });

  it('names the entry that is wrong', () => {
    const file = { file: 'pool/texts.json' };
    expect(
      failure(() =>
        parseTextCatalogue(
          {
            texts: [
              { id: 'a', text: 'x' },
              { id: 'a', text: 'y' },
            ],
          },
          file,
        ),
      ),
    ).toBe('pool/texts.json, texts[1]: id "a" is also the id of texts[0]. Give each text its own id.');
    expect(failure(() => parseTextCatalogue({ texts: [{ id: 'a', text: '   ' }] }, file))).toContain('pool/texts.json, texts[0] (id "a"): text is empty.');
    expect(failure(() => parseTextCatalogue({ texts: [{ id: 'a', text: 'y'.repeat(4001) }] }, file))).toContain(
      'pool/texts.json, texts[0] (id "a"): text is 4,001 characters long; the limit is 4,000.',
    );
    expect(failure(() => parseTextCatalogue({ texts: [{ text: 'no id' }] }, file))).toContain('pool/texts.json, texts[0]: id is missing;');
    expect(failure(() => parseTextCatalogue({ texts: [{ id: 'a', text: 5 }] }, file))).toContain('texts[0] (id "a"): text is a number, not a string.');
    expect(failure(() => parseTextCatalogue({ texts: ['bare string'] }, file))).toContain('pool/texts.json, texts[0] is a string, not an object.');
    expect(failure(() => parseTextCatalogue({ texts: [{ id: 'a', text: 'x' }] }, { ...file, strict: true }))).toContain('pool/texts.json: version is missing');
  });
});

describe('utterance file', () => {
  it('reads one utterance a line, skipping blank and repeated lines', () => {
    const text = '\uFEFFHi there!\r\n\r\n  How are you?  \nHi there!\n\t\nSee you.';
    expect(parseUtteranceFile(text, { file: 'mine.txt' })).toEqual([
      { id: 'line-1', text: 'Hi there!' },
      { id: 'line-3', text: 'How are you?' },
      { id: 'line-6', text: 'See you.' },
    ]);
  });

  it('rejects over-long lines with their line number, and empty files', () => {
    expect(failure(() => parseUtteranceFile(`ok\n\n${'z'.repeat(4001)}\n`, { file: 'mine.txt' }))).toBe(
      'mine.txt, line 3 is 4,001 characters long; the limit is 4,000. Split it into shorter utterances, one a line.',
    );
    expect(parseUtteranceFile(`${'z'.repeat(4000)}   `)).toHaveLength(1);
    expect(failure(() => parseUtteranceFile(' \n\n', { file: 'mine.txt' }))).toContain('mine.txt has no utterances.');
    expect(failure(() => parseUtteranceFile('a\nb\nc', { maxItems: 2 }))).toContain('has more than 2 different utterances');
  });
});

describe('media catalogue content hashes', () => {
  it('keeps a well-formed sha256 and rejects one that is not 64 hex digits', () => {
    const sha = 'ab'.repeat(32);
    expect(parseMediaCatalogue(catalogue({ ...STICKER, sha256: sha }), { strict: true })[0]!.sha256).toBe(sha);
    expect(failure(() => parseMediaCatalogue(catalogue({ ...STICKER, sha256: 'xyz' }), { file: 'pool/media.json' }))).toBe(
      'pool/media.json, items[0] (key "st-1F600"): sha256 is "xyz"; it must be 64 lower-case hex digits (the file\'s SHA-256), or be left out.',
    );
  });
});
