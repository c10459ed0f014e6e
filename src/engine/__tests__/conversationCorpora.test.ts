import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boothFilterReason } from '../conversations/boothFilter';
import { CONVERSATION_CORPORA, CONVERSATION_CORPUS_IDS, conversationPart, heldOut, untokenizeDailyDialog } from '../conversations/corpora';
import { conversationPairs } from '../conversations/corpus';
import { parseTopicalChat } from '../datasets/topicalChat';
import { textKey } from '../pool/textKey';
import { conversationOneOfHundred } from '../selection/protocols';

const shared = (path: string) => readFileSync(new URL(`../../../../shared/data/${path}`, import.meta.url), 'utf8');

describe('Topical-Chat files', () => {
  const chat = (content: unknown) => JSON.stringify({ t_1: { content } });

  it("reads the messages of each conversation in order, joining a speaker's messages in a row into one turn", () => {
    const { conversations, skipped } = parseTopicalChat(
      JSON.stringify({
        t_a: {
          config: 'A',
          content: [
            { message: 'Do you like jazz?', agent: 'agent_1' },
            { message: 'I do!', agent: 'agent_2' },
            { message: 'Miles Davis', agent: 'agent_2' },
            { message: 'Nice.', agent: 'agent_1' },
          ],
        },
        t_b: {
          content: [
            { message: 'hi', agent: 'agent_1' },
            { message: '   ', agent: 'agent_2' },
          ],
        },
      }),
      'x.json',
    );
    expect(conversations).toEqual([{ id: 't_a', turns: ['Do you like jazz?', 'I do! Miles Davis', 'Nice.'] }]);
    // t_b: its empty message is skipped, and then it has one turn.
    expect(skipped).toEqual({ emptyTurns: 1, oneTurn: 1 });
  });

  it('names the file, conversation and field of what is not Topical-Chat', () => {
    expect(() => parseTopicalChat('[1, 2]', 'x.json')).toThrow(
      'x.json is an array, not an object. A Topical-Chat file is one JSON object keyed by conversation id',
    );
    expect(() => parseTopicalChat(JSON.stringify({ t_1: { turns: [] } }), 'x.json')).toThrow('x.json, conversation "t_1": "content" is missing, not an array.');
    expect(() => parseTopicalChat(chat([{ message: 3, agent: 'agent_1' }]), 'x.json')).toThrow(
      'x.json, conversation "t_1", message 1: "message" is a number, not a string.',
    );
    expect(() => parseTopicalChat('{}', 'x.json')).toThrow('x.json holds no conversation.');
  });

  it('reads the three shipped files: 1,617 conversations, nothing skipped', () => {
    let total = 0;
    for (const file of CONVERSATION_CORPORA['topical-chat'].files) {
      const { conversations, skipped } = parseTopicalChat(shared(`topical-chat/${file.name}`), file.name);
      expect(skipped).toEqual({ emptyTurns: 0, oneTurn: 0 });
      total += conversations.length;
    }
    expect(total).toBe(1617);
  });
});

