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

/** CLEVR-Dialog's Table 1 (Kottur et al. 2019): the dataset the original generator made from CLEVR's 85k images. */
export const CLEVR_DIALOG_PAPER = {
  images: 85_000,
  dialogs: 425_000,
  questions: 4_250_000,
  uniqueQuestions: 73_000,
  uniqueAnswers: 29,
  vocabulary: 125,
  meanQuestionLength: 10.6,
  meanCorefDistance: 3.2,
} as const;

/** What the comparison shows for one side: the figures a stats table and the original's measured output share. */
export type ClevrStatsSummary = Pick<
  ClevrStats,
  | 'images'
  | 'dialogs'
  | 'questions'
  | 'uniqueQuestions'
  | 'uniqueAnswers'
  | 'vocabulary'
  | 'meanQuestionLength'
  | 'meanCorefDistance'
  | 'questionFamilies'
  | 'corefDistance'
>;

const fixed = (x: number, digits: number) => x.toFixed(digits);
const share = (x: number) => `${x.toFixed(1)}%`;

/**
 * Table 1 and Fig. 3 side by side: these dialogs, the original generator's own output where it was run
 * on the same kind of scenes, and the paper. Lines of text, for the bench to print.
 */
export function clevrStatsTable(stats: ClevrStats, original: ClevrStatsSummary | null): string[] {
  const paper = CLEVR_DIALOG_PAPER;
  const rows: [string, (s: ClevrStatsSummary) => string, string][] = [
    ['images', (s) => String(s.images), '85k'],
    ['dialogs', (s) => String(s.dialogs), '425k'],
    ['questions', (s) => String(s.questions), '4.25M'],
    ['unique questions', (s) => String(s.uniqueQuestions), '73k'],
    ['unique / all questions', (s) => share((100 * s.uniqueQuestions) / Math.max(1, s.questions)), share((100 * paper.uniqueQuestions) / paper.questions)],
    ['unique answers', (s) => String(s.uniqueAnswers), String(paper.uniqueAnswers)],
    ['vocabulary (words)', (s) => String(s.vocabulary), String(paper.vocabulary)],
    ['mean question length (words)', (s) => fixed(s.meanQuestionLength, 1), fixed(paper.meanQuestionLength, 1)],
    ['mean coreference distance (rounds)', (s) => fixed(s.meanCorefDistance, 2), fixed(paper.meanCorefDistance, 1)],
  ];
  const head = (a: string, b: string, c: string, d: string) => `${a.padEnd(36)}${b.padStart(10)}${c.padStart(10)}${d.padStart(10)}`;
  const lines = [head('figure (paper Table 1)', 'here', 'original', 'paper')];
  for (const [name, value, p] of rows) lines.push(head(name, value(stats), original ? value(original) : '-', p));
  lines.push('', 'question families (paper Fig. 3)');
  for (const family of ['count', 'exist', 'seek'] as const)
    lines.push(head(`  ${family}`, share(stats.questionFamilies[family]), original ? share(original.questionFamilies[family]) : '-', ''));
  lines.push('', 'coreference distance, share of the questions with one (paper Fig. 3; 10 = 10 or more)');
  lines.push(head('  distance', 'here', 'original', ''));
  stats.corefDistance.forEach((v, i) => lines.push(head(`  ${i + 1}`, share(v), original ? share(original.corefDistance[i]!) : '-', '')));
  return lines;
}

/**
 * The original generator's own output (satwikkottur/clevr-dialog, generate_dataset.py, 100 beams) on the
 * first ten scenes of `npm run clevr:generate -- --scenes 15 --seed 7 --no-images`, measured with
 * clevrStats; its coreference distances from the `dependence` it writes for each round.
 */
export const ORIGINAL_GENERATOR_SEED_7: ClevrStatsSummary = {
  images: 10,
  dialogs: 50,
  questions: 500,
  uniqueQuestions: 416,
  uniqueAnswers: 27,
  vocabulary: 117,
  meanQuestionLength: 9.484,
  meanCorefDistance: 3.178,
  questionFamilies: { count: 21, exist: 19, seek: 60 },
  corefDistance: [38.83, 9.71, 13.32, 9.03, 10.61, 8.58, 4.06, 2.93, 2.26, 0.68],
};

