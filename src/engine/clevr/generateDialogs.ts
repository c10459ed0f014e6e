/**
 * Dialog flows by beam search, as the original generator does it (Kottur et al. 2019, sec. 3.3;
 * generate_dataset.py, generate_dialog_bfs): from each caption, every partial dialog is extended by one
 * question from each group of templates whose constraints hold; from the fourth round on, flows whose mix
 * of question families leaves the per-round ranges are pruned; beyond the beam width, flows with more
 * follow-ups ("imm2", "sim") and "earlier" references are kept. Deterministic for a seed, so the
 * generator writes the same bytes every time.
 */
import { seededRandom } from '../random';
import { type Caption, type DialogState, type Phrasings, QUESTION_GROUPS, type Round, ask, captionOptions, planQuestion } from './dialogGrammar';
import type { Scene } from './scene';
import { type CaptionLabel, INDEPENDENT_QUESTIONS, QUESTION_TEMPLATES, type QuestionFamily, type QuestionLabel } from './templates';
import { randomPick } from '../random';

export interface DialogOptions {
  readonly dialogsPerScene?: number;
  readonly rounds?: number;
  /** Flows kept per caption and round (the original's --num_beams, 100). */
  readonly beamWidth?: number;
  /** Wording in place of some templates' own (clevr:generate --phrasings); the default is the templates'. */
  readonly phrasings?: Phrasings;
}

export interface ClevrDialog {
  readonly caption: string;
  readonly caption_template: CaptionLabel;
  /** Scene object indices the caption mentions. */
  readonly caption_objects: readonly number[];
  readonly template_info: readonly { readonly label: CaptionLabel | QuestionLabel }[];
  readonly dialog: readonly Round[];
}

/** One image's record, as CLEVR-Dialog writes it (split, image index and file name, five dialogs). */
export interface ClevrDialogRecord {
  readonly split: string;
  readonly image_index: number;
  readonly image_filename: string;
  readonly dialogs: readonly ClevrDialog[];
}

interface Beam {
  readonly state: DialogState;
  readonly rounds: readonly Round[];
}

type Range = readonly [number, number];
/**
 * How many questions of each kind a flow may have after round k+1 (generate_dataset.py, `ranges`, keyed by
 * the 0-based round): independent questions, each family, and count and exist together.
 */
const FAMILY_RANGES: { readonly [round: number]: { readonly [K in 'indep' | QuestionFamily | 'exist+count']: Range } } = {
  3: { indep: [0, 1], seek: [1, 4], exist: [0, 1], count: [0, 1], 'exist+count': [0, 2] },
  4: { indep: [0, 1], seek: [2, 4], exist: [0, 1], count: [0, 1], 'exist+count': [0, 2] },
  5: { indep: [0, 1], seek: [2, 5], exist: [0, 2], count: [0, 2], 'exist+count': [0, 3] },
  6: { indep: [0, 1], seek: [2, 5], exist: [0, 2], count: [0, 2], 'exist+count': [0, 3] },
  7: { indep: [0, 2], seek: [3, 5], exist: [0, 2], count: [0, 2], 'exist+count': [0, 3] },
  8: { indep: [0, 2], seek: [3, 6], exist: [0, 3], count: [0, 3], 'exist+count': [0, 3] },
  9: { indep: [0, 2], seek: [3, 6], exist: [0, 3], count: [0, 3], 'exist+count': [0, 4] },
};

type KindCounts = { indep: number; count: number; exist: number; seek: number };

function kindCounts(labels: readonly QuestionLabel[]): KindCounts {
  const n = { indep: 0, count: 0, exist: 0, seek: 0 };
  for (const label of labels) {
    if (INDEPENDENT_QUESTIONS.includes(label)) n.indep++;
    n[QUESTION_TEMPLATES[label].family]++;
  }
  return n;
}

/** Whether a flow's questions so far stay within the ranges of this round (no ranges before the fourth). */
export function withinRanges(labels: readonly QuestionLabel[], roundIndex: number): boolean {
  return countsWithin(kindCounts(labels), roundIndex);
}

function countsWithin(n: KindCounts, roundIndex: number): boolean {
  const ranges = FAMILY_RANGES[roundIndex];
  if (!ranges) return true;
  const inside = (k: number, [lo, hi]: Range) => lo <= k && k <= hi;
  return (
    inside(n.indep, ranges.indep) &&
    inside(n.seek, ranges.seek) &&
    inside(n.exist, ranges.exist) &&
    inside(n.count, ranges.count) &&
    n.count + n.exist <= ranges['exist+count'][1]
  );
}