describe('the one split rule (conversationPart)', () => {
  const conversation = (i: number) => ({ id: String(i), turns: [`hello ${i}`, `hi ${i}`, `bye ${i}`] });

  it("keeps DailyDialog's test part, carves valid out of the rest by hash, and puts repeated conversations together", () => {
    const parts = Array.from({ length: 2000 }, (_, i) => conversationPart('dailydialog', 'dialogues_text.txt', conversation(i)));
    const count = (p: string) => parts.filter((x) => x === p).length;
    expect(count('test')).toBe(parts.filter((_, i) => heldOut(conversation(i).turns.join('\n'), 0.2, 'dailydialog/test')).length);
    expect(count('test') / 2000).toBeCloseTo(0.2, 1);
    expect(count('valid') / (2000 - count('test'))).toBeCloseTo(0.1, 1);
    // The part follows from the text alone: the same conversation under another id, or read in another order, lands in the same part.
    for (let i = 0; i < 50; i++) expect(conversationPart('dailydialog', 'dialogues_text.txt', { ...conversation(i), id: 'copy' })).toBe(parts[i]);
  });

  it("makes Topical-Chat's test_freq the test part and its two valid files train and valid", () => {
    expect(conversationPart('topical-chat', 'test_freq.json', conversation(1))).toBe('test');
    const parts = Array.from({ length: 1000 }, (_, i) => conversationPart('topical-chat', 'valid_rare.json', conversation(i)));
    expect(parts).not.toContain('test');
    expect(parts.filter((p) => p === 'valid').length / 1000).toBeCloseTo(0.1, 1);
  });

  it('splits the real corpora as bench -- select has reported them: DailyDialog 5,027 / 565 / 1,408 dialogues, Topical-Chat 984 / 94 / 539', () => {
    const dd = CONVERSATION_CORPORA.dailydialog.read(shared('dailydialog/dialogues_text.txt'), 'dialogues_text.txt').conversations;
    const partsOf = (corpus: 'dailydialog' | 'topical-chat', file: string, list: readonly { id: string; turns: readonly string[] }[]) =>
      list.map((c) => conversationPart(corpus, file, c));
    const tally = (parts: string[]) => ['train', 'valid', 'test'].map((p) => parts.filter((x) => x === p).length);
    expect(tally(partsOf('dailydialog', 'dialogues_text.txt', dd))).toEqual([5027, 565, 1408]);
    const tc = CONVERSATION_CORPORA['topical-chat'].files.flatMap((f) =>
      partsOf('topical-chat', f.name, parseTopicalChat(shared(`topical-chat/${f.name}`), f.name).conversations),
    );
    expect(tally(tc)).toEqual([984, 94, 539]);
    // The test part's 1-of-100 batches: as many as before the rule was written down here.
    const test = dd.filter((c) => conversationPart('dailydialog', 'dialogues_text.txt', c) === 'test').map((c) => c.turns);
    expect(conversationOneOfHundred(test).groups).toHaveLength(93);
  });

  it('lists every corpus with its credit and licence', () => {
    for (const id of CONVERSATION_CORPUS_IDS) {
      const c = CONVERSATION_CORPORA[id];
      expect([c.name, c.credit, c.licence, c.url].every((s) => s.length > 3)).toBe(true);
    }
  });
});

describe('texts as people type them, and as the pool tells them apart', () => {
  it("puts DailyDialog's tokenized utterances back together", () => {
    expect(untokenizeDailyDialog('I ’ ll bring it over , sir .')).toBe("I'll bring it over, sir.");
    expect(untokenizeDailyDialog("Yes , sir . I'll bring it over .")).toBe("Yes, sir. I'll bring it over.");
    expect(untokenizeDailyDialog('I ’ Ve tried talking ( really ) !')).toBe("I've tried talking (really)!");
    expect(untokenizeDailyDialog('It is $ 5 , 20 % off ?')).toBe('It is $5, 20% off?');
  });

  it('makes one key of a text in any re-typing, as the demo generator does', () => {
    expect(textKey('Whoaaa!! haha')).toBe(textKey('whoa'));
    expect(textKey("Don't   worry.")).toBe(textKey('dont worry'));
    expect(textKey('Café!')).toBe('cafe');
    expect(textKey('hi there')).not.toBe(textKey('hi where'));
  });

  it('pairs every turn after the first with up to the given number of turns before it', () => {
    expect(conversationPairs({ id: 'x', turns: ['a', 'b', 'c', 'd'] }, 2)).toEqual([
      { context: ['a'], response: 'b' },
      { context: ['a', 'b'], response: 'c' },
      { context: ['b', 'c'], response: 'd' },
    ]);
  });
});

describe('what a booth must never show', () => {
  it("drops profanity and slurs (the obscenity package's English lists), URLs, e-mail addresses and unreadable text", () => {
    expect(boothFilterReason('that is such bullshit')).toBe('profanity');
    expect(boothFilterReason('you f*cking idiot')).toBe('profanity');
    expect(boothFilterReason('see https://example.com/page for more')).toBe('url');
    expect(boothFilterReason('visit www.example.org')).toBe('url');
    expect(boothFilterReason('mail me at jo.smith@example.com')).toBe('email');
    expect(boothFilterReason('bad \uFFFD bytes')).toBe('unreadable');
    expect(boothFilterReason('lone \uD800 surrogate')).toBe('unreadable');
    expect(boothFilterReason('a\u0007bell')).toBe('unreadable');
    expect(boothFilterReason('...!!')).toBe('unreadable');
    // and keeps ordinary lines, the Scunthorpe kind included
    for (const ok of [
      'I went to Scunthorpe last week.',
      'What a great assessment!',
      'Do you like basketball?',
      'The class analysis is due.',
      'I love my new 🐶!',
    ])
      expect(boothFilterReason(ok)).toBeNull();
  });
});
