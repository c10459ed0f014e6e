import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../pool/contentHash';
import { textKey } from '../pool/textKey';
import { asksForPhotos, speaksOfTheirPhoto } from '../response/replyPolicy';
import { computeTextMarks, parseTextMarks, rowsOfKey, serializeTextMarks } from '../response/textMarks';

const TEXTS = ['Hi!!', 'hello', 'hiii', 'bye', 'send me a pic please', 'love your photo!', 'Hi', 'where are the pics??'];

/** The file as written, with `change` applied to its bytes and its header's bytesHash made to fit them again. */
function rewritten(change: (bytes: Uint8Array) => void) {
  const file = serializeTextMarks(TEXTS, computeTextMarks(TEXTS));
  const bytes = new Uint8Array(file.bytes);
  change(bytes);
  return { meta: { ...file.meta, bytesHash: hashBytes(bytes) }, bytes };
}

const refusal = (meta: unknown, bytes: Uint8Array, texts = TEXTS) => {
  try {
    parseTextMarks(meta, bytes, 'pool/text-marks.json', texts);
    return 'read';
  } catch (error) {
    return (error as Error).message;
  }
};

describe("the pool's text keys and photo marks", () => {
  it("finds a text's rows in any re-typing, in row order, and none for a key no text has", () => {
    const marks = computeTextMarks(TEXTS);
    expect(rowsOfKey(marks, TEXTS, 'hi')).toEqual([0, 2, 6]);
    expect(rowsOfKey(marks, TEXTS, textKey('BYE!'))).toEqual([3]);
    expect(rowsOfKey(marks, TEXTS, 'good night')).toEqual([]);
  });

  it('marks the texts that ask for photos and those that speak of one sent, by the rules themselves', () => {
    const marks = computeTextMarks(TEXTS);
    expect([...marks.photoAsks]).toEqual(TEXTS.flatMap((t, r) => (asksForPhotos(t) ? [r] : [])));
    expect([...marks.photoTalk]).toEqual(TEXTS.flatMap((t, r) => (speaksOfTheirPhoto(t) ? [r] : [])));
    expect([...marks.photoAsks]).toEqual([4, 7]);
    expect([...marks.photoTalk]).toEqual([5]);
  });

  it('leaves out a text that shares the hash of a key but not the key', () => {
    const marks = computeTextMarks(['apple', 'pear']);
    // As if "pear" had the hash of "apple": found by the search, then refused by its key.
    marks.keyHashes[1] = marks.keyHashes[0]!;
    marks.byHash.set([0, 1]);
    expect(rowsOfKey(marks, ['apple', 'pear'], textKey('apple'))).toEqual([0]);
  });

  it('reads back what it wrote', () => {
    const file = serializeTextMarks(TEXTS, computeTextMarks(TEXTS));
    const read = parseTextMarks(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'pool/text-marks.json', TEXTS);
    expect(read).toEqual(computeTextMarks(TEXTS));
  });

  it('refuses a file of other texts, other rules, another kind, or bytes truncated, damaged or out of order, with a sentence naming it', () => {
    const file = serializeTextMarks(TEXTS, computeTextMarks(TEXTS));
    expect(refusal(file.meta, file.bytes, [...TEXTS.slice(0, -1), 'where are the pictures'])).toMatch(
      /^pool\/text-marks\.json marks other texts than the pool's \(8 texts, hash \w+; the pool has 8\)\.$/,
    );
    expect(refusal({ ...file.meta, rules: 'older' }, file.bytes)).toBe(
      "pool/text-marks.json was made with other photo rules or another text key than this app's: rebuild it.",
    );
    expect(refusal({ ...file.meta, kind: 'lexical-counts' }, file.bytes)).toBe(
      'pool/text-marks.json is of kind "lexical-counts" version 1; this app reads "text-marks" version 1.',
    );
    expect(refusal(file.meta, file.bytes.subarray(0, 70))).toBe(
      'pool/text-marks.json describes 72 bytes of marks, but its .bin holds 70: it is truncated or from another build.',
    );
    const damaged = new Uint8Array(file.bytes);
    damaged[3]! ^= 1;
    expect(refusal(file.meta, damaged)).toBe('pool/text-marks.json does not match the hash of its .bin: the file is damaged.');
    // Well-formed bytes that would leave a row unfindable: a row twice in the hash order, or the order broken.
    const twice = rewritten((bytes) =>
      new DataView(bytes.buffer).setUint32(4 * TEXTS.length, new DataView(bytes.buffer).getUint32(4 * TEXTS.length + 4, true), true),
    );
    expect(refusal(twice.meta, twice.bytes)).toBe('pool/text-marks.json lists a row twice or one beyond the texts in its hash order.');
    const swapped = rewritten((bytes) => {
      const view = new DataView(bytes.buffer);
      const [a, b] = [view.getUint32(4 * TEXTS.length, true), view.getUint32(4 * TEXTS.length + 28, true)];
      view.setUint32(4 * TEXTS.length, b, true);
      view.setUint32(4 * TEXTS.length + 28, a, true);
    });
    expect(refusal(swapped.meta, swapped.bytes)).toBe('pool/text-marks.json is not in hash order.');
    expect(refusal(null, file.bytes)).toBe('pool/text-marks.json is not a text-marks header.');
  });

  it("ships marks of the demo pool's texts as they are now: every key finds its rows (rebuild with npm run pool:index)", () => {
    const texts = (JSON.parse(readFileSync('public/pool/texts.json', 'utf8')) as { texts: { text: string }[] }).texts.map((t) => t.text);
    const marks = parseTextMarks(
      JSON.parse(readFileSync('public/pool/text-marks.json', 'utf8')),
      new Uint8Array(readFileSync('public/pool/text-marks.bin')),
      'public/pool/text-marks.json',
      texts,
    );
    const byKey = new Map<string, number[]>();
    texts.forEach((t, r) => byKey.set(textKey(t), [...(byKey.get(textKey(t)) ?? []), r]));
    const wrong = [...byKey].filter(([key, rows]) => rowsOfKey(marks, texts, key).join() !== rows.join());
    expect(wrong).toEqual([]);
    expect(marks.photoAsks).toEqual(computeTextMarks(texts).photoAsks);
    expect(marks.photoTalk).toEqual(computeTextMarks(texts).photoTalk);
  });
});
