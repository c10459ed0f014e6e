/**
 * AVSD-style measures of an answer ranker on generated dialogs: the rank of the right answer among
 * its 100 candidates (R@1/5/10, MRR, mean rank, as the AVSD paper's Table 3), split by what the
 * question needs, and DSTC7's answer-generation metrics for the top-ranked answer.
 */
import { type CaptionScores, captionMetrics } from '../metrics/captionMetrics';
import type { AvsdRankers, AvsdModelId } from './avsdRankers';
import { type VideoQuestion, rankCandidates } from './videoAnswer';
import type { AvsdRecord } from './avsdDataset';
import { QUESTION_KINDS, QUESTION_NEEDS, type QuestionKind } from './videoDialogs';

interface RankFigures {
  questions: number;
  /** Percentages. */
  r1: number;
  r5: number;
  r10: number;
  /** 0..100, as the AVSD paper prints it. */
  mrr: number;
  meanRank: number;
}

function rankFigures(ranks: readonly number[]): RankFigures {
  const n = ranks.length;
  const share = (k: number) => (n === 0 ? 0 : (100 * ranks.filter((r) => r <= k).length) / n);
  return {
    questions: n,
    r1: share(1),
    r5: share(5),
    r10: share(10),
    mrr: n === 0 ? 0 : (100 * ranks.reduce((s, r) => s + 1 / r, 0)) / n,
    meanRank: n === 0 ? 0 : ranks.reduce((s, r) => s + r, 0) / n,
  };
}

/** 1 + the number of candidates scored above the right one (ties go to the right answer, as AVSD's scorer). */
function rankOf(scores: ArrayLike<number>, right: number): number {
  let rank = 1;
  for (let i = 0; i < scores.length; i++) if (i !== right && scores[i]! > scores[right]!) rank++;
  return rank;
}

export interface AvsdQuestionResult {
  kind: QuestionKind;
  rank: number;
  top: string;
  answer: string;
}

/** Every question of the records, with its own 100 candidates and the index of the right one. */
export function avsdItems(
  records: readonly AvsdRecord[],
  features: readonly { video: Float32Array; audio: Float32Array }[],
): { question: VideoQuestion; kind: QuestionKind; answer: string; right: number; candidates: string[] }[] {
  return records.flatMap((record, c) =>
    record.dialog.rounds.map((round, n) => ({
      question: { question: round.question, earlier: record.dialog.rounds.slice(0, n), video: features[c]!.video, audio: features[c]!.audio },
      kind: round.kind,
      answer: round.answer,
      right: record.candidates[n]!.indexOf(round.answer),
      candidates: record.candidates[n]!,
    })),
  );
}

/** Each question's rank of the right answer and the top answer, ranked the engine's one way (videoAnswer.ts). */
export async function rankAll(rankers: AvsdRankers, model: AvsdModelId, items: ReturnType<typeof avsdItems>, batch = 256): Promise<AvsdQuestionResult[]> {
  const ranked = await rankCandidates(rankers, model, items, batch);
  return items.map((s, i) => ({ kind: s.kind, rank: rankOf(ranked[i]!.scores, s.right), top: ranked[i]!.ranked[0]!.text, answer: s.answer }));
}

export interface AvsdModelFigures {
  all: RankFigures;
  byNeed: Record<'video' | 'audio' | 'history+video', RankFigures>;
  byKind: Record<QuestionKind, RankFigures>;
  /** DSTC7's metrics of the top-ranked answer against the reference answer. */
  generation: CaptionScores;
}

export function avsdModelFigures(results: readonly AvsdQuestionResult[]): AvsdModelFigures {
  const needs = ['video', 'audio', 'history+video'] as const;
  return {
    all: rankFigures(results.map((r) => r.rank)),
    byNeed: Object.fromEntries(
      needs.map((need) => [need, rankFigures(results.filter((r) => QUESTION_NEEDS[r.kind] === need).map((r) => r.rank))]),
    ) as AvsdModelFigures['byNeed'],
    byKind: Object.fromEntries(
      QUESTION_KINDS.map((kind) => [kind, rankFigures(results.filter((r) => r.kind === kind).map((r) => r.rank))]),
    ) as AvsdModelFigures['byKind'],
    generation: captionMetrics(results.map((r) => ({ candidate: r.top, references: [r.answer] }))),
  };
}
