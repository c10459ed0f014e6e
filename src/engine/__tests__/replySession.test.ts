import { describe, expect, it } from 'vitest';
import type { ClipEncoder } from '../clip/clipEncoder';
import type { DialogueRecord } from '../datasets/mmdialog';
import { type TurnFigures, sessionMeans } from '../metrics/sessionMetrics';
import { PhotoAnalyzer } from '../perception/photoAnalyzer';
import type { IntentProbabilities } from '../response/compose';
import type { ResponseHeads } from '../response/heads';
import { RANDOM_SEED } from '../response/methods';
import { ClipSimRanker } from '../ranking/clipSimRanker';
import { ABOUT_THE_DEMO, NOT_UNDERSTOOD } from '../response/aboutTheDemo';
import { echoes } from '../response/replyPolicy';
import { SCREEN_REPLY_LINES } from '../safety/visitorScreen';
import { PhotoChecker } from '../perception/photoCheck';
import { seededRandom } from '../random';
import { ReplySession, type SessionChat, type SessionPool, type SessionTurn, evaluateSession } from '../response/session';
import type { ChatEncoder } from '../response/chatEncoder';
import { WARM_UP_STEPS } from '../response/warmUpSteps';
import { Int8Matrix } from '../retrieval/int8Matrix';
import { ScoreMatrix } from '../retrieval/scoreMatrix';
import type { CandidatePool, ResponseState } from '../response/types';
import type { AvsdRankers } from '../video/avsdRankers';
import { AUDIO_FEATURES } from '../video/audioFeatures';
import { VIDEO_FEATURES } from '../video/videoFeatures';
import { type TurnVideo, acknowledgement } from '../video/videoTurn';

/**
 * The reply session with a table for a text tower: what the page's worker and the benchmarks run.
 * Two dimensions, "dog-ness" and "beach-ness", so every cosine can be worked out by hand.
 */
const unit = (x: number, y: number) => new Float32Array([x / Math.hypot(x, y), y / Math.hypot(x, y)]);
const EMBEDDINGS = new Map<string, Float32Array>([
  ['what a cute dog', unit(1, 0.1)],
  ['I love the beach', unit(0.1, 1)],
  ['dogs are the best', unit(1, 0.2)],
  ['alpha gamma', unit(1, 1)],
  ['beta delta', unit(1, 1)],
  ['look at my dog', unit(1, 0)],
  ['my dog', unit(1, 0.3)],
  ['so cute', unit(0.9, 0.5)],
  ['at the sea', unit(0.2, 1)],
]);
const IMAGES = [
  { key: 'dog', label: 'a dog', alt: 'A dog', kind: 'photo', keywords: [], embedding: unit(1, 0) },
  { key: 'beach', label: 'a beach', alt: 'A beach', kind: 'photo', keywords: [], embedding: unit(0, 1) },
];

function tableEncoder(): ClipEncoder & { encoded: string[] } {
  const encoder = {
    fingerprint: 'table',
    takesGrounding: false,
    encoded: [] as string[],
    async encodeTexts(texts: readonly string[]) {
      encoder.encoded.push(...texts);
      return texts.map((t) => EMBEDDINGS.get(t) ?? unit(0.5, 0.5));
    },
    async encodeImages() {
      throw new Error('no photos in these tests');
    },
  };
  return encoder as unknown as ClipEncoder & { encoded: string[] };
}

const matrix = (rows: Float32Array[]) => ({ data: Float32Array.from(rows.flatMap((r) => [...r])), rows: rows.length, dim: 2 });
const text = (t: string) => ({ kind: 'text' as const, text: t });
const media = (key: string) => ({ kind: 'media' as const, key });
/** A dialogue whose turns are given; every response turn after the first counts for the majority intent. */
const dialogue = (id: string, ...turns: DialogueRecord['turns'][number]['elements'][]): DialogueRecord => ({
  id,
  turns: turns.map((elements) => ({ elements })),
});

interface Setup {
  texts?: string[];
  /** The train split; null for a pool without one. */
  train?: DialogueRecord[] | null;
  heads?: ResponseHeads | null;
  /** A conversational encoder over the same table (its query: the latest turn's vector), with the hybrid's weights. */
  chat?: {
    weights?: { text: number[]; image: number[] };
    contexts?: { context: string; response: string }[];
    questionAnswer?: { counts: number[][] };
    echoKeyBar?: number;
  } | null;
}

const embeddingOf = (t: string) => EMBEDDINGS.get(t) ?? unit(0.5, 0.5);
const int8 = (rows: Float32Array[]) => Int8Matrix.fromFloat32(Float32Array.from(rows.flatMap((r) => [...r])), rows.length, 2, { refine: false });

/** A conversational encoder as far as the session reads it: the table's vectors for queries and keys. */
function tableChatEncoder(): ChatEncoder {
  return {
    fingerprint: 'chat-table',
    config: { contextTurns: 5, maxTokens: 48, dim: 2, padId: 0, tokenizer: '', training: { bestEpoch: 1, valid: {}, seconds: 0 } },
    encodeContext: async (turns: readonly string[]) => embeddingOf(turns[turns.length - 1]!),
    encodeResponses: async (texts: readonly string[]) => matrix(texts.map(embeddingOf)),
  } as unknown as ChatEncoder;
}

function sessionWith({ texts = ['what a cute dog', 'I love the beach', 'dogs are the best'], train = null, heads = null, chat = null }: Setup = {}) {
  const encoder = tableEncoder();
  const trainReads: number[] = [];
  const chatEncoder = chat ? tableChatEncoder() : null;
  const sessionChat: SessionChat | null = chatEncoder
    ? {
        encoder: chatEncoder,
        contextMatch: { neighbours: 1, temperature: 0.05 },
        echoKeyBar: chat?.echoKeyBar ?? null,
        hybridWeights: chat?.weights ? { ...chat.weights, bm25Turns: Infinity, questionAnswer: chat.questionAnswer ?? null, learnedOn: 'a test' } : null,
      }
    : null;
  const session = new ReplySession(new PhotoAnalyzer(encoder, null), heads, { chat: sessionChat });
  const contexts = chat?.contexts ?? [];
  const pool: SessionPool = {
    texts,
    textMatrix: matrix(texts.map(embeddingOf)),
    images: IMAGES,
    imageMatrix: matrix(IMAGES.map((i) => i.embedding)),
    train: async () => {
      trainReads.push(1);
      return train;
    },
    chat: chat
      ? {
          textKeys: int8(texts.map(embeddingOf)),
          imageKeys: int8(IMAGES.map((i) => embeddingOf(i.label))),
          contexts: contexts.length
            ? {
                vectors: int8(contexts.map((c) => embeddingOf(c.context))),
                responseRows: Int32Array.from(contexts, (c) => texts.indexOf(c.response)),
                latestRows: Int32Array.from(contexts, (c) => texts.indexOf(c.context)),
              }
            : null,
        }
      : null,
  };
  session.setPool(pool);
  return { session, encoder, trainReads };
}

