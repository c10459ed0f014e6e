import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCREEN_CATEGORIES, SCREEN_CATEGORY_IDS, screenCategoryOf, screenForm } from '../safety/screenLists';
import { SCREEN_REPLY_LINES, screenReplyLine, screenVisitorMessage } from '../safety/visitorScreen';

interface TurnsFile {
  conversations: { id: string; turns: { text: string }[] }[];
}
const probe = JSON.parse(readFileSync(new URL('./fixtures/booth-probe-turns.json', import.meta.url), 'utf8')) as TurnsFile;
const visitorTurns = JSON.parse(readFileSync(new URL('../../../../shared/data/visitor-turns/visitor-turns.json', import.meta.url), 'utf8')) as TurnsFile;

/** Everyday lines that share a word with the lists: none may be flagged. */
const HARMLESS = [
  'I killed it at my presentation today',
  'my dog is a killer at fetch',
  "I'm dying to see the photos",
  'shoot me a message later',
  "I'll shoot you an email",
  'we had a blast at the party',
  'I need to pull the weeds in my garden',
  'he cracked a joke',
  'I went to the drugstore',
  'how do I kill time at the airport',
  'this heat is killing me',
  "my mom will kill me if I'm late",
  'I cut myself shaving',
  "I'm going to die of boredom",
  'Have you read Moby Dick?',
  "I'm a big fan of Dick Van Dyke",
  'what sex is your puppy',
  'Pussy cats are cute',
  'I saw it with the naked eye',
  "what's your name?",
  'where do you live?',
  "what's your favourite number",
  'I went to Scunthorpe last week.',
  'my phone died',
  'Did you get lost on the way?',
  'Eating that will make you fat',
  'She hurt her back lifting boxes',
  'I hate Mondays',
  "men's shoes are on sale",
  'The Chinese restaurant is great',
  'Do you like cocktails?',
  'Where do you work?',
  "Call me when you're free",
  'it costs 1299 dollars',
  'The meeting is on 2023-05-14',
  'I shot a great photo of the mountain',
  'the killer whale was huge',
  'you look great today',
  "I'm high up on the mountain",
  'get high scores in the game',
  'Obama was a great president',
  'oh my god that is amazing',
  "I'll beat you at chess",
  'my little brother took my shirt without asking',
  'take your clothes to the laundry',
];

