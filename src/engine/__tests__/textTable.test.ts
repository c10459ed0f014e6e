import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTextCatalogue, parseTextSources } from '../datasets/poolCatalogue';
import { parseTextTable, parseTextTableMeta, serializeTextTable } from '../datasets/textTable';
import { hashBytes } from '../pool/contentHash';

const CREDITS = [{ id: 'dd', name: 'DailyDialog', credit: 'Li et al.', licence: 'CC BY-NC-SA 4.0', url: 'http://example.org/dd' }];
const TEXTS = parseTextCatalogue({
  version: 1,
  texts: [
    { id: 'w1', text: 'lol same', topic: 'small-talk', source: 'written' },
    { id: 'dd-2', text: 'Café au lait, naïve 🙂', source: 'dd' },
    { id: 3, text: '  trimmed  ', topic: 'food', source: 'dd', borderline: 'insults' },
    { id: 'x', text: 'no source at all' },
  ],
});

/** The file as written, with `change` applied to its bytes and its header's bytesHash made to fit them again. */
function rewritten(change: (bytes: Uint8Array) => void) {
  const file = serializeTextTable(TEXTS, CREDITS);
  const bytes = new Uint8Array(file.bytes);
  change(bytes);
  return { meta: { ...file.meta, bytesHash: hashBytes(bytes) }, bytes };
}

const refusal = (meta: unknown, bytes: Uint8Array) => {
  try {
    parseTextTable(meta, bytes, 'pool/text-table.json');
    return 'read';
  } catch (error) {
    return (error as Error).message;
  }
};

describe("the pool's text table", () => {
  it('reads back every text, id, topic, source and borderline category as texts.json gives them', () => {
    const file = serializeTextTable(TEXTS, CREDITS);
    expect(parseTextTable(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'pool/text-table.json')).toEqual(TEXTS);
    expect(TEXTS[2]).toEqual({ id: '3', text: 'trimmed', topic: 'food', source: 'dd', borderline: 'insults' });
    expect(file.meta.sources).toEqual(['written', 'dd']);
    // Texts by source, and those that name none (last): what Credits shows.
    expect(file.meta.sourceCounts).toEqual([1, 2, 1]);
    expect(file.meta.credits).toEqual(CREDITS);
    // 11 bytes a text beside the UTF-8 runs.
    expect(file.bytes.byteLength).toBe(11 * 4 + file.meta.textBytes + file.meta.idBytes);
  });

  it('reads a buffer that starts at an odd offset, as a fetched one may', () => {
    const file = serializeTextTable(TEXTS, CREDITS);
    const shifted = new Uint8Array(file.bytes.byteLength + 1);
    shifted.set(file.bytes, 1);
    expect(parseTextTable(file.meta, shifted.subarray(1), 'pool/text-table.json')).toEqual(TEXTS);
  });

  it('gives the shipped pool exactly as texts.json does', () => {
    const dir = join('public', 'pool');
    const json = JSON.parse(readFileSync(join(dir, 'texts.json'), 'utf8')) as unknown;
    const fromJson = parseTextCatalogue(json, { strict: true });
    const meta = JSON.parse(readFileSync(join(dir, 'text-table.json'), 'utf8')) as unknown;
    expect(parseTextTable(meta, new Uint8Array(readFileSync(join(dir, 'text-table.bin'))), 'pool/text-table.json')).toEqual(fromJson);
    expect(parseTextTableMeta(meta, 'pool/text-table.json').credits).toEqual(parseTextSources(json, { strict: true }));
  });

  it('refuses a file of another kind, a truncated or damaged one, and ends that leave their run, naming the file', () => {
    const file = serializeTextTable(TEXTS, CREDITS);
    expect(refusal({ ...file.meta, kind: 'text-marks' }, file.bytes)).toBe(
      'pool/text-table.json is of kind "text-marks" version 1; this app reads "text-table" version 1.',
    );
    expect(refusal(file.meta, file.bytes.subarray(0, file.bytes.byteLength - 3))).toBe(
      `pool/text-table.json describes ${file.bytes.byteLength} bytes of texts, but its .bin holds ${file.bytes.byteLength - 3}: it is truncated or from another build.`,
    );
    const damaged = new Uint8Array(file.bytes);
    damaged[damaged.length - 1] = damaged[damaged.length - 1]! ^ 1;
    expect(refusal(file.meta, damaged)).toBe('pool/text-table.json does not match the hash of its .bin: the file is damaged.');
    // Damage that keeps the hash right (a file rewritten by hand) is still caught by the structure.
    const beyond = rewritten((bytes) => new DataView(bytes.buffer).setUint32(0, 9999, true));
    expect(refusal(beyond.meta, beyond.bytes)).toBe('pool/text-table.json has text 0 empty, out of order or beyond its run.');
    const notUtf8 = rewritten((bytes) => (bytes[11 * 4] = 0xff));
    expect(refusal(notUtf8.meta, notUtf8.bytes)).toBe('pool/text-table.json holds bytes that are not UTF-8 text: the file is damaged.');
    const unknownTopic = rewritten((bytes) => (bytes[8 * 4] = 7));
    expect(refusal(unknownTopic.meta, unknownTopic.bytes)).toBe('pool/text-table.json names topic 7 for text 0, of 2.');
    expect(refusal({ ...file.meta, borderline: ['rudeness'] }, file.bytes)).toContain('names a borderline category this app does not know');
    expect(refusal({ ...file.meta, sourceCounts: [1] }, file.bytes)).toBe('pool/text-table.json lacks a count of texts for each source.');
  });
});