/** How a kind of round's recorded objects (its answer_objects) agree with its answer: counts of rounds. */
interface RecordedObjectsCheck {
  readonly rounds: number;
  /** Count questions: as many objects as the count answer. */
  readonly asManyAsTheCount: number;
  /** Exist questions: no objects exactly when the answer is "no". */
  readonly emptyExactlyOnNo: number;
  /** Seek questions: one object. */
  readonly oneObject: number;
  /** Seek questions: that object is the round's one referent (the original's focus_id). */
  readonly theReferent: number;
}

export interface RecordedObjects {
  readonly byTemplate: Partial<Record<QuestionLabel, RecordedObjectsCheck>>;
  /** Mean number of objects a caption records, and how many captions, by caption template. */
  readonly captions: Partial<Record<CaptionLabel, { readonly captions: number; readonly meanObjects: number }>>;
}

/**
 * What each kind of round records as its objects (issue 41). count-other and exist-other count the objects
 * no earlier round holds, so two grammars agree on them only if every kind of round holds the same objects;
 * this puts the original generator's dialogs (graph.history[k].objects, read as answer_objects) beside ours.
 */
export function recordedObjects(records: readonly ClevrDialogRecord[]): RecordedObjects {
  const byTemplate: Partial<Record<QuestionLabel, { -readonly [K in keyof RecordedObjectsCheck]: number }>> = {};
  const captionSums: Partial<Record<CaptionLabel, { captions: number; objects: number }>> = {};
  for (const dialog of records.flatMap((r) => r.dialogs)) {
    const c = (captionSums[dialog.caption_template] ??= { captions: 0, objects: 0 });
    c.captions++;
    c.objects += dialog.caption_objects.length;
    for (const round of dialog.dialog) {
      const t = (byTemplate[round.template] ??= { rounds: 0, asManyAsTheCount: 0, emptyExactlyOnNo: 0, oneObject: 0, theReferent: 0 });
      const objects = new Set(round.answer_objects);
      t.rounds++;
      const family = QUESTION_TEMPLATES[round.template].family;
      if (family === 'count') t.asManyAsTheCount += Number(round.answer) === round.answer_objects.length ? 1 : 0;
      else if (family === 'exist') t.emptyExactlyOnNo += (objects.size === 0) === (round.answer === 'no') ? 1 : 0;
      else {
        t.oneObject += objects.size === 1 ? 1 : 0;
        t.theReferent += objects.size === 1 && round.referents.length === 1 && objects.has(round.referents[0]!) ? 1 : 0;
      }
    }
  }
  const captions = Object.fromEntries(
    Object.entries(captionSums).map(([k, v]) => [k, { captions: v.captions, meanObjects: v.objects / v.captions }]),
  ) as RecordedObjects['captions'];
  return { byTemplate, captions };
}

/** The recorded-objects checks as lines: these dialogs, and beside them a second set's where given. */
export function recordedObjectsTable(here: RecordedObjects, beside: RecordedObjects | null): string[] {
  const checks = (t: QuestionLabel, c: RecordedObjectsCheck | undefined) => {
    if (!c) return '-';
    const p = (n: number) => `${Math.round((100 * n) / c.rounds)}%`;
    const family = QUESTION_TEMPLATES[t].family;
    const shown =
      family === 'count'
        ? `as many as the count ${p(c.asManyAsTheCount)}`
        : family === 'exist'
          ? `empty exactly on no ${p(c.emptyExactlyOnNo)}`
          : `one object ${p(c.oneObject)}, the referent ${p(c.theReferent)}`;
    return `${shown} (${c.rounds} rounds)`;
  };
  const lines = [`what a round records, by template: here${beside ? ' | beside' : ''}`];
  for (const t of QUESTION_LABELS) {
    if (!here.byTemplate[t] && !beside?.byTemplate[t]) continue;
    lines.push(`  ${t.padEnd(25)} ${checks(t, here.byTemplate[t]).padEnd(52)}${beside ? ` | ${checks(t, beside.byTemplate[t])}` : ''}`);
  }
  lines.push(`objects a caption records, mean (captions): here${beside ? ' | beside' : ''}`);
  const mean = (c: { captions: number; meanObjects: number } | undefined) => (c ? `${c.meanObjects.toFixed(2)} (${c.captions})` : '-');
  for (const t of CAPTION_LABELS) {
    if (!here.captions[t] && !beside?.captions[t]) continue;
    lines.push(`  ${t.padEnd(25)} ${mean(here.captions[t]).padEnd(12)}${beside ? ` | ${mean(beside.captions[t])}` : ''}`);
  }
  return lines;
}