/** The original's beam score (sample_beams): follow-ups and "sim" questions, plus up to four "earlier" references. */
function flowScore(rounds: readonly Round[]): number {
  let score = 0;
  let early = 0;
  for (const r of rounds) {
    if (r.template.includes('imm2')) score++;
    if (r.template.includes('sim')) score++;
    if (r.template.includes('early')) early++;
  }
  return score + Math.min(4, early);
}

/** Best score first, ties in random order (the original sorts on (score, random())). */
function ranked(beams: readonly Beam[], random: () => number): Beam[] {
  return beams
    .map((beam) => ({ beam, score: flowScore(beam.rounds), tie: random() }))
    .sort((a, b) => b.score - a.score || b.tie - a.tie)
    .map((x) => x.beam);
}

/**
 * How a scene's dialogs open: one caption of each kind that applies, in the original's order. Returns
 * the random stream the generator goes on with, so the page can open a scene exactly as the generator's
 * first dialog does.
 */
export function dialogOpenings(scene: Scene, seed: number): { random: () => number; openings: { caption: Caption; state: DialogState }[] } {
  const random = seededRandom((seed * 7919 + scene.image_index * 104_729) >>> 0);
  return { random, openings: captionOptions(scene, random) };
}

/** Every flow of `rounds` questions the beam search keeps from one opening, best last dropped first. */
function searchFlows(scene: Scene, state: DialogState, rounds: number, beamWidth: number, random: () => number, phrasings: Phrasings): Beam[] {
  let beams: Beam[] = [{ state, rounds: [] }];
  for (let r = 0; r < rounds; r++) {
    let pool: Beam[] = [];
    for (const beam of beams) {
      const before = kindCounts(beam.rounds.map((x) => x.template));
      for (const group of QUESTION_GROUPS) {
        const plan = planQuestion(scene, beam.state, randomPick(random, group), random);
        if (!plan) continue;
        // Pruned before it is worded: the ranges depend on the labels only.
        const family = QUESTION_TEMPLATES[plan.label].family;
        const after = { ...before, [family]: before[family] + 1, indep: before.indep + (INDEPENDENT_QUESTIONS.includes(plan.label) ? 1 : 0) };
        if (!countsWithin(after, r)) continue;
        const result = ask(scene, beam.state, plan, random, phrasings);
        pool.push({ state: result.state, rounds: [...beam.rounds, result.round] });
      }
    }
    if (pool.length > beamWidth) pool = ranked(pool, random).slice(0, beamWidth);
    beams = pool;
    if (beams.length === 0) break;
  }
  return ranked(beams, random);
}

export function generateDialogs(scene: Scene, seed: number, options: DialogOptions = {}): ClevrDialogRecord {
  const dialogsPerScene = options.dialogsPerScene ?? 5;
  const rounds = options.rounds ?? 10;
  const beamWidth = options.beamWidth ?? 100;
  const { random, openings } = dialogOpenings(scene, seed);
  // Per caption, the final flows; the original takes the last of each ranked list (list.pop()), one per
  // caption, then tops up to five from the last caption's list (generate_dialog_bfs).
  const flows = openings
    .map(({ caption, state }) => ({
      caption,
      beams: searchFlows(scene, state, rounds, beamWidth, random, options.phrasings ?? {}).filter((b) => b.rounds.length === rounds),
    }))
    .filter((f) => f.beams.length > 0);
  const dialogs: ClevrDialog[] = [];
  for (const { caption, beams } of flows) if (dialogs.length < dialogsPerScene) dialogs.push(toDialog(caption, beams.pop()!.rounds));
  for (let k = flows.length - 1; k >= 0 && dialogs.length < dialogsPerScene;) {
    const { caption, beams } = flows[k]!;
    const beam = beams.pop();
    if (beam) dialogs.push(toDialog(caption, beam.rounds));
    else k--;
  }
  return { split: scene.split, image_index: scene.image_index, image_filename: scene.image_filename, dialogs };
}

function toDialog(caption: Caption, rounds: readonly Round[]): ClevrDialog {
  return {
    caption: caption.text,
    caption_template: caption.label,
    caption_objects: caption.objects,
    template_info: [{ label: caption.label }, ...rounds.map((r) => ({ label: r.template }))],
    dialog: rounds,
  };
}