const say = (...texts: string[]): SessionTurn => ({ elements: texts.map(text) });
/** A real video just shared and watched: the detector saw a bus and two cars. */
const VIDEO: TurnVideo = {
  videoId: 'v1',
  sharedNow: true,
  seconds: 4,
  description: 'a bus and two cars',
  shown: { drawn: false, answer: 'A bus and two cars.' },
  features: { video: new Array<number>(VIDEO_FEATURES).fill(0), audio: new Array<number>(AUDIO_FEATURES).fill(0) },
  unfit: false,
  earlier: [],
};
const noRankers = (): Promise<AvsdRankers> => Promise.reject(new Error('no rankers in these tests'));
/** Adds a text's vector to the table (for the texts of one test). */
const embeddingsFor = (t: string, v: Float32Array) => EMBEDDINGS.set(t, v);
/** A text reply, then stop: the responses of a train split that answers every turn with one text. */
const TEXT_ONCE = [dialogue('t1', [text('hi')], [text('hello')]), dialogue('t2', [text('hey')], [text('hey there')])];
const IMAGE_ONCE = [dialogue('i1', [text('hi')], [media('dog')]), dialogue('i2', [text('hey')], [media('beach')])];

/** Heads as far as the session reads them: an intent that follows a script, a map, and a ranker. */
function fakeHeads(steps: IntentProbabilities[]): ResponseHeads {
  const identity = { w: new Float32Array(4), a: 1 };
  return {
    intent: { id: 'head', predict: async (s: ResponseState) => steps[Math.min(s.partial.length, steps.length - 1)]! },
    clipMap: { dim: 2, text: identity, image: identity },
    ranker: async (pool: CandidatePool) => Object.assign(new ClipSimRanker(pool), { id: 'depp' as const }),
  } as unknown as ResponseHeads;
}

