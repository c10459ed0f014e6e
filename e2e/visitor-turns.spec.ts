import { expect, test } from '@playwright/test';
import { type PlayedTurn, describeReply, openForVisitorPlay, playVisitorConversations, readVisitorTurns } from '../src/node/bench/visitorPlay';

/**
 * A visitor's eight conversations (../shared/data/visitor-turns, 24 turns, 10 with a photo) played
 * with the default pack, mini-clip, as `npm run bench -- visitor` plays them. The first test plays
 * them and keeps the records in `played`; the tests after it assert what a visitor would notice.
 */
const conversations = readVisitorTurns();
const turnCount = conversations.reduce((s, c) => s + c.turns.length, 0);
const photoCount = conversations.reduce((s, c) => s + c.turns.filter((t) => t.photo).length, 0);

/** Every turn as played, in order: what the visitor sent, the caption shown, the reply element by element. */
let played: PlayedTurn[] = [];
const name = (t: PlayedTurn) => `${t.conversationId} turn ${t.turn} ("${t.text}")`;

test.describe.configure({ mode: 'serial' });

test.describe("a visitor's conversations with mini-clip", () => {
  test(`all ${turnCount} turns are played, each after New conversation`, async ({ page }, testInfo) => {
    // Loading mini-clip on two cores, then 24 replies, 10 of them through the object detector.
    test.setTimeout(600_000);
    await openForVisitorPlay(page, 'mini-clip');
    played = await playVisitorConversations(page, conversations);
    await testInfo.attach('visitor-replies.json', { body: JSON.stringify(played, null, 1), contentType: 'application/json' });
    await testInfo.attach('visitor-replies.txt', {
      body: played.map((t) => `${name(t)}${t.caption ? ` [${t.caption}]` : ''} -> ${describeReply(t)}`).join('\n'),
      contentType: 'text/plain',
    });
    expect(played).toHaveLength(turnCount);
  });

  test('every turn gets a reply, and no reply is empty', () => {
    expect(played, 'the turns were not played').toHaveLength(turnCount);
    for (const t of played) {
      expect.soft(t.problem, `${name(t)} got no reply`).toBeNull();
      expect.soft(t.reply?.elements.length ?? 0, `${name(t)} got an empty reply`).toBeGreaterThan(0);
      for (const [i, e] of (t.reply?.elements ?? []).entries()) {
        const shown = e.kind === 'text' ? e.text : e.alt;
        expect.soft(shown.trim(), `element ${i + 1} of the reply to ${name(t)} shows nothing`).not.toBe('');
      }
    }
  });

  test('every shared photo gets a caption shown under it', () => {
    const withPhoto = played.filter((t) => t.photo);
    expect(withPhoto, 'the turns were not played').toHaveLength(photoCount);
    for (const t of withPhoto) expect.soft(t.caption ?? '', `${name(t)}: no caption under ${t.photo}`).toMatch(/^[A-Z].+\.$/);
    // A turn without a photo has no caption to show.
    for (const t of played.filter((p) => !p.photo)) expect.soft(t.caption, `${name(t)}: a caption with no photo`).toBeNull();
  });

  const texts = (t: PlayedTurn) => (t.reply?.elements ?? []).flatMap((e) => (e.kind === 'text' ? [e.text] : []));
  /** As the pool tells texts apart (src/engine/pool/textKey.ts): case, punctuation and repeated letters aside. */
  const key = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
      .replace(/(.)\1+/g, '$1');
  const byConversation = () => {
    const groups = new Map<string, PlayedTurn[]>();
    for (const t of played) groups.set(t.conversationId, [...(groups.get(t.conversationId) ?? []), t]);
    return groups;
  };

  test("no reply says again what its conversation already holds, the visitor's words included", () => {
    expect(played, 'the turns were not played').toHaveLength(turnCount);
    for (const [id, turns] of byConversation()) {
      const said = new Set<string>();
      for (const t of turns) {
        said.add(key(t.text));
        for (const text of texts(t)) {
          expect.soft(said.has(key(text)), `${id}: "${text}" was already said`).toBe(false);
          said.add(key(text));
        }
      }
    }
  });

  test('no reply text echoes a line said before it in its conversation (four in five of the words of one in the other)', () => {
    const words = (text: string) =>
      new Set(
        text
          .toLowerCase()
          .replace(/['’]/g, '')
          .match(/[a-z0-9]+/g) ?? [],
      );
    const overlap = (a: Set<string>, b: Set<string>) => [...a].filter((w) => b.has(w)).length;
    for (const [id, turns] of byConversation()) {
      const said: Set<string>[] = [];
      for (const t of turns) {
        said.push(words(t.text));
        for (const text of texts(t)) {
          const mine = words(text);
          const echoed =
            mine.size >= 3 && said.some((line) => line.size >= 3 && (overlap(mine, line) >= 0.8 * mine.size || overlap(mine, line) >= 0.8 * line.size));
          expect.soft(echoed, `${id}: "${text}" echoes a line said before`).toBe(false);
        }
        for (const text of texts(t)) said.push(words(text));
      }
    }
  });

  test('the system asks for photos at most once a conversation, and never right after one was shared', () => {
    const asks = (text: string) =>
      /\b(?:send|show|share|post|more|any|new|where(?:'?s| are| is)?)\b[^.!?]{0,24}\b(?:pics?|photos?|pictures?|selfies?)\b|\bshow me\b|\bsend more\b/i.test(
        text,
      );
    for (const [id, turns] of byConversation()) {
      const asking = turns.filter((t) => texts(t).some(asks));
      expect.soft(asking.length, `${id}: ${asking.map((t) => texts(t).join(' ')).join(' / ')}`).toBeLessThanOrEqual(1);
      for (const t of asking) expect.soft(t.photo, `${name(t)} was answered with a request for photos: ${texts(t).join(' ')}`).toBeNull();
    }
  });

  test('a greeting is answered with a greeting or a question back', () => {
    const greeting = played.find((t) => /^(hi|hello|hey)\b/i.test(t.text))!;
    expect(greeting, 'no greeting among the turns').toBeDefined();
    expect(texts(greeting).join(' '), `${name(greeting)}`).toMatch(/\b(hi|hello|hey|good (morning|afternoon|evening)|nice to (meet|see) you)\b|\?/i);
  });
});
