import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConversationsBytes } from '../datasets/mmdialog';
import { dialogueStats } from '../datasets/mmdialogExport';
import { decodeUtf8Strict, parseJsonDocument } from '../datasets/validation';
import { parseMediaCatalogue, parseTextCatalogue, parseTextSources } from '../datasets/poolCatalogue';
import { imageKeyText, parseStoredContexts } from '../pool/chatPool';
import { parsePoolEmbeddings, rowKeysHash, textContentKey } from '../pool/poolEmbeddings';
import { textKey } from '../pool/textKey';

/** The shipped demo data, read through the same validators the app uses. */
const PUBLIC = join(__dirname, '..', '..', '..', 'public');
const readJson = (path: string) => parseJsonDocument(decodeUtf8Strict(new Uint8Array(readFileSync(join(PUBLIC, path))), path), path);
const media = parseMediaCatalogue(readJson('pool/media.json'), { file: 'pool/media.json', strict: true });
const texts = parseTextCatalogue(readJson('pool/texts.json'), { file: 'pool/texts.json', strict: true });
const mediaKeys = new Set(media.map((m) => m.key));
const split = (name: string) =>
  parseConversationsBytes(new Uint8Array(readFileSync(join(PUBLIC, 'dialogues', name, 'conversations.json'))), {
    file: `${name}/conversations.json`,
    hasMedia: (k) => mediaKeys.has(k),
  });
const splits = { train: split('train'), valid: split('valid'), test: split('test') };

describe('the demo dataset', () => {
  it('has a pool of at least 1,500 attributed images and 3,000 texts', () => {
    expect(media.length).toBeGreaterThanOrEqual(1500);
    expect(media.every((m) => m.alt && m.licence && m.source && m.sha256 && (m.width ?? 0) <= 512 && (m.height ?? 0) <= 512 && m.file.endsWith('.webp'))).toBe(
      true,
    );
    expect(texts.length).toBeGreaterThanOrEqual(3000);
    expect(new Set(texts.map((t) => t.text)).size).toBe(texts.length);
  });

  it('has 3,500/200/200 dialogues of 3 to 8 turns, about 40% of turns with an image, and every kind of response', () => {
    expect([splits.train.length, splits.valid.length, splits.test.length]).toEqual([3500, 200, 200]);
    const all = [...splits.train, ...splits.valid, ...splits.test];
    const stats = dialogueStats(all);
    expect(stats.minTurns).toBeGreaterThanOrEqual(3);
    expect(stats.maxTurns).toBeLessThanOrEqual(8);
    const share = stats.turnsWithImage / stats.turns;
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.45);
    const kinds = new Set(all.flatMap((d) => d.turns.slice(1).map((t) => [...new Set(t.elements.map((e) => e.kind))].sort().join('+'))));
    expect([...kinds].sort()).toEqual(['media', 'media+text', 'text']);
    expect(new Set(all.map((d) => d.id)).size).toBe(3900);
  });

  it("gives valid and test records 999 negatives of each modality from the pool, none of them the record's own", () => {
    const poolTexts = new Set(texts.map((t) => t.text));
    for (const record of [...splits.valid, ...splits.test]) {
      expect(record.negativeTexts).toHaveLength(999);
      expect(record.negativeMediaKeys).toHaveLength(999);
      const own = record.turns.flatMap((t) => t.elements.map((e) => (e.kind === 'text' ? e.text : e.key)));
      expect(record.negativeTexts!.filter((t) => own.includes(t))).toEqual([]);
      expect(record.negativeMediaKeys!.filter((k) => own.includes(k))).toEqual([]);
      expect(record.negativeTexts!.every((t) => poolTexts.has(t))).toBe(true);
    }
  });

  it('does not leak valid or test texts into the pool or the train split, not even re-typed', () => {
    // As the generator compares texts (grammar.py text_key): no accents, case, punctuation, apostrophes,
    // repeated letters or trailing "haha", so "Whoa!!" and "whoaaa haha" are the same text.
    const key = (text: string) =>
      text
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .replace(/\u2019/g, "'")
        .replace(/'/g, '')
        .replace(/[^a-z0-9]+/g, ' ')
        .trim()
        .replace(/(.)\1+/g, '$1')
        .replace(/( ha(ha)*)+$/, '');
    expect(key('Whoaaa!! haha')).toBe(key('whoa'));
    const textsOf = (records: typeof splits.train) =>
      records.flatMap((d) => d.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []))));
    const seen = new Set([...texts.map((t) => key(t.text)), ...textsOf(splits.train).map(key)]);
    const heldOut = textsOf([...splits.valid, ...splits.test]);
    expect(heldOut.length).toBeGreaterThan(1500);
    expect(heldOut.filter((t) => seen.has(key(t)))).toEqual([]);
  });

  it("holds the human texts of the corpora's train parts with their sources, each once by text key, and the encoder's files fit the pool", () => {
    const sources = parseTextSources(readJson('pool/texts.json'), { file: 'pool/texts.json', strict: true });
    expect(sources.map((s) => [s.id, s.licence])).toEqual([
      ['dailydialog', 'CC BY-NC-SA 4.0'],
      ['topical-chat', 'CDLA-Sharing-1.0'],
    ]);
    const human = texts.filter((t) => t.source === 'dailydialog' || t.source === 'topical-chat');
    expect(human.length).toBeGreaterThanOrEqual(30_000);
    expect(new Set(human.map((t) => textKey(t.text))).size).toBe(human.length);
    // The shipped keys and stored contexts were made for exactly these texts and labels (npm run chat:keys).
    const read = (name: string) =>
      [readJson(`pool/embeddings/${name}.json`), new Uint8Array(readFileSync(join(PUBLIC, 'pool', 'embeddings', `${name}.bin`))), name] as const;
    const keys = parsePoolEmbeddings(...read('mini-clip.chat'));
    const rows = [...texts.map((t) => t.text), ...media.map((m) => imageKeyText(m.label ?? m.alt))].map(textContentKey);
    expect(keys.meta.compact?.keysHash).toBe(rowKeysHash(rows, []));
    const contexts = parseStoredContexts(...read('mini-clip.contexts'));
    expect(contexts.meta.poolTexts).toBe(
      rowKeysHash(
        texts.map((t) => textContentKey(t.text)),
        [],
      ),
    );
    // Contexts whose response is in the pool: 49,930 once the booth review left 355 texts out (50,321 before).
    expect(contexts.meta.contexts).toBeGreaterThan(45_000);
  });
});
