import { describe, expect, it } from 'vitest';
import { AVSD_SPLITS, generateAvsdSplit, trainAnswerBank } from '../video/avsdDataset';
import { type VideoClip, generateClip } from '../video/videoClips';
import { CANDIDATES_PER_QUESTION, ROUNDS_PER_DIALOG, generateVideoDialog } from '../video/videoDialogs';

const clip: VideoClip = {
  id: 'unit',
  seconds: 4,
  objects: [
    { color: 'red', shape: 'circle', enter: 0.5, leave: 4, x: 0.2, y: 0.5, motion: 'right', size: 0.15 },
    { color: 'blue', shape: 'square', enter: 1.5, leave: 3, x: 0.8, y: 0.4, motion: 'still', size: 0.14 },
  ],
  sound: { kind: 'speech', time: 'end', start: 2.9, loud: true, phrase: 'oh wow', track: true },
};

describe("question-answer rounds from a clip's events", () => {
  it('answers each question from the event list', () => {
    const answers = new Map<string, string>();
    for (let seed = 0; seed < 40; seed++) for (const r of generateVideoDialog(clip, seed).rounds) answers.set(r.kind, r.answer);
    expect(Object.fromEntries(answers)).toEqual({
      count: 'there are two objects',
      first: 'a red circle',
      last: 'a blue square comes in last',
      motion: 'yes, the red circle moves to the right',
      leave: 'yes, the blue square disappears',
      sound: 'yes, there is sound',
      'sound-kind': 'someone speaking',
      'sound-time': 'near the end',
      loudness: 'yes, it is loud',
      speech: 'yes, someone says a few words',
      exists: answers.get('exists'),
      'it-color': answers.get('it-color'),
      'it-motion': answers.get('it-motion'),
    });
    expect(['yes, there is a circle', 'yes, there is a square', 'no, there is no triangle']).toContain(answers.get('exists'));
  });

  it('asks about "it" right after the round that names the shape, so only the history says which', () => {
    for (let seed = 0; seed < 40; seed++) {
      const rounds = generateVideoDialog(clip, seed).rounds;
      expect(rounds).toHaveLength(ROUNDS_PER_DIALOG);
      rounds.forEach((r, i) => {
        if (r.kind !== 'it-color' && r.kind !== 'it-motion') return;
        const named = rounds[i - 1]!;
        expect(named.kind).toBe('exists');
        const shape = named.question.replace('is there a ', '').replace('?', '');
        const object = clip.objects.find((o) => o.shape === shape)!;
        if (r.kind === 'it-color') expect(r.answer).toBe(`it is ${object.color}`);
      });
    }
  });

  it('gives every round 100 distinct candidates with the right answer among them, the same for the same seed', () => {
    const bank = trainAnswerBank();
    expect(bank.all.length).toBeGreaterThanOrEqual(CANDIDATES_PER_QUESTION);
    const records = generateAvsdSplit('val', bank, 5);
    for (const record of records) {
      record.candidates.forEach((candidates, n) => {
        expect(new Set(candidates).size).toBe(CANDIDATES_PER_QUESTION);
        expect(candidates).toContain(record.dialog.rounds[n]!.answer);
      });
    }
    expect(generateAvsdSplit('val', bank, 5)).toEqual(records);
    // Splits do not share clips: the ids carry the split, and the drawn events differ.
    expect(generateClip(AVSD_SPLITS.train.seed, 0, 'train')).not.toEqual({ ...generateClip(AVSD_SPLITS.test.seed, 0, 'test'), id: 'train-1-0' });
  });
});