describe('ReplySession: one reply pipeline for the page and the benchmarks', () => {
  it("composes from the pool, encodes a text once, and uses a pool text's own row", async () => {
    const { session, encoder } = sessionWith({ train: TEXT_ONCE });
    const first = await session.compose([say('look at my dog')], { method: 'clip-sim' });
    expect(first.method).toBe('clip-sim');
    expect(first.intentModel).toBe('majority');
    expect(first.elements.map((e) => e.text)).toEqual(['what a cute dog']);
    expect(first.relevance).toBeCloseTo(unit(1, 0.1)[0]!, 6); // cosine of (1, 0) and the reply
    await session.compose([say('look at my dog'), say('what a cute dog'), say('look at my dog')], { method: 'clip-sim' });
    expect(encoder.encoded).toEqual(['look at my dog']);
  });

  it('offers the methods the pack can run, and the preferred one for a method it cannot', async () => {
    const { session } = sessionWith({ train: TEXT_ONCE });
    expect(session.methods()).toEqual({ available: ['random', 'tfidf', 'bm25', 'clip-sim'], preferred: 'clip-sim' });
    expect((await session.compose([say('look at my dog')], { method: 'depp' })).method).toBe('clip-sim');
    await expect(session.compose([say('look at my dog')], { intent: 'head' })).rejects.toThrow('needs trained heads');
    const withHeads = sessionWith({
      heads: fakeHeads([
        [0, 1, 0],
        [0, 0, 1],
      ]),
    }).session;
    expect(withHeads.methods()).toEqual({ available: ['random', 'tfidf', 'bm25', 'clip-sim', 'clip-map', 'depp'], preferred: 'depp' });
    const reply = await withHeads.compose([say('look at my dog')]);
    expect([reply.method, reply.intentModel, reply.elements.map((e) => e.text)]).toEqual(['depp', 'head', ['a dog']]);
    // The conversational encoder adds its methods; context match needs the pool's stored contexts, and the hybrid both and the heads.
    expect(sessionWith({ chat: {} }).session.methods()).toEqual({
      available: ['random', 'tfidf', 'bm25', 'clip-sim', 'chat-encoder'],
      preferred: 'chat-encoder',
    });
    const everything = sessionWith({
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
      chat: { contexts: [{ context: 'my dog', response: 'dogs are the best' }] },
    }).session;
    expect(everything.methods()).toEqual({
      available: ['random', 'tfidf', 'bm25', 'lookup', 'clip-sim', 'clip-map', 'depp', 'chat-encoder', 'context-match', 'hybrid'],
      preferred: 'hybrid',
    });
  });

  it('takes the majority intent and the inviting phrases from the train split only, read once', async () => {
    const images = sessionWith({ train: IMAGE_ONCE });
    expect((await images.session.compose([say('look at my dog')])).elements.map((e) => e.kind)).toEqual(['image']);
    await images.session.compose([say('my dog')]);
    expect(images.trainReads).toHaveLength(1);
    // Without a train split: one text, then stop.
    expect((await sessionWith({ train: null }).session.compose([say('look at my dog')])).elements.map((e) => e.kind)).toEqual(['text']);
    // With trained heads the intent is the head's; the train split is still read, once, for the phrases
    // that invite an image (coherence.ts), and the head's choice stands: one text, then stop.
    const headed = sessionWith({
      train: IMAGE_ONCE,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
    });
    expect((await headed.session.compose([say('look at my dog')], { method: 'clip-sim' })).elements.map((e) => e.kind)).toEqual(['text']);
    await headed.session.compose([say('my dog')], { method: 'clip-sim' });
    expect(headed.trainReads).toHaveLength(1);
  });

  it("counts tf-idf and BM25 document frequencies over the pool's texts, the collection ranked, with a train split or without", async () => {
    // In the pool "beta" is in 2 of 4 texts and "alpha" in 1, so "alpha" weighs more; in the train split it is the other way round.
    const train = [dialogue('d', [text('alpha one'), text('alpha two')], [text('alpha three'), text('beta four')])];
    const texts = ['alpha gamma', 'beta delta', 'beta blue sky', 'what a cute dog'];
    for (const method of ['tfidf', 'bm25'] as const) {
      for (const split of [train, null])
        expect((await sessionWith({ texts, train: split }).session.compose([say('alpha beta')], { method })).elements[0]!.text).toBe('alpha gamma');
    }
  });

  it("builds the hybrid from BM25, the encoder, context match, the lexical context match and question-answer for texts and BM25, DE++ and the encoder for images, with the pack's weights", async () => {
    const texts = ['what a cute dog', 'I love the beach', 'dogs are the best', 'alpha gamma', 'beta delta'];
    const chat = { weights: { text: [0, 0, 1, 0, 0], image: [0, 1, 0] }, contexts: [{ context: 'look at my dog', response: 'I love the beach' }] };
    const headed = sessionWith({
      texts,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
      chat,
    });
    const first = await headed.session.compose([say('look at my dog')], { method: 'hybrid' });
    expect([first.method, first.composed.steps[0]!.candidates.length]).toEqual(['hybrid', 5]);
    // All the text weight on context match: the one stored context like "look at my dog" was answered with the beach.
    expect(first.elements.map((e) => e.text)).toEqual(['I love the beach']);
    expect(await headed.session.methodNote({ method: 'hybrid' })).toBe(
      'weights learned on a test: text bm25 0.00 + chat-encoder 0.00 + context-match 1.00 + lexical-context-match 0.00 + question-answer 0.00; images bm25 0.00 + depp 1.00 + chat-encoder 0.00',
    );
    expect(await headed.session.methodNote({ method: 'clip-sim' })).toBeUndefined();
    // All of it on the encoder: the pool text nearest the query, as chat-encoder alone picks it.
    const encoderOnly = sessionWith({
      texts,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
      chat: { ...chat, weights: { text: [0, 1, 0, 0, 0], image: [0, 1, 0] } },
    }).session;
    expect((await encoderOnly.compose([say('look at my dog')], { method: 'hybrid' })).elements.map((e) => e.text)).toEqual(['what a cute dog']);
    expect((await encoderOnly.compose([say('look at my dog')], { method: 'chat-encoder' })).elements.map((e) => e.text)).toEqual(['what a cute dog']);
    // Without learned weights every part counts alike, and the note says so.
    expect(
      await sessionWith({
        texts,
        heads: fakeHeads([
          [1, 0, 0],
          [0, 0, 1],
        ]),
        chat: { contexts: chat.contexts },
      }).session.methodNote({ method: 'hybrid' }),
    ).toMatch(/every part counts alike/);
  });

  it('never repeats a text the conversation already holds, in any re-typing, and asks for photos at most once', async () => {
    const texts = ['what a cute dog', 'dogs are the best', 'send me a pic!', 'I love the beach'];
    const { session } = sessionWith({ texts, train: TEXT_ONCE });
    // clip-sim would answer "look at my dog" with "what a cute dog" (cosine 0.995) every time.
    const first = await session.compose([say('look at my dog')], { method: 'clip-sim' });
    expect(first.elements.map((e) => e.text)).toEqual(['what a cute dog']);
    const second = await session.compose([say('look at my dog'), say('What a cute DOG!!'), say('look at my dog')], { method: 'clip-sim' });
    expect(second.elements.map((e) => e.text)).toEqual(['dogs are the best']);
    // A request for photos: once, and never two in a conversation.
    embeddingsFor('send me a pic!', unit(1, 0.25));
    const asks = sessionWith({ texts: ['send me a pic!', 'I love the beach'], train: TEXT_ONCE }).session;
    expect((await asks.compose([say('my dog')], { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual(['send me a pic!']);
    expect((await asks.compose([say('my dog'), say('send more pics'), say('my dog')], { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual([
      'I love the beach',
    ]);
  });

  it("answers a request for a picture with the pool's best image for it, after a line that goes with one", async () => {
    const texts = ['what a cute dog', 'here you go', 'here you go, the beach!', 'I love the beach', "Here's one!"];
    // "here you go" is followed by an image in the train split, so it invites one (coherence.ts).
    const train = Array.from({ length: 25 }, (_, i) => dialogue(`r${i}`, [text('hi')], [text('here you go'), media('dog')]));
    const { session } = sessionWith({ texts, train });
    const reply = await session.compose([say('can you show me a beach?')], { method: 'clip-sim' });
    // The line that invites a picture and names what was asked.
    expect(reply.elements.map((e) => [e.kind, e.text])).toEqual([
      ['text', 'here you go, the beach!'],
      ['image', 'a beach'],
    ]);
    // Asked for a dog: no inviting line names one, so a line written to introduce a picture comes with it, never an unrelated one.
    const dog = await session.compose([say('show me a dog')], { method: 'clip-sim' });
    expect(dog.elements.map((e) => [e.kind, e.text])).toEqual([
      ['text', "Here's one!"],
      ['image', 'a dog'],
    ]);
    // Written intros are for requested pictures only.
    expect((await session.compose([say('hello there')], { method: 'clip-sim' })).elements.map((e) => e.text)).not.toContain("Here's one!");
    expect(reply.composed.steps.map((s) => [s.intent, s.forcedBy])).toEqual([
      ['text', 'request'],
      ['image', 'request'],
      ['stop', 'request'],
    ]);
    // Without such a request, the intent module and ranker decide as ever.
    expect((await session.compose([say('the beach was lovely')], { method: 'clip-sim' })).composed.steps[0]!.forcedBy).toBeUndefined();
  });

  it('drops a reply that echoes a line said in the conversation (the echo guard), and without its rules gives it', async () => {
    const texts = ["What's your city like?", 'Paris, without a doubt.'];
    embeddingsFor("What's your favourite city?", unit(1, 0));
    embeddingsFor("What's your city like?", unit(1, 0.05));
    embeddingsFor('Paris, without a doubt.', unit(1, 0.4));
    const { session } = sessionWith({ texts, train: TEXT_ONCE });
    const asked = [say("What's your favourite city?")];
    expect((await session.compose(asked, { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual(['Paris, without a doubt.']);
    expect((await session.compose(asked, { method: 'clip-sim', rules: false })).elements.map((e) => e.text)).toEqual(["What's your city like?"]);
  });

  it('replies to a line with no words, only emoji, or 5,000 characters, and never with an echo of it', async () => {
    const long = Array.from({ length: 1000 }, (_, i) => ['what', 'a', 'cute', 'dog', `day${i}`][i % 5])
      .join(' ')
      .slice(0, 5000);
    const texts = ['what a cute dog', 'I love the beach', 'dogs are the best', long.slice(0, 200)];
    const { session } = sessionWith({
      texts,
      train: TEXT_ONCE,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
      chat: { weights: { text: [0.2, 0.2, 0.2, 0.2, 0.2], image: [0, 1, 0] }, contexts: [{ context: 'what a cute dog', response: 'I love the beach' }] },
    });
    for (const line of ['?!?!', '🍕🍕🍕', long]) {
      const reply = await session.compose([say(line)], { method: 'hybrid' });
      expect(reply.elements.length, line.slice(0, 20)).toBeGreaterThan(0);
      for (const e of reply.elements) if (e.kind === 'text') expect(echoes(e.text, [line]), e.text.slice(0, 40)).toBe(false);
    }
  });

  it("drops a reply whose key is as close to a line said as the pack's bar: the line again in other words", async () => {
    const texts = ["I've been learning guitar, my fingers hurt!", 'Nice, which songs do you play?'];
    embeddingsFor('I have been learning to play the guitar', unit(1, 0));
    embeddingsFor(texts[0]!, unit(1, 0.05));
    embeddingsFor(texts[1]!, unit(1, 0.5));
    const contexts = [{ context: 'hi', response: texts[1]! }];
    const reply = async (echoKeyBar?: number) =>
      (
        await sessionWith({ texts, train: TEXT_ONCE, chat: { contexts, ...(echoKeyBar ? { echoKeyBar } : {}) } }).session.compose(
          [say('I have been learning to play the guitar')],
          {
            method: 'chat-encoder',
          },
        )
      ).elements.map((e) => e.text);
    // The words alone do not catch it (they share only "been learning ... guitar"): the keys do.
    expect(await reply()).toEqual([texts[0]]);
    expect(await reply(0.99)).toEqual([texts[1]]);
  });

  it('never contradicts what it said of itself earlier in the conversation', async () => {
    const texts = ['I love my pets so much', 'I like watching birds in the park'];
    embeddingsFor('do you like animals?', unit(1, 0));
    embeddingsFor('I love my pets so much', unit(1, 0.1));
    embeddingsFor('I like watching birds in the park', unit(1, 0.5));
    const { session } = sessionWith({ texts, train: TEXT_ONCE });
    // It said it has no pets: a line about its pets is dropped; with no such line before, it is the best.
    const history = [say('hi'), say('No pets for me, I travel too much.'), say('do you like animals?')];
    expect((await session.compose(history, { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual(['I like watching birds in the park']);
    expect((await session.compose([say('hi'), say('Hello!'), say('do you like animals?')], { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual([
      'I love my pets so much',
    ]);
  });

  it("answers a question about the demo with the demo's own true line, a second line the second time, and offers them for nothing else", async () => {
    const lines = ABOUT_THE_DEMO.find((e) => e.id === 'who-made-you')!.lines;
    const texts = ['My mother, of course.', ...lines];
    embeddingsFor('Who made you?', unit(1, 0));
    embeddingsFor('My mother, of course.', unit(1, 0.1));
    for (const line of lines) embeddingsFor(line, unit(1, 0));
    const { session } = sessionWith({ texts, train: TEXT_ONCE });
    const first = await session.compose([say('Who made you?')], { method: 'clip-sim' });
    expect(first.elements.map((e) => e.text)).toEqual([lines[0]]);
    expect(first.composed.steps.map((s) => [s.intent, s.forcedBy])).toEqual([
      ['text', 'about-the-demo'],
      ['stop', 'about-the-demo'],
    ]);
    expect(
      (await session.compose([say('Who made you?'), say(lines[0]!), say('who built this demo??')], { method: 'clip-sim' })).elements.map((e) => e.text),
    ).toEqual([lines[1]]);
    // Asked anything else, the demo's lines are never offered, however close they rank.
    expect((await session.compose([say('look at my dog')], { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual(['My mother, of course.']);
  });

  it('answers a screened message with its written line and nothing from the pool, its two lines in turn, and leaves it out of later contexts', async () => {
    const { session, encoder } = sessionWith({ train: IMAGE_ONCE, heads: fakeHeads([[0.1, 0.9, 0]]) });
    const flagged = await session.compose([say('send me nudes')], { method: 'clip-sim' });
    expect(flagged.screened).toEqual({ category: 'sexual', line: SCREEN_REPLY_LINES.sexual[0] });
    expect(flagged.composed.elements).toEqual([]);
    expect(flagged.elements).toEqual([]);
    expect(encoder.encoded).toEqual([]); // nothing was encoded, nothing ranked
    const again = await session.compose([say('send me nudes'), say(SCREEN_REPLY_LINES.sexual[0]), say('show me your boobs')], { method: 'clip-sim' });
    expect(again.screened).toEqual({ category: 'sexual', line: SCREEN_REPLY_LINES.sexual[1] });
    const third = await session.compose(
      [say('send me nudes'), say(SCREEN_REPLY_LINES.sexual[0]), say('show me your boobs'), say(SCREEN_REPLY_LINES.sexual[1]), say('are you horny')],
      { method: 'clip-sim' },
    );
    expect(third.screened?.line).toBe(SCREEN_REPLY_LINES.sexual[0]);
    // The image the heads ask for follows the clean turn alone, as if the flagged exchange had not happened.
    const after = await session.compose([say('send me nudes'), say(SCREEN_REPLY_LINES.sexual[0]), say('look at my dog')], { method: 'clip-sim' });
    const alone = await session.compose([say('look at my dog')], { method: 'clip-sim' });
    expect(after.screened).toBeUndefined();
    expect(after.composed.elements).toEqual(alone.composed.elements);
    expect(after.elements.length).toBeGreaterThan(0);
    expect(encoder.encoded).toEqual(['look at my dog']);
  });

  it('answers a photo the photo check calls unfit with the photo line, analyses nothing of it, and leaves its turn out of later contexts', async () => {
    const encoder = tableEncoder();
    const checked: number[] = [];
    const photoCheck = new PhotoChecker(async (input) => {
      checked.push(input.length);
      return Float32Array.from([0.05, 0.5, 0.05, 0.35, 0.05]); // hentai + porn = 0.85
    });
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null, { photoCheck });
    session.setPool({
      texts: ['what a cute dog'],
      textMatrix: matrix([embeddingOf('what a cute dog')]),
      images: IMAGES,
      imageMatrix: matrix(IMAGES.map((i) => i.embedding)),
      train: async () => TEXT_ONCE,
    });
    const photo = { kind: 'image' as const, imageId: 'p1', decode: async () => ({ width: 2, height: 2, data: new Uint8Array(16).fill(200) }) };
    const reply = await session.compose([{ elements: [photo] }], { method: 'clip-sim' });
    expect(reply.screened).toEqual({ category: 'photo', line: SCREEN_REPLY_LINES.photo[0] });
    expect(reply.photoChecks).toEqual([{ imageId: 'p1', verdict: 'unfit' }]);
    expect(checked).toEqual([3 * 224 * 224]);
    // The image tower would throw here ("no photos in these tests"): the flagged turn is not embedded again.
    const next = await session.compose([{ elements: [photo] }, say(SCREEN_REPLY_LINES.photo[0]), say('look at my dog')], { method: 'clip-sim' });
    expect(next.screened).toBeUndefined();
    expect(next.elements.map((e) => e.text)).toEqual(['what a cute dog']);
    expect(encoder.encoded).toEqual(['look at my dog']);
  });

  it('answers a turn that shared an unfit video with the video lines in turn, ranking nothing, even with no text', async () => {
    const encoder = tableEncoder();
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null);
    session.setPool({
      texts: ['what a cute dog'],
      textMatrix: matrix([embeddingOf('what a cute dog')]),
      images: IMAGES,
      imageMatrix: matrix(IMAGES.map((i) => i.embedding)),
      train: async () => TEXT_ONCE,
    });
    const unfit = { ...VIDEO, features: { video: [], audio: [] }, unfit: true };
    const first = await session.compose([{ elements: [] }], { method: 'clip-sim', video: { turn: unfit, rankers: noRankers } });
    expect(first.screened).toEqual({ category: 'video', line: SCREEN_REPLY_LINES.video[0] });
    const asked = { ...unfit, sharedNow: false };
    const second = await session.compose([{ elements: [] }, say(SCREEN_REPLY_LINES.video[0]), say('what is happening?')], {
      method: 'clip-sim',
      video: { turn: asked, rankers: noRankers },
    });
    expect(second.screened).toEqual({ category: 'video', line: SCREEN_REPLY_LINES.video[1] });
    expect(encoder.encoded).toEqual([]);
    // A statement after it is a reply of the pool, as any turn.
    const third = await session.compose([{ elements: [] }, say(SCREEN_REPLY_LINES.video[0]), say('nice dog')], {
      method: 'clip-sim',
      video: { turn: asked, rankers: noRankers },
    });
    expect(third.screened).toBeUndefined();
    expect(third.elements.map((e) => e.text)).toEqual(['what a cute dog']);
  });

  it('answers a turn about a video in the reply: a video shared alone is acknowledged, "what is in it" is said from the frames, a screened message gets its line', async () => {
    const { session, encoder } = sessionWith();
    const acknowledged = await session.compose([{ elements: [] }], { method: 'clip-sim', video: { turn: VIDEO, rankers: noRankers } });
    expect(acknowledged.video).toEqual({ videoId: 'v1', answeredFrom: 'watched', text: acknowledgement(VIDEO) });
    expect(acknowledged.composed.steps).toEqual([]);
    const fromFrames = await session.compose([say('What is in the video?')], { method: 'clip-sim', video: { turn: VIDEO, rankers: noRankers } });
    expect(fromFrames.video).toEqual({ videoId: 'v1', answeredFrom: 'frames', question: 'What is in the video?', text: 'A bus and two cars.' });
    // Screening goes first: a flagged question about the video is answered with its line, not about the video.
    const flagged = await session.compose([say('can you take your shirt off?')], { method: 'clip-sim', video: { turn: VIDEO, rankers: noRankers } });
    expect(flagged.video).toBeUndefined();
    expect(flagged.screened?.category).toBe('sexual');
    // A statement about a video shared before is a reply of the pool.
    const statement = await session.compose([say('nice dog')], { method: 'clip-sim', video: { turn: { ...VIDEO, sharedNow: false }, rankers: noRankers } });
    expect(statement.video).toBeUndefined();
    expect(statement.elements.length).toBeGreaterThan(0);
    expect(encoder.encoded).toContain('nice dog');
  });

  it('stops a question about a video when the call is cancelled while its rankers load, and names an analysis it cannot read', async () => {
    const { session } = sessionWith();
    const cancelled = new AbortController();
    const loading = session.compose([say('is there any sound?')], {
      method: 'clip-sim',
      video: {
        turn: VIDEO,
        rankers: () => {
          cancelled.abort('cancelled');
          return new Promise(() => undefined);
        },
      },
      signal: cancelled.signal,
    });
    // The rankers never load here: the reply ends at the cancel, not when they do.
    await expect(loading).rejects.toBe('cancelled');
    const stale = { ...VIDEO, features: { video: [0.5], audio: [0.25] } };
    await expect(session.compose([say('is there any sound?')], { method: 'clip-sim', video: { turn: stale, rankers: noRankers } })).rejects.toThrow(
      'This video was analyzed by another version of the app; share it again to ask about it.',
    );
  });

  it('says it did not catch a line it can read nothing in (no word of it in any pool text), and answers any other', async () => {
    const texts = ['what a cute dog', 'I love the beach', ...NOT_UNDERSTOOD.lines];
    const { session } = sessionWith({ texts, train: TEXT_ONCE });
    for (const line of ['asdfgh qwerty zxcv ???', '😂😂😂', '?!'])
      expect(
        (await session.compose([say(line)], { method: 'clip-sim' })).elements.map((e) => e.text),
        line,
      ).toEqual([NOT_UNDERSTOOD.lines[0]]);
    // One word the pool knows ("dog") is enough to answer as ever.
    expect((await session.compose([say('asdfgh dog')], { method: 'clip-sim' })).elements.map((e) => e.text)).not.toContain(NOT_UNDERSTOOD.lines[0]);
  });

  it('answers a question with a statement when question-answer says people do, and follows the encoder without it', async () => {
    const texts = ['What is its name?', 'I have two dogs.'];
    embeddingsFor('Do you have a dog?', unit(1, 0));
    embeddingsFor('What is its name?', unit(1, 0.05));
    embeddingsFor('I have two dogs.', unit(1, 0.3));
    // After a question people mostly tell (statement), rarely ask back.
    const questionAnswer = {
      counts: [
        [50, 40, 10],
        [90, 5, 5],
        [60, 30, 10],
      ],
    };
    const contexts = [{ context: 'hi', response: 'I have two dogs.' }];
    const reply = async (weights: number[]) =>
      (
        await sessionWith({
          texts,
          heads: fakeHeads([
            [1, 0, 0],
            [0, 0, 1],
          ]),
          chat: { weights: { text: weights, image: [0, 1, 0] }, contexts, questionAnswer },
        }).session.compose([say('Do you have a dog?')], { method: 'hybrid' })
      ).elements.map((e) => e.text);
    expect(await reply([0, 1, 0, 0, 0])).toEqual(['What is its name?']);
    expect(await reply([0, 0.4, 0, 0, 0.6])).toEqual(['I have two dogs.']);
  });

  it('replies at once from a pool whose rows are still being computed: clip-sim from the rows there so far, never a pending one; DE++ waits for them all', async () => {
    const texts = ['what a cute dog', 'I love the beach', 'dogs are the best'];
    const { session, encoder } = sessionWith({
      texts,
      train: TEXT_ONCE,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
    });
    let finishTexts: () => void = () => undefined;
    const textsComplete = new Promise<void>((resolve) => (finishTexts = resolve));
    // Text rows 0 and 2 and image row 0 (the dog) read as zero until computed; as embedPool makes them,
    // the matrices are the ranking kernels' own, so a row filled later is ranked at once.
    const zeroed = ScoreMatrix.fromRows(texts.map((t, i) => (i === 1 ? embeddingOf(t) : new Float32Array(2))));
    const images = ScoreMatrix.fromRows([new Float32Array(2), IMAGES[1]!.embedding]);
    const pendingTexts = new Set([0, 2]);
    const pendingImages = new Set([0]);
    let wanted = 0;
    session.setPool({
      texts,
      textMatrix: zeroed,
      images: IMAGES,
      imageMatrix: images,
      train: async () => TEXT_ONCE,
      pendingTexts,
      pendingImages,
      textsComplete,
      imagesComplete: new Promise(() => undefined),
      rowsWanted: () => void wanted++,
    });
    // BM25 needs no CLIP row, and the reply's text is encoded on its own.
    const reply = await session.compose([say('my puppy is so cute')], { method: 'bm25' });
    expect(reply.elements.map((e) => e.text)).toEqual(['what a cute dog']);
    expect([...reply.elements[0]!.embedding]).toEqual([...embeddingOf('what a cute dog')]);
    expect(encoder.encoded).toEqual(['my puppy is so cute', 'what a cute dog']); // the visitor's words, then the reply's pending row
    // clip-sim answers at once from the one text row there (the best would be a pending one), and asks for nothing.
    const live = await session.compose([say('look at my dog')], { method: 'clip-sim' });
    expect(live.elements.map((e) => e.text)).toEqual(['I love the beach']);
    expect(live.composed.steps[0]!.candidates.map((c) => c.index)).toEqual([1]);
    // A picture asked for is never one whose row is pending: the beach, though the dog's label matches.
    const picture = await session.compose([say('show me a dog')], { method: 'clip-sim' });
    expect(picture.composed.elements.filter((e) => e.kind === 'image').map((e) => e.index)).toEqual([1]);
    expect(wanted).toBe(0);
    // DE++ derives keys from every row: it waits for them...
    let answered = false;
    void session.compose([say('look at my dog')], { method: 'depp' }).then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(answered).toBe(false);
    // ...and says so, so the worker computes them without deferring to the very request that waits.
    expect(wanted).toBe(1);
    texts.forEach((t, i) => zeroed.data.set(embeddingOf(t), i * 2));
    pendingTexts.clear();
    finishTexts();
    await new Promise((r) => setTimeout(r, 10));
    expect(answered).toBe(false); // the image rows are still pending
    // Once the rows are there, clip-sim offers them too.
    expect((await session.compose([say('look at my dog')], { method: 'clip-sim' })).elements.map((e) => e.text)).toEqual(['what a cute dog']);
  });

  it("warms every step without waiting for the CLIP rows, and builds the first reply's ranker before them", async () => {
    const texts = ['what a cute dog', 'I love the beach', 'dogs are the best'];
    const { session, encoder } = sessionWith({
      texts,
      train: TEXT_ONCE,
      heads: fakeHeads([
        [1, 0, 0],
        [0, 0, 1],
      ]),
    });
    const never = new Promise<void>(() => undefined);
    let wanted = 0;
    session.setPool({
      texts,
      textMatrix: matrix(texts.map(() => new Float32Array(2))),
      images: IMAGES,
      imageMatrix: matrix(IMAGES.map((i) => i.embedding)),
      train: async () => TEXT_ONCE,
      pendingTexts: new Set([0, 1, 2]),
      textsComplete: never,
      rowsWanted: () => void wanted++,
    });
    // DE++ ranks by keys of every text row, which never come here: its steps return without a reply.
    for (const step of WARM_UP_STEPS.filter((s) => s !== 'image-tower' && s !== 'caption-bank')) await session.warmUp(step, 'depp');
    await session.prepareFirstReply({ method: 'depp' });
    expect(encoder.encoded).toEqual([]);
    expect(wanted).toBe(0); // warming waits for nothing, so it asks for nothing
    // BM25 needs no CLIP row: its text step composes the hidden turn, which encodes its words and its reply's pending row.
    await session.warmUp('text-turn', 'bm25');
    await session.warmUp('image-ranking', 'bm25');
    expect(encoder.encoded).toEqual(['look at this', 'what a cute dog']);
    // Without a detector every photo is captioned from the bank: it is embedded once, here.
    await session.warmUp('caption-bank', 'bm25');
    await session.warmUp('caption-bank', 'bm25');
    expect(encoder.encoded).toEqual(['look at this', 'what a cute dog', 'A photo of a dog.', 'A photo of a beach.']);
  });

  it('stops a warm-up step whose signal has fired before it runs a model, and runs it in full when asked again', async () => {
    const texts = ['what a cute dog', 'I love the beach'];
    const { session, encoder } = sessionWith({ texts, train: TEXT_ONCE });
    const preempted = new AbortController();
    preempted.abort('pre-empted');
    await expect(session.warmUp('text-turn', 'bm25', preempted.signal)).rejects.toBe('pre-empted');
    await expect(session.warmUp('image-ranking', 'bm25', preempted.signal)).rejects.toBe('pre-empted');
    expect(encoder.encoded).toEqual([]);
    await session.warmUp('text-turn', 'bm25', new AbortController().signal);
    expect(encoder.encoded).toContain('look at this');
  });

  it('draws the random baseline from RANDOM_SEED: two fresh sessions reply alike', async () => {
    const texts = ['what a cute dog', 'I love the beach', 'dogs are the best', 'alpha gamma', 'beta delta'];
    const draws = seededRandom(RANDOM_SEED);
    const scores = texts.map(() => draws());
    const expected = texts[scores.indexOf(Math.max(...scores))];
    const replies = [];
    for (let i = 0; i < 2; i++) replies.push(await sessionWith({ texts, train: TEXT_ONCE }).session.compose([say('look at my dog')], { method: 'random' }));
    expect(replies[0]!.elements.map((e) => e.text)).toEqual([expected]);
    expect(replies[1]!.composed.steps.map((s) => s.candidates)).toEqual(replies[0]!.composed.steps.map((s) => s.candidates));
  });

  it('scores a replayed turn: a perfect method at 100, and a wrong intent as a miss', async () => {
    const record: DialogueRecord = {
      ...dialogue('1', [text('look at my dog')], [text('what a cute dog')]),
      negativeTexts: ['I love the beach'],
      negativeMediaKeys: ['beach'],
    };
    const good = await sessionWith({ train: TEXT_ONCE }).session.replayTurn(record, 1, { method: 'clip-sim' });
    expect(good.score.intentF1.f1).toBe(100);
    expect(good.score.mmRelevance.f1).toBeCloseTo(100, 4); // it composes exactly the reference text
    expect(good.score.ranks).toEqual([{ modality: 'text', rank: { higher: 0, ties: 0 }, candidates: 2 }]);
    const wrong = await sessionWith({ train: IMAGE_ONCE }).session.replayTurn(record, 1, { method: 'bm25' });
    expect(wrong.score.intentF1.f1).toBe(0);
    expect(wrong.score.ranks).toEqual([{ modality: 'text', rank: { higher: 1, ties: 0, miss: true }, candidates: 2 }]);
  });

  it('refuses a turn that is not a response and a record whose images are not in the pool', async () => {
    const { session } = sessionWith();
    const record = dialogue('5', [text('my dog')], [media('cat')]);
    await expect(session.replayTurn(record, 0)).rejects.toThrow('Dialogue 5 has no response turn 0: it has turns 1 to 1.');
    await expect(session.replayTurn(record, 1)).rejects.toThrow('Dialogue 5 shows the image "cat", which is not in the pool in use.');
  });

  it('ends a replay of a whole dialogue on the benchmark figures for that dialogue', async () => {
    const record: DialogueRecord = {
      ...dialogue('7', [text('my dog'), media('dog')], [text('so cute')], [text('at the sea'), media('beach')]),
      negativeTexts: ['what a cute dog', 'I love the beach'],
      negativeMediaKeys: ['beach', 'dog'],
    };
    const train = [dialogue('t', [text('hi')], [text('hello'), media('dog')])]; // a text, an image, then stop
    // The page: each turn replayed in its session, then the running means.
    const page = sessionWith({ train }).session;
    const figures: TurnFigures[] = [];
    for (let t = 1; t < record.turns.length; t++) {
      const { score } = await page.replayTurn(record, t, { method: 'clip-sim' });
      figures.push({ mmRelevance: score.mmRelevance.f1, intentF1: score.intentF1.f1, ranks: score.ranks });
    }
    const bench = await evaluateSession(sessionWith({ train }).session, [record], { method: 'clip-sim' });
    const means = sessionMeans(figures);
    expect(bench.responses).toBe(2);
    expect(means.mmRelevance).toBe(bench.mmRelevance);
    expect(means.intentF1).toBe(bench.intentF1);
    expect(means.recallAt1).toEqual({ text: bench.recall.text.recallAt[1], image: bench.recall.image.recallAt[1] });
    // Both replies are [text, image]: against [text] Intent F1 is 2 x 50 x 100 / 150 = 66.7, against [text, image] 100.
    expect(means.intentF1).toBeCloseTo((200 / 3 + 100) / 2, 10);
  });
});

/** Two pool texts and the two images, no train split: the pool of the photo tests below. */
function useDogAndBeachPool(session: ReplySession): void {
  const texts = ['what a cute dog', 'I love the beach'];
  session.setPool({
    texts,
    textMatrix: matrix(texts.map((t) => EMBEDDINGS.get(t)!)),
    images: IMAGES,
    imageMatrix: matrix(IMAGES.map((i) => i.embedding)),
    train: async () => null,
  });
}

describe('ReplySession with a captioning model', () => {
  const photoTurn = (imageId: string): SessionTurn => ({
    elements: [{ kind: 'image', imageId, decode: async () => ({ width: 1, height: 1, data: new Uint8Array([0, 0, 0, 255]) }) }],
  });

  function captionedSession(caption: (n: number) => Promise<{ text: string }>) {
    const encoder = tableEncoder();
    (encoder as unknown as { encodeImages: () => Promise<Float32Array[]> }).encodeImages = async () => [unit(1, 0)];
    const failures: string[] = [];
    let calls = 0;
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null, {
      captioner: { caption: () => caption(++calls) },
      onCaptionerFailed: (reason) => failures.push(reason),
    });
    useDogAndBeachPool(session);
    return { session, failures, calls: () => calls };
  }

  it("shows the model's sentence and keeps the caption it replaced", async () => {
    const { session } = captionedSession(async () => ({ text: 'a dog on a sofa' }));
    const reply = await session.compose([photoTurn('p1')], { method: 'clip-sim' });
    expect(reply.captions.map((c) => [c.text, c.source, c.replaced?.source])).toEqual([['a dog on a sofa', 'captioner', 'image-encoder']]);
    expect(reply.captions[0]!.replaced!.text).toBe('A photo of a dog.'); // the caption bank's sentence without the model
  });

  it('keeps the grounded caption when the model fails, says so once, and asks it nothing more', async () => {
    const { session, failures, calls } = captionedSession(async () => {
      throw new Error('out of memory');
    });
    const first = await session.compose([photoTurn('p1')], { method: 'clip-sim' });
    const second = await session.compose([photoTurn('p1'), say('so cute'), photoTurn('p2')], { method: 'clip-sim' });
    expect([...first.captions, ...second.captions].map((c) => [c.text, c.source])).toEqual([
      ['A photo of a dog.', 'image-encoder'],
      ['A photo of a dog.', 'image-encoder'],
    ]);
    expect(failures).toEqual(['out of memory']);
    expect(calls()).toBe(1);
  });
});

describe('ReplySession with photos prepared while the visitor composes', () => {
  const pixels = { width: 1, height: 1, data: new Uint8Array([0, 0, 0, 255]) };
  const photoTurn = (imageId: string): SessionTurn => ({ elements: [{ kind: 'image', imageId, decode: async () => pixels }] });

  /** A session whose image tower and photo check count their runs; `towerFails` runs of the tower throw first. */
  function countingSession({ unfit = false, towerFails = 0 } = {}) {
    const encoder = tableEncoder();
    const runs = { tower: 0, check: 0 };
    let failuresLeft = towerFails;
    (encoder as unknown as { encodeImages: () => Promise<Float32Array[]> }).encodeImages = async () => {
      runs.tower++;
      if (failuresLeft-- > 0) throw new Error('the image tower ran out of memory');
      return [unit(1, 0.1)];
    };
    // Classes drawing, hentai, neutral, porn, sexy: P(porn) + P(hentai) = 1 is over the bar, 0 is not.
    const photoCheck = new PhotoChecker(async () => {
      runs.check++;
      return Float32Array.from(unfit ? [0, 0.5, 0, 0.5, 0] : [0, 0, 1, 0, 0]);
    });
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null, { photoCheck });
    useDogAndBeachPool(session);
    return { session, runs };
  }

  it('answers a prepared photo as an unprepared one, without checking or encoding it again', async () => {
    const plain = countingSession();
    const expected = await plain.session.compose([photoTurn('p1')], { method: 'clip-sim' });
    expect(plain.runs).toEqual({ tower: 1, check: 1 });

    const prepared = countingSession();
    await prepared.session.preparePhoto('p1', pixels);
    await prepared.session.preparePhoto('p1', pixels); // the same photo is prepared once
    expect(prepared.runs).toEqual({ tower: 1, check: 1 });
    let decodes = 0;
    const countedTurn: SessionTurn = { elements: [{ kind: 'image', imageId: 'p1', decode: async () => (decodes++, pixels) }] };
    const reply = await prepared.session.compose([countedTurn], { method: 'clip-sim' });
    expect(prepared.runs).toEqual({ tower: 1, check: 1 });
    expect(decodes).toBe(0); // the turn has nothing left to do with its pixels
    expect(reply.composed.elements).toEqual(expected.composed.elements);
    expect(reply.captions).toEqual(expected.captions);
    expect(reply.relevance).toBe(expected.relevance);
    expect(reply.photoChecks).toEqual([{ imageId: 'p1', verdict: 'fit' }]);
  });

  it('does not analyse a photo the check calls unfit, and the turn gets the screened line', async () => {
    const { session, runs } = countingSession({ unfit: true });
    await session.preparePhoto('p1', pixels);
    const reply = await session.compose([photoTurn('p1')], { method: 'clip-sim' });
    expect(runs).toEqual({ tower: 0, check: 1 });
    expect(reply.screened?.category).toBe('photo');
    expect(reply.photoChecks).toEqual([{ imageId: 'p1', verdict: 'unfit' }]);
  });

  it('leaves a step that failed while preparing to the turn, which does it again', async () => {
    const { session, runs } = countingSession({ towerFails: 1 });
    await session.preparePhoto('p1', pixels); // does not throw: nobody waits for it
    const reply = await session.compose([photoTurn('p1')], { method: 'clip-sim' });
    expect(runs).toEqual({ tower: 2, check: 1 });
    expect(reply.captions.map((c) => c.source)).toEqual(['image-encoder']);
    expect(reply.composed.elements.length).toBeGreaterThan(0);
  });

  it('stops a reply at its next step when it is cancelled: nothing is analysed after the check', async () => {
    const { session, runs } = countingSession();
    const cancel = new AbortController();
    await expect(session.compose([photoTurn('p1')], { method: 'clip-sim', signal: AbortSignal.abort('cancelled') })).rejects.toBe('cancelled');
    expect(runs).toEqual({ tower: 0, check: 0 });
    // Cancelled while the photo is checked: the check ends, and the analysis never starts.
    const checking = session.compose([photoTurn('p2')], { method: 'clip-sim', signal: cancel.signal });
    cancel.abort('cancelled');
    await expect(checking).rejects.toBe('cancelled');
    expect(runs.tower).toBe(0);
  });
});
