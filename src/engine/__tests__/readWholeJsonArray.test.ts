import { describe, expect, it } from 'vitest';
import { type RecordPlace, readWholeJsonArray } from '../datasets/jsonRecordStream';
import { parseConversations } from '../datasets/mmdialog';

const limits = { maxRecords: 3, maxTotalChars: 1000, maxDepth: 3 };
const places: RecordPlace[] = [];
const keepPlace = (value: unknown, place: RecordPlace) => {
  places.push(place);
  return value;
};

describe('readWholeJsonArray', () => {
  it('takes a record exactly as deep as the limit, as the stream does', () => {
    expect(readWholeJsonArray('[{"a": {"b": {"c": 1}}}]', limits, (value) => value)).toEqual([{ a: { b: { c: 1 } } }]);
  });

  it('reads an array of records in order, each with its index and no line', () => {
    places.length = 0;
    expect(readWholeJsonArray('[{"a": 1}, {"a": [2]}]', limits, keepPlace)).toEqual([{ a: 1 }, { a: [2] }]);
    expect(places).toEqual([
      { index: 0, line: undefined },
      { index: 1, line: undefined },
    ]);
  });

  it.each([
    ['JSON Lines', '{"a": 1}\n{"a": 2}\n'],
    ['a byte-order mark', '\uFEFF[{"a": 1}]'],
    ['invalid JSON', '[{"a": 1},]'],
    ['no records', '[]'],
    ['too many records', '[1, 2, 3, 4]'],
    ['a record nested too deep', '[{"a": {"b": {"c": [1]}}}]'],
    ['a text over the limit', `[${'1,'.repeat(600)}1]`],
  ])('leaves %s to the stream (null)', (_what, text) => {
    expect(readWholeJsonArray(text, limits, (value) => value)).toBeNull();
  });

  it('leaves a record that read refuses to the stream, whose message names it', () => {
    expect(
      readWholeJsonArray('[1, 2]', limits, (value) => {
        if (value === 2) throw new Error('no');
        return value;
      }),
    ).toBeNull();
  });
});

describe('parseConversations, read whole or streamed', () => {
  const dialogue = (id: number) => ({ conversation_id: id, conversation: [{ turn: [{ __TEXT__: `hello ${id}` }] }, { turn: [{ __TEXT__: 'hi' }] }] });

  it('gives the same records for an array as for the same records as JSON Lines (streamed)', () => {
    const records = [dialogue(1), dialogue(2), dialogue(3)];
    const whole = parseConversations(JSON.stringify(records), { file: 'train/conversations.json' });
    const streamed = parseConversations(records.map((r) => JSON.stringify(r)).join('\n'), { file: 'train/conversations.json' });
    expect(whole).toHaveLength(3);
    expect(whole).toEqual(streamed);
  });

  it('still names the record whose id repeats, after the whole read refused it', () => {
    expect(() => parseConversations(JSON.stringify([dialogue(1), dialogue(1)]), { file: 'train/conversations.json' })).toThrow(
      'train/conversations.json, record 1: conversation_id 1 is also the id of record 0. Give each dialogue its own id.',
    );
  });
});
