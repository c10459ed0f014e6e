/**
 * The statistics CLEVR-Dialog's paper reports for its dataset (Table 1, Fig. 3): sizes, unique questions
 * and answers, vocabulary, question length, coreference distance, and how captions, questions and
 * coreference distances are distributed.
 */
import type { ClevrDialogRecord } from './generateDialogs';
import {
  CAPTION_LABELS,
  type CaptionLabel,
  type HistoryDependence,
  QUESTION_LABELS,
  QUESTION_TEMPLATES,
  type QuestionFamily,
  type QuestionLabel,
} from './templates';

export interface ClevrStats {
  readonly images: number;
  readonly dialogs: number;
  readonly questions: number;
  readonly uniqueQuestions: number;
  readonly uniqueAnswers: number;
  readonly vocabulary: number;
  readonly meanQuestionLength: number;
  readonly meanCorefDistance: number;
  /** Shares in %, in the order of the labels. */
  readonly captionKinds: Record<CaptionLabel, number>;
  readonly questionFamilies: Record<QuestionFamily, number>;
  readonly questionTemplates: Record<QuestionLabel, number>;
  readonly historyDependence: Record<HistoryDependence, number>;
  /** Share of the questions with a coreference, by distance 1..10 (10 counts 10 and more). */
  readonly corefDistance: number[];
}

/** Lower-case words: the tokens the vocabulary and the question lengths count. */
export function clevrTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function shares<K extends string>(keys: readonly K[], counts: Map<string, number>, total: number): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, total === 0 ? 0 : (100 * (counts.get(k) ?? 0)) / total])) as Record<K, number>;
}

export function clevrStats(records: readonly ClevrDialogRecord[]): ClevrStats {
  const questions = new Set<string>();
  const answers = new Set<string>();
  const vocabulary = new Set<string>();
  const captionCounts = new Map<string, number>();
  const familyCounts = new Map<string, number>();
  const templateCounts = new Map<string, number>();
  const historyCounts = new Map<string, number>();
  const distances = new Array<number>(10).fill(0);
  let dialogs = 0;
  let rounds = 0;
  let words = 0;
  let corefs = 0;
  let distanceSum = 0;
  for (const record of records) {
    for (const dialog of record.dialogs) {
      dialogs++;
      captionCounts.set(dialog.caption_template, (captionCounts.get(dialog.caption_template) ?? 0) + 1);
      for (const w of clevrTokens(dialog.caption)) vocabulary.add(w);
      for (const round of dialog.dialog) {
        rounds++;
        questions.add(round.question);
        answers.add(round.answer);
        const tokens = clevrTokens(round.question);
        words += tokens.length;
        for (const w of tokens) vocabulary.add(w);
        for (const w of clevrTokens(round.answer)) vocabulary.add(w);
        const template = QUESTION_TEMPLATES[round.template];
        familyCounts.set(template.family, (familyCounts.get(template.family) ?? 0) + 1);
        templateCounts.set(round.template, (templateCounts.get(round.template) ?? 0) + 1);
        historyCounts.set(template.history, (historyCounts.get(template.history) ?? 0) + 1);
        if (round.coref_distance !== null && round.coref_distance > 0) {
          corefs++;
          distanceSum += round.coref_distance;
          distances[Math.min(10, round.coref_distance) - 1]!++;
        }
      }
    }
  }
  return {
    images: records.length,
    dialogs,
    questions: rounds,
    uniqueQuestions: questions.size,
    uniqueAnswers: answers.size,
    vocabulary: vocabulary.size,
    meanQuestionLength: rounds === 0 ? 0 : words / rounds,
    meanCorefDistance: corefs === 0 ? 0 : distanceSum / corefs,
    captionKinds: shares(CAPTION_LABELS, captionCounts, dialogs),
    questionFamilies: shares(['count', 'exist', 'seek'] as const, familyCounts, rounds),
    questionTemplates: shares(QUESTION_LABELS, templateCounts, rounds),
    historyDependence: shares(['none', 'coref', 'all'] as const, historyCounts, rounds),
    corefDistance: distances.map((d) => (corefs === 0 ? 0 : (100 * d) / corefs)),
  };
}
