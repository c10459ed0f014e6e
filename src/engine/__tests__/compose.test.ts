import { describe, expect, it } from 'vitest';
import { type IntentModel, type IntentProbabilities, MajorityIntent, chooseIntent, composeResponse } from '../response/compose';
import { ImageInvitations } from '../response/coherence';
import { ClipSimRanker } from '../ranking/clipSimRanker';
import type { CandidatePool, ContextTurn } from '../response/types';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
};
const matrix = (rows: Float32Array[]) => ({ data: Float32Array.from(rows.flatMap((r) => [...r])), rows: rows.length, dim: rows[0]!.length });

// Texts about dogs and beaches; images of a dog and a beach. Two dimensions: dog-ness and beach-ness.
const pool: CandidatePool = {
  texts: ['what a cute dog', 'I love the beach', 'dogs are the best'],
  textMatrix: matrix([unit(1, 0.1), unit(0.1, 1), unit(1, 0.2)]),
  imageKeys: ['dog', 'beach'],
  imageCaptions: ['a dog', 'a beach'],
  imageMatrix: matrix([unit(1, 0), unit(0, 1)]),
};
const dogTurn: ContextTurn[] = [{ speaker: 0, elements: [{ kind: 'text', text: 'look at my dog', embedding: unit(1, 0) }] }];

/** An intent model that follows a script: one probability triple per step. */
const scripted = (steps: IntentProbabilities[]): IntentModel => ({ id: 'head', predict: async (s) => steps[Math.min(s.partial.length, steps.length - 1)]! });

describe('composeResponse (MMDialog sec. 7.2)', () => {
  it('follows the intent step by step, takes the best unused candidate, and stops', async () => {
    const r = await composeResponse(
      dogTurn,
      pool,
      scripted([
        [0.9, 0.1, 0],
        [0, 0.8, 0.2],
        [0.7, 0, 0.3],
        [0, 0, 1],
      ]),
      new ClipSimRanker(pool),
    );
    expect(r.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['text:0', 'image:0', 'text:2']);
    expect(r.steps.map((s) => s.intent)).toEqual(['text', 'image', 'text', 'stop']);
    expect(r.steps[0]!.candidates.map((c) => c.index)).toEqual([0, 2, 1]); // all three texts, best first
    expect(r.steps[2]!.candidates.map((c) => c.index)).toEqual([2, 1]); // text 0 is already used
  });

  it('never stops before the first element and never exceeds the maximum length', async () => {
    expect(chooseIntent([0.1, 0.2, 0.7], 0)).toBe('image');
    expect(chooseIntent([0.1, 0.2, 0.7], 1)).toBe('stop');
    const looping = await composeResponse(dogTurn, pool, scripted([[0.6, 0.4, 0]]), new ClipSimRanker(pool), { maxElements: 2 });
    expect(looping.elements).toHaveLength(2);
    expect(looping.steps.at(-1)!.intent).toBe('stop');
  });

  it('gives a reply whose text invites an image an image before it stops, and says the intent was overruled', async () => {
    const invitingPool: CandidatePool = { ...pool, texts: ['look at this dog', 'I love the beach'], textMatrix: matrix([unit(1, 0.1), unit(0.1, 1)]) };
    const invitations = new ImageInvitations(['look at this']);
    const textThenStop = scripted([
      [0.9, 0.1, 0],
      [0, 0.1, 0.9],
    ]);
    const kept = await composeResponse(dogTurn, invitingPool, textThenStop, new ClipSimRanker(invitingPool), { invitations });
    expect(kept.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['text:0', 'image:0']);
    expect(kept.steps.map((s) => [s.intent, s.forcedBy ?? ''])).toEqual([
      ['text', ''],
      ['image', 'invitation'],
      ['stop', ''],
    ]);
    // Without invitations the same intent stops after the text.
    const plain = await composeResponse(dogTurn, invitingPool, textThenStop, new ClipSimRanker(invitingPool));
    expect(plain.elements.map((e) => e.kind)).toEqual(['text']);
    // At the length limit the owed image still comes, one past the limit, and then the reply stops.
    const textsOnly = scripted([[1, 0, 0]]);
    const atLimit = await composeResponse(dogTurn, invitingPool, textsOnly, new ClipSimRanker(invitingPool), { invitations, maxElements: 1 });
    expect(atLimit.elements.map((e) => e.kind)).toEqual(['text', 'image']);
    expect(atLimit.steps.at(-1)!.intent).toBe('stop');
    // An image shown before the inviting text already keeps the promise.
    const imageFirst = await composeResponse(
      dogTurn,
      invitingPool,
      scripted([
        [0, 1, 0],
        [1, 0, 0],
        [0, 0, 1],
      ]),
      new ClipSimRanker(invitingPool),
      { invitations },
    );
    expect(imageFirst.elements.map((e) => e.kind)).toEqual(['image', 'text']);
  });

  it('takes the majority intent per step from reference responses', async () => {
    const majority = MajorityIntent.fromResponses([['text'], ['text'], ['image', 'text'], ['text', 'image']]);
    // Step 0: 3 text, 1 image. Step 1: 2 stop, 1 text, 1 image. Step 2: 2 stop.
    expect(await majority.predict({ turns: dogTurn, partial: [] })).toEqual([0.75, 0.25, 0]);
    expect(await majority.predict({ turns: dogTurn, partial: [dogTurn[0]!.elements[0]!] })).toEqual([0.25, 0.25, 0.5]);
  });
});

