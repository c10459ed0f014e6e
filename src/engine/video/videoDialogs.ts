/**
 * Question-answer rounds about a generated clip, from its event list, in AVSD's shape: each round a
 * question and its answer, and for evaluation 100 candidate answers (the right one among answers to
 * questions of the same kind first, then popular and random ones), as AVSD's protocol ranks.
 */
import { randomInt, randomPick, seededRandom, shuffled } from '../random';
import { CLIP_SECONDS, type ClipObject, SHAPE_KINDS, type ShapeKind, type VideoClip } from './videoClips';

/** What a question needs: the picture, the sound, or the picture read through the history ("it"). */
export const QUESTION_KINDS = [
  'count',
  'first',
  'last',
  'motion',
  'leave',
  'sound',
  'sound-kind',
  'sound-time',
  'loudness',
  'speech',
  'exists',
  'it-color',
  'it-motion',
] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];
export const QUESTION_NEEDS: Record<QuestionKind, 'video' | 'audio' | 'history+video'> = {
  count: 'video',
  first: 'video',
  last: 'video',
  motion: 'video',
  leave: 'video',
  exists: 'video',
  sound: 'audio',
  'sound-kind': 'audio',
  'sound-time': 'audio',
  loudness: 'audio',
  speech: 'audio',
  'it-color': 'history+video',
  'it-motion': 'history+video',
};

interface VideoRound {
  question: string;
  answer: string;
  kind: QuestionKind;
}

export interface VideoDialog {
  clipId: string;
  rounds: VideoRound[];
}

export const ROUNDS_PER_DIALOG = 6;
export const CANDIDATES_PER_QUESTION = 100;

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four'];

