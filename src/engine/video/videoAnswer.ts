/**
 * The one path from a question about a video to its answer, for the worker (the page) and the
 * benchmarks: questions are ranked among 100 candidates by an AVSD ranker (AVSD's protocol). The
 * page has no reference candidates, so its candidates are the 100 answers of the train split's bank
 * the screening model (text only) finds most plausible; `bench -- avsd-video` ranks the dataset's own
 * candidates and, through `answerFromBank`, also runs the page's way.
 */
import { type AvsdModelId, type AvsdRankers, SCREENING_MODEL } from './avsdRankers';
import { textInputs } from './avsdInputs';
import { CANDIDATES_PER_QUESTION } from './videoDialogs';

/** A question about a video: the words, the dialog about it so far, and the video's features. */
export interface VideoQuestion {
  question: string;
  /** Earlier questions about this video and their answers, oldest first. */
  earlier: readonly { question: string; answer: string }[];
  video: Float32Array;
  audio: Float32Array;
}

export interface RankedAnswers {
  /** The candidates' scores, in the candidates' order. */
  scores: Float32Array | readonly number[];
  /** The candidates, best first, with their scores. */
  ranked: { text: string; score: number }[];
}

/** Ranks each question's 100 candidates with one model, in batches of `batch` questions. */
export async function rankCandidates(
  rankers: AvsdRankers,
  model: AvsdModelId,
  questions: readonly { question: VideoQuestion; candidates: readonly string[] }[],
  batch = 256,
  signal?: AbortSignal,
): Promise<RankedAnswers[]> {
  const out: RankedAnswers[] = [];
  for (let start = 0; start < questions.length; start += batch) {
    signal?.throwIfAborted();
    const slice = questions.slice(start, start + batch);
    const scores = await rankers.rank(
      model,
      slice.map(({ question: q, candidates }) => ({ text: textInputs(q.question, q.earlier, candidates, rankers.vocab), video: q.video, audio: q.audio })),
    );
    slice.forEach(({ candidates }, i) => {
      const row = scores[i]!;
      out.push({ scores: row, ranked: candidates.map((text, j) => ({ text, score: row[j]! })).sort((a, b) => b.score - a.score) });
    });
  }
  return out;
}

export interface BankAnswer {
  answer: string;
  model: AvsdModelId;
  /** The 100 candidates, best first, with the model's scores. */
  candidates: { text: string; score: number }[];
  bankSize: number;
}

/**
 * The page's answer: the bank in slices of 100 scored by the screening model, the best 100 of all
 * ranked by the default (full) model, its best the answer. `signal` stops it between model runs.
 */
export async function answerFromBank(rankers: AvsdRankers, question: VideoQuestion, signal?: AbortSignal): Promise<BankAnswer> {
  const bank = rankers.answers;
  const screen = rankers.models.includes(SCREENING_MODEL) ? SCREENING_MODEL : rankers.defaultModel;
  const slices: { question: VideoQuestion; candidates: string[] }[] = [];
  for (let start = 0; start < bank.length; start += CANDIDATES_PER_QUESTION) {
    const slice = bank.slice(start, start + CANDIDATES_PER_QUESTION);
    // The last slice is filled up from the start of the bank; only its own answers are kept.
    slices.push({ question, candidates: [...slice, ...bank.slice(0, CANDIDATES_PER_QUESTION - slice.length)] });
  }
  const screened = (await rankCandidates(rankers, screen, slices, undefined, signal)).flatMap((r, s) => {
    const own = Math.min(CANDIDATES_PER_QUESTION, bank.length - s * CANDIDATES_PER_QUESTION);
    return slices[s]!.candidates.slice(0, own).map((text, i) => ({ text, score: r.scores[i]! }));
  });
  const candidates = screened
    .sort((a, b) => b.score - a.score)
    .slice(0, CANDIDATES_PER_QUESTION)
    .map((c) => c.text);
  const model = rankers.defaultModel;
  const [ranked] = await rankCandidates(rankers, model, [{ question, candidates }], undefined, signal);
  return { answer: ranked!.ranked[0]!.text, model, candidates: ranked!.ranked, bankSize: bank.length };
}