describe('retrieval captioning', () => {
  it('builds sentences from pool labels and picks the one nearest the image', async () => {
    const { captionBank, captionImage } = await import('../response/captioner');
    const bank = captionBank([
      { kind: 'photo', label: 'Colosseum', alt: 'Photo: Colosseum' },
      { kind: 'sticker', label: 'dog face', alt: 'Dog face sticker', keywords: ['dog', 'pet', 'x'] },
      { kind: 'scene', label: 'an apple on a table', alt: 'Drawing of an apple on a table' },
    ]);
    expect(bank).toEqual(['A photo of Colosseum.', 'A picture of a dog face.', 'A photo of a dog.', 'A photo of a pet.', 'An apple on a table.']);
    const m = matrix([unit(1, 0), unit(0.2, 1), unit(0.1, 1), unit(0, 1), unit(1, 1)]);
    const caption = captionImage(unit(0.1, 1), bank, m);
    expect(caption.text).toBe('A photo of a dog.');
    expect(caption.score).toBeCloseTo(1, 6);
    expect(caption.alternatives.map((a) => a.text)).toEqual(['A picture of a dog face.', 'A photo of a pet.']);
  });

  it("leaves out excluded rows, and takes the first of the best candidates that names what the visitor's photo shows", async () => {
    const textOnce = scripted([
      [1, 0, 0],
      [0, 0, 1],
    ]);
    // Text 0 was already said: the next best, text 2.
    const excluded = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { exclude: { text: new Set([0]) } });
    expect(excluded.elements.map((e) => e.index)).toEqual([2]);
    expect(excluded.steps[0]!.candidates.map((c) => c.index)).toEqual([2, 1]);
    // The ranker's order is 0, 2, 1; only text 1 "names" the object: taken within depth 3, not within depth 2.
    const names = (row: number) => row === 1;
    const deep = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { preferText: { names, depth: 3 } });
    expect([deep.elements.map((e) => e.index), deep.steps[0]!.preferred]).toEqual([[1], 'names-photo-object']);
    expect(deep.steps[0]!.candidates.map((c) => c.index)).toEqual([0, 2, 1]); // the ranker's own order, shown as it was
    const shallow = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { preferText: { names, depth: 2 } });
    expect([shallow.elements.map((e) => e.index), shallow.steps[0]!.preferred]).toEqual([[0], undefined]);
    // When the first already names it, nothing is marked.
    const first = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { preferText: { names: (row) => row === 0, depth: 3 } });
    expect(first.steps[0]!.preferred).toBeUndefined();
  });

  it('skips the rows a rule turns down as the ranker offers them, and asks it again past them', async () => {
    const textOnce = scripted([
      [1, 0, 0],
      [0, 0, 1],
    ]);
    const asked: number[] = [];
    // The ranker's order is 0, 2, 1; rows 0 and 2 are turned down: row 1, the only one left.
    const skip = { text: (row: number) => (asked.push(row), row !== 1) };
    const r = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { skip, topN: 2 });
    expect(r.elements.map((e) => e.index)).toEqual([1]);
    expect(r.steps[0]!.candidates.map((c) => c.index)).toEqual([1]);
    expect(asked).toEqual([0, 2, 1]); // the first two offered, then the one left
    // Every row turned down: the reply has nothing to say, and says so by being empty rather than looping.
    const none = await composeResponse(dogTurn, pool, textOnce, new ClipSimRanker(pool), { skip: { text: () => true } });
    expect(none.elements).toEqual([]);
  });

  it('answers a picture request with a line that goes with a picture, then the requested image, then stops', async () => {
    const request = {
      images: [
        { index: 1, score: 2 },
        { index: 0, score: 1 },
      ],
      textRows: (row: number) => row === 1,
      depth: 3,
      fallbackRows: [] as number[],
    };
    const r = await composeResponse(dogTurn, pool, scripted([[1, 0, 0]]), new ClipSimRanker(pool), { request });
    expect(r.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['text:1', 'image:1']);
    expect(r.steps.map((s) => [s.intent, s.forcedBy])).toEqual([
      ['text', 'request'],
      ['image', 'request'],
      ['stop', 'request'],
    ]);
    // No line among the best that goes with a picture: the picture alone.
    const alone = await composeResponse(dogTurn, pool, scripted([[1, 0, 0]]), new ClipSimRanker(pool), { request: { ...request, textRows: () => false } });
    expect(alone.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['image:1']);
    // ... unless a line written to introduce a picture is there: the first of them, though left out of the ranking.
    const introduced = await composeResponse(dogTurn, pool, scripted([[1, 0, 0]]), new ClipSimRanker(pool), {
      request: { ...request, textRows: () => false, fallbackRows: [2, 0] },
      exclude: { text: new Set([2]) },
    });
    expect(introduced.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['text:2', 'image:1']);
  });

  it("answers a question about the demo with the demo's own line, and nothing else", async () => {
    const r = await composeResponse(dogTurn, pool, scripted([[0, 1, 0]]), new ClipSimRanker(pool), { answer: { row: 2 } });
    expect(r.elements.map((e) => `${e.kind}:${e.index}`)).toEqual(['text:2']);
    expect(r.steps.map((s) => [s.intent, s.forcedBy])).toEqual([
      ['text', 'about-the-demo'],
      ['stop', 'about-the-demo'],
    ]);
  });
});