function named(o: Pick<ClipObject, 'color' | 'shape'>): string {
  return `${o.color} ${o.shape}`;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

function aNamed(o: Pick<ClipObject, 'color' | 'shape'>): string {
  return `${article(o.color)} ${named(o)}`;
}

const SOUND_NAMES = { beep: 'a beeping sound', knock: 'knocking', music: 'some music', speech: 'someone speaking' } as const;

function byEntry(clip: VideoClip): ClipObject[] {
  return [...clip.objects].sort((a, b) => a.enter - b.enter || clip.objects.indexOf(a) - clip.objects.indexOf(b));
}

/** The answer to a question of this kind, or null when the kind cannot be asked of this clip. */
function round(kind: QuestionKind, clip: VideoClip, random: () => number, focus: { shape: ShapeKind; object: ClipObject | null } | null): VideoRound | null {
  const objects = byEntry(clip);
  const { sound } = clip;
  const silent = sound.kind === 'none';
  const ask = (question: string, answer: string): VideoRound => ({ question, answer, kind });
  switch (kind) {
    case 'count':
      return ask(
        randomPick(random, ['how many objects are there?', 'how many shapes do you see?']),
        objects.length === 1 ? 'there is only one object' : `there are ${NUMBER_WORDS[objects.length]} objects`,
      );
    case 'first': {
      const first = objects[0]!;
      const together = objects.filter((o) => o.enter === first.enter).length > 1;
      return together ? null : ask(randomPick(random, ['what appears first?', 'which shape do you see first?']), aNamed(first));
    }
    case 'last': {
      if (objects.length === 1) return ask('what is the last thing to appear?', `only ${aNamed(objects[0]!)} appears`);
      const last = objects[objects.length - 1]!;
      return objects[objects.length - 2]!.enter === last.enter ? null : ask('what is the last thing to appear?', `${aNamed(last)} comes in last`);
    }
    case 'motion': {
      const moving = objects.filter((o) => o.motion !== 'still' && o.leave - o.enter >= 1);
      if (moving.length > 1) return null;
      return ask(
        randomPick(random, ['does anything move?', 'is anything moving?']),
        moving.length === 0 ? 'no, nothing moves' : `yes, the ${named(moving[0]!)} moves to the ${moving[0]!.motion}`,
      );
    }
    case 'leave': {
      const leaving = objects.filter((o) => o.leave < CLIP_SECONDS);
      if (leaving.length > 1) return null;
      return ask('does anything disappear?', leaving.length === 0 ? 'no, everything stays' : `yes, the ${named(leaving[0]!)} disappears`);
    }
    case 'sound':
      return ask(randomPick(random, ['is there any sound?', 'can you hear anything?']), silent ? 'no, it is silent' : 'yes, there is sound');
    case 'sound-kind':
      return ask(
        randomPick(random, ['what kind of sound do you hear?', 'what is the sound?']),
        silent ? 'nothing, there is no sound' : SOUND_NAMES[sound.kind as keyof typeof SOUND_NAMES],
      );
    case 'sound-time':
      return ask(
        'when does the sound start?',
        silent ? 'there is no sound at all' : { beginning: 'right at the beginning', middle: 'in the middle', end: 'near the end' }[sound.time],
      );
    case 'loudness':
      return ask('is the sound loud?', silent ? 'there is no sound at all' : sound.loud ? 'yes, it is loud' : 'no, it is quiet');
    case 'speech':
      return ask(
        randomPick(random, ['does anyone speak?', 'does somebody talk?']),
        sound.kind === 'speech' ? 'yes, someone says a few words' : 'no, nobody speaks',
      );
    case 'exists': {
      if (!focus) return null;
      return ask(`is there a ${focus.shape}?`, focus.object ? `yes, there is a ${focus.shape}` : `no, there is no ${focus.shape}`);
    }
    case 'it-color':
      return focus?.object ? ask('what color is it?', `it is ${focus.object.color}`) : null;
    case 'it-motion':
      return focus?.object
        ? ask(
            'does it move?',
            focus.object.motion === 'still' || focus.object.leave - focus.object.enter < 1
              ? 'no, it stays still'
              : `yes, it moves to the ${focus.object.motion}`,
          )
        : null;
  }
}

const STANDALONE: readonly QuestionKind[] = ['count', 'first', 'last', 'motion', 'leave', 'sound', 'sound-kind', 'sound-time', 'loudness', 'speech'];

/**
 * Six rounds about a clip: standalone questions in a random order, with one "is there a <shape>?"
 * followed, when there is one, by a question about "it" that only the history says which shape is.
 */
export function generateVideoDialog(clip: VideoClip, seed: number): VideoDialog {
  const random = seededRandom(seed);
  const rounds: VideoRound[] = [];
  const kinds = shuffled(random, STANDALONE);
  // Shapes seen once only: "it" then names one object.
  const shapes = SHAPE_KINDS.filter((s) => clip.objects.filter((o) => o.shape === s).length <= 1);
  const shape = randomPick(random, shapes.length > 0 ? shapes : SHAPE_KINDS);
  const focus = { shape, object: clip.objects.find((o) => o.shape === shape) ?? null };
  const existsAt = randomInt(random, ROUNDS_PER_DIALOG - 1);
  const follow: QuestionKind = random() < 0.5 ? 'it-color' : 'it-motion';
  for (const kind of kinds) {
    if (rounds.length === existsAt) {
      rounds.push(round('exists', clip, random, focus)!);
      const it = round(follow, clip, random, focus);
      if (it) rounds.push(it);
    }
    if (rounds.length >= ROUNDS_PER_DIALOG) break;
    const next = round(kind, clip, random, focus);
    if (next) rounds.push(next);
  }
  return { clipId: clip.id, rounds: rounds.slice(0, ROUNDS_PER_DIALOG) };
}

/**
 * 100 candidates for a round, the right answer among them, as AVSD builds them: answers to other
 * questions of the same kind (plausible), then the most frequent answers (popular), then random ones.
 */
export function candidateAnswers(answer: string, kind: QuestionKind, bank: AnswerBank, random: () => number): string[] {
  const chosen = new Set([answer]);
  const take = (list: readonly string[], n: number) => {
    for (const a of list) {
      if (chosen.size >= n) break;
      chosen.add(a);
    }
  };
  take(shuffled(random, bank.byKind.get(kind) ?? []), 1 + 30);
  take(bank.popular, chosen.size + 20);
  take(shuffled(random, bank.all), CANDIDATES_PER_QUESTION);
  if (chosen.size < CANDIDATES_PER_QUESTION) throw new Error(`The answer bank holds ${bank.all.length} answers; 100 candidates need at least 100.`);
  return shuffled(random, [...chosen]);
}

export interface AnswerBank {
  /** Every distinct answer, in first-seen order. */
  all: string[];
  byKind: Map<QuestionKind, string[]>;
  /** The 50 most frequent answers. */
  popular: string[];
}

export function answerBank(dialogs: readonly VideoDialog[]): AnswerBank {
  const counts = new Map<string, number>();
  const byKind = new Map<QuestionKind, string[]>();
  for (const d of dialogs) {
    for (const r of d.rounds) {
      counts.set(r.answer, (counts.get(r.answer) ?? 0) + 1);
      const list = byKind.get(r.kind) ?? [];
      if (!list.includes(r.answer)) list.push(r.answer);
      byKind.set(r.kind, list);
    }
  }
  const all = [...counts.keys()];
  const popular = [...all].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : 1)).slice(0, 50);
  return { all, byKind, popular };
}
