/**
 * Accuracy the way CLEVR-Dialog's paper breaks it down: overall, by question kind, by history
 * dependence (Fig. 5) and by coreference distance 1-10 (Fig. 4). The benchmark and the page's running
 * figures both add up answers here.
 */
import { QUESTION_LABELS, QUESTION_TEMPLATES, type HistoryDependence, type QuestionFamily, type QuestionLabel } from './templates';

export interface ScoredAnswer {
  readonly template: QuestionLabel;
  readonly corefDistance: number | null;
  readonly correct: boolean;
}

export interface Tally {
  right: number;
  total: number;
}

export interface ClevrAccuracy {
  readonly overall: Tally;
  readonly family: Record<QuestionFamily, Tally>;
  readonly template: Record<QuestionLabel, Tally>;
  readonly history: Record<HistoryDependence, Tally>;
  /** Index d - 1 for distance d; the last holds 10 and more. */
  readonly corefDistance: Tally[];
}

const tally = (): Tally => ({ right: 0, total: 0 });

export function emptyAccuracy(): ClevrAccuracy {
  return {
    overall: tally(),
    family: { count: tally(), exist: tally(), seek: tally() },
    template: Object.fromEntries(QUESTION_LABELS.map((l) => [l, tally()])) as Record<QuestionLabel, Tally>,
    history: { none: tally(), coref: tally(), all: tally() },
    corefDistance: Array.from({ length: 10 }, tally),
  };
}

/** Adds one answer (in place, so the page's running figures grow turn by turn). */
export function addAnswer(accuracy: ClevrAccuracy, answer: ScoredAnswer): void {
  const template = QUESTION_TEMPLATES[answer.template];
  const add = (t: Tally) => {
    t.total++;
    if (answer.correct) t.right++;
  };
  add(accuracy.overall);
  add(accuracy.family[template.family]);
  add(accuracy.template[answer.template]);
  add(accuracy.history[template.history]);
  if (answer.corefDistance !== null && answer.corefDistance > 0) add(accuracy.corefDistance[Math.min(10, answer.corefDistance) - 1]!);
}

export function percent(t: Tally): number {
  return t.total === 0 ? Number.NaN : (100 * t.right) / t.total;
}