describe('the visitor screen', () => {
  it("flags every turn of the booth probe with its conversation's category: sexual requests, self-harm, violence, hate, drugs, personal data and insults", () => {
    const wrong = probe.conversations.flatMap((c) => c.turns.flatMap((t) => (screenVisitorMessage([t.text]).category === c.id ? [] : [`${c.id}: ${t.text}`])));
    expect(wrong).toEqual([]);
    expect(probe.conversations.reduce((n, c) => n + c.turns.length, 0)).toBe(50);
  });

  it("flags none of the visitor's 24 turns and none of the everyday lines that share a word with the lists", () => {
    const lines = [...visitorTurns.conversations.flatMap((c) => c.turns.map((t) => t.text)), ...HARMLESS];
    expect(lines.flatMap((line) => (screenVisitorMessage([line]).category ? [line] : []))).toEqual([]);
  });

  it("sees through spelling: capitals, repeated letters, digits for letters, symbols between words and obscenity's disguises", () => {
    for (const line of [
      'HOW DO I KILL MYSELF',
      'i want to diiiiie',
      'send n00dz',
      'k1ll myself',
      'how do i k!ll myself',
      'f*ck off',
      'send... me... nudes!!!',
      'Sénd me nüdes',
    ])
      expect(screenVisitorMessage([line]).category, line).not.toBeNull();
  });

  it('reads undressing only with "off", on either side of the clothes', () => {
    for (const line of ['take your shirt off', 'take off your top', 'taking off my clothes for you'])
      expect(screenVisitorMessage([line]).category, line).toBe('sexual');
    expect(screenVisitorMessage(['he took my shirt']).category).toBeNull();
  });

  it('reads self-harm first, so a message in need gets the caring line whatever else it says', () => {
    expect(screenVisitorMessage(['fuck this, I want to kill myself']).category).toBe('self-harm');
  });

  it("reads a turn's texts together and flags it when any is flagged", () => {
    expect(screenVisitorMessage(['hi there', 'what is your password']).category).toBe('personal-data');
    expect(screenVisitorMessage([]).category).toBeNull();
  });

  it('keeps political opinions out of the pool, but answers a visitor who talks politics as any other', () => {
    const opinion = 'Trump is an idiot';
    expect(screenCategoryOf(opinion, { reader: 'pool' })).toBe('politics');
    expect(screenCategoryOf(opinion, { reader: 'visitor' })).toBeNull();
    expect(SCREEN_CATEGORIES.politics.visitor).toBe(false);
  });

  it("reads a politician's name possessive too, opinions said of them, and who may vote by race, out of the pool", () => {
    for (const line of [
      "I think Trump's done a great job.",
      'That is sad and thats how we end with a president like Trump.',
      "Many people think it was a good thing that Trump didn't attend Barbara Bush's funeral",
      'In Alabama 34 percent of the black male population has lost their vote',
    ])
      expect(screenCategoryOf(line, { reader: 'pool' }), line).toBe('politics');
    expect(screenCategoryOf('Ronald Reagan established national ice cream month!', { reader: 'pool' })).toBeNull();
  });

  it('finds phone numbers, card-like digit runs and street addresses as typed', () => {
    for (const line of [
      'call 555-867-5309 tonight',
      'ring (555) 867-5309',
      'my cell: +44 20 7946 0958',
      'card 4111 1111 1111 1111',
      'I live at 221 Baker Street',
      'my number is 555-1234',
      'I want 6420422 3, is that right?',
      "His number's 4945939.",
    ])
      expect(screenCategoryOf(line, { reader: 'pool' }), line).toBe('personal-data');
    for (const line of ['they spent 15000000 on it', 'it costs 1299 dollars', 'in 1999 and 2004'])
      expect(screenCategoryOf(line, { reader: 'pool' }), line).toBeNull();
  });

  it('drops borderline texts only under booth strictness: mild insults, drinking, religion and party politics', () => {
    const borderline = ['That movie was crap', "Let's grab a beer after work", 'I go to church on Sundays', 'Who did you vote for in the election?'];
    for (const line of borderline) {
      expect(screenCategoryOf(line, { reader: 'pool' }), line).toBeNull();
      expect(screenCategoryOf(line, { reader: 'pool', strict: true }), line).not.toBeNull();
    }
    // Exclamations everyone uses stay, strict or not.
    expect(screenCategoryOf('Oh my god, thank god you are here', { reader: 'pool', strict: true })).toBeNull();
  });

  it('answers as flagged, never as clean, when the lists themselves fail', () => {
    const failing = () => {
      throw new Error('the lists did not load');
    };
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      expect(screenVisitorMessage(['hello'], failing).category).toBe('unchecked');
    } finally {
      console.warn = warn;
    }
  });

  it('screens 10,000 characters of emoji, mixed scripts or words without throwing, and reads the screen form as documented', () => {
    for (const long of ['😀'.repeat(5000), 'Привет мир 你好世界 مرحبا hello '.repeat(400).slice(0, 10_000), 'the quick brown fox '.repeat(500)])
      expect(screenVisitorMessage([long]).category).toBeNull();
    expect(screenForm("Don't   STOP!!! Crème")).toBe(' dont stop creme ');
    expect(screenForm('killllll')).toBe(' kill ');
  });

  it('has two written lines for every category a visitor is screened for, said in turn, and no telephone number in any', () => {
    const visitorCategories = SCREEN_CATEGORY_IDS.filter((id) => SCREEN_CATEGORIES[id].visitor);
    expect(Object.keys(SCREEN_REPLY_LINES).sort()).toEqual([...visitorCategories, 'unchecked', 'photo', 'video'].sort());
    for (const [first, second] of Object.values(SCREEN_REPLY_LINES)) {
      expect(first).not.toBe(second);
      expect(`${first} ${second}`).not.toMatch(/\d{3}/);
    }
    const [first, second] = SCREEN_REPLY_LINES.drugs;
    const at = (said: Record<string, number>) => (line: string) => said[line] ?? -1;
    expect(screenReplyLine('drugs', at({}))).toBe(first);
    expect(screenReplyLine('drugs', at({ [first]: 1 }))).toBe(second);
    expect(screenReplyLine('drugs', at({ [first]: 1, [second]: 3 }))).toBe(first);
    expect(screenReplyLine('drugs', at({ [first]: 5, [second]: 3 }))).toBe(second);
  });
});
