/**
 * What the AVSD answer rankers read, defined once: the Node exporter writes these arrays for the
 * PyTorch recipe (models/scripts/avsd/), and the engine feeds the same arrays to the exported models.
 */
import { PAD, UNKNOWN, type ClevrVocabulary as WordVocabulary, vocabulary } from '../clevr/clevrFeatures';
import { clevrTokens as wordTokens } from '../clevr/clevrStats';
import { CANDIDATES_PER_QUESTION, type VideoDialog } from './videoDialogs';

export { type WordVocabulary, vocabulary };
export const QUESTION_TOKENS = 12;
/** The last HISTORY_ROUNDS rounds, "question answer" each, most recent last. */
export const HISTORY_ROUNDS = 5;
export const ROUND_TOKENS = 16;
export const ANSWER_TOKENS = 12;

/** The words of the train split's dialogs, after <pad> and <unk>, in first-seen order. */
export function buildWordVocabulary(dialogs: Iterable<VideoDialog>): WordVocabulary {
  const words = [PAD, UNKNOWN];
  const seen = new Set(words);
  for (const d of dialogs) {
    for (const r of d.rounds) {
      for (const w of wordTokens(`${r.question} ${r.answer}`)) {
        if (seen.has(w)) continue;
        seen.add(w);
        words.push(w);
      }
    }
  }
  return vocabulary(words);
}

function encodeInto(out: Int32Array, offset: number, length: number, text: string, vocab: WordVocabulary): void {
  const unknown = vocab.index.get(UNKNOWN)!;
  wordTokens(text)
    .slice(0, length)
    .forEach((w, i) => (out[offset + i] = vocab.index.get(w) ?? unknown));
}

export interface TextInputs {
  /** [QUESTION_TOKENS] */
  question: Int32Array;
  /** [HISTORY_ROUNDS, ROUND_TOKENS], empty rounds first when there were fewer. */
  history: Int32Array;
  /** [CANDIDATES_PER_QUESTION, ANSWER_TOKENS] */
  candidates: Int32Array;
}

export function textInputs(
  question: string,
  earlier: readonly { question: string; answer: string }[],
  candidates: readonly string[],
  vocab: WordVocabulary,
): TextInputs {
  if (candidates.length !== CANDIDATES_PER_QUESTION)
    throw new Error(`A question is ranked among ${CANDIDATES_PER_QUESTION} candidates, not ${candidates.length}.`);
  const q = new Int32Array(QUESTION_TOKENS);
  encodeInto(q, 0, QUESTION_TOKENS, question, vocab);
  const history = new Int32Array(HISTORY_ROUNDS * ROUND_TOKENS);
  const kept = earlier.slice(-HISTORY_ROUNDS);
  kept.forEach((r, i) => encodeInto(history, (HISTORY_ROUNDS - kept.length + i) * ROUND_TOKENS, ROUND_TOKENS, `${r.question} ${r.answer}`, vocab));
  const answers = new Int32Array(CANDIDATES_PER_QUESTION * ANSWER_TOKENS);
  candidates.forEach((c, i) => encodeInto(answers, i * ANSWER_TOKENS, ANSWER_TOKENS, c, vocab));
  return { question: q, history, candidates: answers };
}
