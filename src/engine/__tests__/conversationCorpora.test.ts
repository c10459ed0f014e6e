import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boothFilterReason } from '../conversations/boothFilter';
import { CONVERSATION_CORPORA, CONVERSATION_CORPUS_IDS, conversationPart, heldOut, splitCorpus, untokenizeDailyDialog } from '../conversations/corpora';
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

  it('splits the real corpora with their copies removed: DailyDialog 4,603 / 521 / 1,310 dialogues (566 copies), Topical-Chat 980 / 93 / 544', () => {
    const dd = CONVERSATION_CORPORA.dailydialog.read(shared('dailydialog/dialogues_text.txt'), 'dialogues_text.txt').conversations;
    const tally = (split: ReturnType<typeof splitCorpus>) => ['train', 'valid', 'test'].map((p) => split.conversations.filter((c) => c.part === p).length);
    const ddSplit = splitCorpus('dailydialog', [{ file: 'dialogues_text.txt', conversations: dd }]);
    expect(tally(ddSplit)).toEqual([4603, 521, 1310]);
    expect(ddSplit.copiesRemoved).toBe(566);
    const tc = splitCorpus(
      'topical-chat',
      CONVERSATION_CORPORA['topical-chat'].files.map((f) => ({
        file: f.name,
        conversations: parseTopicalChat(shared(`topical-chat/${f.name}`), f.name).conversations,
      })),
    );
    // Five train-file conversations open as a test one does (the same reading set): they go to test, never to train.
    expect(tally(tc)).toEqual([980, 93, 544]);
    expect(tc.copiesRemoved).toBe(0);
    // No test dialogue is left with a normalised copy or a variant's opening in train.
    const key = (turns: readonly string[]) => turns.map((t) => textKey(CONVERSATION_CORPORA.dailydialog.tidy(t))).join('\n');
    const trainKeys = new Set(ddSplit.conversations.filter((c) => c.part === 'train').map((c) => key(c.conversation.turns)));
    expect(ddSplit.conversations.filter((c) => c.part === 'test' && trainKeys.has(key(c.conversation.turns)))).toEqual([]);
    const test = ddSplit.conversations.filter((c) => c.part === 'test').map((c) => c.conversation.turns);
    expect(conversationOneOfHundred(test).groups).toHaveLength(86);
  });

  it('removes copies by normalised text and keeps variants of one dialogue in one part, whatever the file order', () => {
    // Numbers in words: textKey counts a repeated letter once, so "100" and "10" would be one key.
    const words = (i: number) =>
      [...String(i)].map((d) => ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][Number(d)]).join(' ');
    const dialogue = (i: number, last = `fine thanks ${words(i)}`) => ({
      id: `d${i}`,
      turns: [`Good morning, how was the trip to the coast number ${words(i)}?`, `It was lovely, the weather held up all week ${words(i)}.`, last],
    });
    const many = Array.from({ length: 400 }, (_, i) => dialogue(i));
    // A re-typed copy of each of the first 100 (case and punctuation), and a variant of each of the next 100 (another last turn).
    const copies = many.slice(0, 100).map((c) => ({ id: `${c.id}-copy`, turns: c.turns.map((t) => t.toUpperCase().replace(/[,.?]/g, ' !')) }));
    const variants = many.slice(100, 200).map((c, i) => ({ ...dialogue(100 + i, `oh no, sorry to hear it ${words(i)}`), id: `${c.id}-variant` }));
    const read = [...many, ...copies, ...variants];
    const split = splitCorpus('dailydialog', [{ file: 'dialogues_text.txt', conversations: read }]);
    expect(split.copiesRemoved).toBe(100);
    expect(split.conversations).toHaveLength(500);
    const partOf = new Map(split.conversations.map((c) => [c.conversation.id, c.part]));
    for (let i = 100; i < 200; i++) expect(partOf.get(`d${i}-variant`), `variant of d${i}`).toBe(partOf.get(`d${i}`));
    // The last 200, with neither copy nor variant, keep the part they always had.
    for (let i = 200; i < 400; i++) expect(partOf.get(`d${i}`)).toBe(conversationPart('dailydialog', 'dialogues_text.txt', many[i]!));
    // Read backwards: the same copies kept, in the same parts.
    const backwards = splitCorpus('dailydialog', [{ file: 'dialogues_text.txt', conversations: [...read].reverse() }]);
    expect(new Map(backwards.conversations.map((c) => [c.conversation.id, c.part]))).toEqual(partOf);
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
  it("drops the screen's categories (profanity and slurs by the obscenity package's English lists), URLs, e-mail addresses and unreadable text", () => {
    expect(boothFilterReason('that is such bullshit')).toBe('insults');
    expect(boothFilterReason('you f*cking idiot')).toBe('insults');
    expect(boothFilterReason('I want you in bed, right now')).toBe('sexual');
    expect(boothFilterReason('Saying you want to kill yourself is serious')).toBe('violence');
    expect(boothFilterReason('I feel like killing someone.')).toBe('violence');
    expect(boothFilterReason('We went to a strip club and got a lap dance')).toBe('sexual');
    expect(boothFilterReason('I got so drunk last night')).toBe('drugs');
    expect(boothFilterReason('Obama was born in Kenya')).toBe('politics');
    expect(boothFilterReason('Call Mary at 555-867-5309')).toBe('personal-data');
    expect(boothFilterReason('I had a beer with friends')).toBeNull();
    expect(boothFilterReason('I had a beer with friends', { strict: true })).toBe('drugs');
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
