import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { dailyDialogExamples, parseDailyDialog } from '../datasets/dailyDialog';
import { exampleTurns, formatPolyaiJsonl, parsePolyaiJsonl } from '../datasets/polyai';

describe('PolyAI JSON lines', () => {
  it('reads context, response and extra contexts, context/0 being the most recent', () => {
    const text = [
      '{"context/1": "Hello, how are you?", "context/0": "I am fine. And you?", "context": "Great. What do you think of the weather?", "response": "It doesn\'t feel like February.", "context_author": "x"}',
      '',
      '{"context": "Hi", "response": "Hello"}\r',
    ].join('\n');
    const examples = parsePolyaiJsonl(text, 'test.jsonl');
    expect(examples).toEqual([
      {
        context: 'Great. What do you think of the weather?',
        response: "It doesn't feel like February.",
        extraContexts: ['I am fine. And you?', 'Hello, how are you?'],
      },
      { context: 'Hi', response: 'Hello', extraContexts: [] },
    ]);
    expect(exampleTurns(examples[0]!)).toEqual(['Hello, how are you?', 'I am fine. And you?', 'Great. What do you think of the weather?']);
    // Written back, the lines read the same.
    expect(parsePolyaiJsonl(formatPolyaiJsonl(examples), 'again.jsonl')).toEqual(examples);
    expect(formatPolyaiJsonl(examples).split('\n')[0]).toBe(
      '{"context/1":"Hello, how are you?","context/0":"I am fine. And you?","context":"Great. What do you think of the weather?","response":"It doesn\'t feel like February."}',
    );
  });

  it('names the line and field of a bad example', () => {
    const bad = (line: string) => () => parsePolyaiJsonl(`{"context": "a", "response": "b"}\n${line}\n`, 'x.jsonl');
    expect(bad('{"context": "a", "response": "b"')).toThrow(
      /^x\.jsonl, line 2 is not valid JSON \(.*\)\. Check the file for a missing comma, quote or bracket, or export it again\.$/,
    );
    expect(bad('["a", "b"]')).toThrow(
      'x.jsonl, line 2 is an array, not an object. Each line must be one JSON object {"context": "...", "response": "...", "context/0": "...", ...}.',
    );
    expect(bad('{"context": "a"}')).toThrow('x.jsonl, line 2: "response" is missing. Each line must be');
    expect(bad('{"context": 3, "response": "b"}')).toThrow('x.jsonl, line 2: "context" is a number, not a string.');
    expect(bad('{"context": "a", "response": "  "}')).toThrow('x.jsonl, line 2: "response" is empty. Remove the example or give it some text.');
    expect(bad('{"context": "a", "response": "b", "context/0": "c", "context/2": "d"}')).toThrow(
      'x.jsonl, line 2: has "context/2" but no "context/1". Extra contexts are numbered from context/0 (the most recent) without gaps.',
    );
    expect(bad('{"context": "a", "response": "b", "context/0": null}')).toThrow('x.jsonl, line 2: "context/0" is null, not a string.');
    expect(() => parsePolyaiJsonl('\n\n', 'empty.jsonl')).toThrow('empty.jsonl has no examples.');
    expect(bad('{}')).toThrow(EngineError);
  });
});

describe('DailyDialog text', () => {
  const FILE = [
    "The kitchen stinks . __eou__ I'll throw out the garbage . __eou__",
    'Are you ready ? __eou__ Not yet . __eou__ Hurry up ! __eou__ OK , OK .',
    '',
  ].join('\n');

  it('reads one dialogue a line and makes every turn after the first a response', () => {
    const { dialogues, skipped } = parseDailyDialog(FILE, 'dialogues_text.txt');
    expect(dialogues).toEqual([
      { line: 1, turns: ['The kitchen stinks .', "I'll throw out the garbage ."] },
      { line: 2, turns: ['Are you ready ?', 'Not yet .', 'Hurry up !', 'OK , OK .'] },
    ]);
    expect(skipped).toEqual({ emptyTurns: 0, oneTurn: 0 });
    expect(dailyDialogExamples(dialogues[1]!)).toEqual([
      { context: 'Are you ready ?', response: 'Not yet .', extraContexts: [] },
      { context: 'Not yet .', response: 'Hurry up !', extraContexts: ['Are you ready ?'] },
      // context/0 is the most recent extra context.
      { context: 'Hurry up !', response: 'OK , OK .', extraContexts: ['Not yet .', 'Are you ready ?'] },
    ]);
  });

  it('skips and counts empty turns, blank lines and one-turn lines, keeping the rest; refuses a file with no dialogue', () => {
    const { dialogues, skipped } = parseDailyDialog('a __eou__ b\n\nc __eou__ __eou__ d __eou__\njust one turn\ne __eou__  __eou__\n', 'd.txt');
    expect(dialogues).toEqual([
      { line: 1, turns: ['a', 'b'] },
      { line: 3, turns: ['c', 'd'] },
    ]);
    // Line 2 (blank) is one empty turn, and so are line 3's and line 5's second; lines 2, 4 and 5 are left with fewer than two turns.
    expect(skipped).toEqual({ emptyTurns: 3, oneTurn: 3 });
    expect(() => parseDailyDialog('', 'd.txt')).toThrow(
      'd.txt has no dialogue of two turns or more. Each line of dialogues_text.txt is one dialogue, its turns separated by "__eou__".',
    );
    expect(() => parseDailyDialog('only one\n', 'd.txt')).toThrow(EngineError);
  });

  it('reads the real file: 7,000 dialogues, 46,286 examples, nothing skipped', () => {
    const text = readFileSync(new URL('../../../../shared/data/dailydialog/dialogues_text.txt', import.meta.url), 'utf8');
    const { dialogues, skipped } = parseDailyDialog(text, 'dialogues_text.txt');
    expect(dialogues.length).toBe(7000);
    expect(skipped).toEqual({ emptyTurns: 0, oneTurn: 0 });
    expect(dialogues.flatMap(dailyDialogExamples).length).toBe(46286);
  });
});
