/**
 * The generated AVSD-style set: clips (videoClips.ts), one six-round dialog each (videoDialogs.ts),
 * and 100 candidate answers per round, deterministic for a seed. Train, val and test clips are
 * numbered apart; the models are chosen on val, and test is only measured.
 */
import { seededRandom } from '../random';
import { type VideoClip, generateClip } from './videoClips';
import { type AnswerBank, type VideoDialog, answerBank, candidateAnswers, generateVideoDialog } from './videoDialogs';

export const AVSD_SPLITS = {
  train: { clips: 1500, seed: 1, split: 'train' },
  val: { clips: 150, seed: 1, split: 'val' },
  test: { clips: 200, seed: 1, split: 'test' },
} as const;
export type AvsdSplit = keyof typeof AVSD_SPLITS;

export interface AvsdRecord {
  clip: VideoClip;
  dialog: VideoDialog;
  /** Per round: the 100 candidates, the right answer among them. */
  candidates: string[][];
}

export function generateAvsdSplit(split: AvsdSplit, bank: AnswerBank | null, clips: number = AVSD_SPLITS[split].clips): AvsdRecord[] {
  const { seed } = AVSD_SPLITS[split];
  const made = Array.from({ length: clips }, (_, i) => {
    const clip = generateClip(seed, i, split);
    return { clip, dialog: generateVideoDialog(clip, seed * 1_000_003 + i) };
  });
  const answers = bank ?? answerBank(made.map((m) => m.dialog));
  const random = seededRandom(seed + 17);
  return made.map(({ clip, dialog }) => ({ clip, dialog, candidates: dialog.rounds.map((r) => candidateAnswers(r.answer, r.kind, answers, random)) }));
}

/** The train split's answer bank: candidates of every split are drawn from it, as the page's are. */
export function trainAnswerBank(): AnswerBank {
  const { seed } = AVSD_SPLITS.train;
  return answerBank(Array.from({ length: AVSD_SPLITS.train.clips }, (_, i) => generateVideoDialog(generateClip(seed, i, 'train'), seed * 1_000_003 + i)));
}
