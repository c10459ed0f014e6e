/**
 * Dialog flows by beam search (Kottur et al. 2019, sec. 3.3): from a caption, each partial dialog is
 * extended by questions whose constraints hold in the current state; the flows scored best (new templates,
 * references back to earlier rounds, answers that vary) are kept, and the best of them is the dialog.
 * Deterministic for a seed, so the generator writes the same bytes every time.
 */
import { seededRandom, shuffled } from '../random';
import { type Caption, type DialogState, type Round, ask, captionOptions, questionOptions } from './dialogGrammar';
import type { Scene } from './scene';
import { type CaptionLabel, QUESTION_TEMPLATES, type QuestionLabel } from './templates';

export interface DialogOptions {
  readonly dialogsPerScene?: number;
  readonly rounds?: number;
  readonly beamWidth?: number;
  /** Question plans tried per beam and round. */
  readonly expansions?: number;
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
  readonly score: number;
}

/**
 * How a flow is scored at each step: templates not used yet, references that reach further back, new
 * objects brought into the dialog (so that later questions have earlier ones to refer to), answers that vary,
 * and yes as often as no.
 */
function stepScore(beam: Beam, round: Round, next: DialogState, random: () => number): number {
  const used = beam.rounds.filter((r) => r.template === round.template).length;
  const family = QUESTION_TEMPLATES[round.template].family;
  const recentSameFamily = beam.rounds.slice(-2).filter((r) => QUESTION_TEMPLATES[r.template].family === family).length;
  let score = 1 - 0.7 * used - 0.25 * recentSameFamily;
  if (round.coref_distance !== null && round.coref_distance > 0) score += 0.15 * Math.min(round.coref_distance, 8) - 0.1;
  if (next.mentioned.size > beam.state.mentioned.size) score += 0.35;
  const previous = beam.rounds[beam.rounds.length - 1];
  if (previous && previous.answer === round.answer) score -= 0.3;
  // Yes and no kept near even within a dialog, so an answerer cannot guess "yes" from the words alone.
  if (family === 'exist') {
    const same = beam.rounds.filter((r) => QUESTION_TEMPLATES[r.template].family === 'exist' && r.answer === round.answer).length;
    const other = beam.rounds.filter((r) => QUESTION_TEMPLATES[r.template].family === 'exist' && r.answer !== round.answer).length;
    score += same < other ? 0.6 : same > other ? -0.6 : 0;
  }
  return score + 0.5 * random();
}

/**
 * How a scene's dialogs open, in order: one caption of each kind that applies, starting at a seeded
 * kind. Returns the random stream the generator goes on with, so the page can open a scene exactly as
 * the generator's first dialog does.
 */
export function dialogOpenings(scene: Scene, seed: number): { random: () => number; openings: { caption: Caption; state: DialogState }[] } {
  const random = seededRandom((seed * 7919 + scene.image_index * 104_729) >>> 0);
  const captions = captionOptions(scene, random);
  const offset = Math.floor(random() * Math.max(1, captions.length));
  return { random, openings: captions.map((_, d) => captions[(d + offset) % captions.length]!) };
}

export function generateDialogs(scene: Scene, seed: number, options: DialogOptions = {}): ClevrDialogRecord {
  const dialogsPerScene = options.dialogsPerScene ?? 5;
  const rounds = options.rounds ?? 10;
  const beamWidth = options.beamWidth ?? 8;
  const expansions = options.expansions ?? 12;
  const { random, openings } = dialogOpenings(scene, seed);
  const dialogs: ClevrDialog[] = [];
  const seen = new Set<string>();

  for (let d = 0; d < dialogsPerScene && openings.length > 0; d++) {
    // Captions take turns by kind, so the five dialogs of a scene start differently.
    const { caption, state } = openings[d % openings.length]!;
    let beams: Beam[] = [{ state, rounds: [], score: 0 }];
    for (let r = 0; r < rounds; r++) {
      const next: Beam[] = [];
      for (const beam of beams) {
        const plans = shuffled(random, questionOptions(scene, beam.state, random)).slice(0, expansions);
        for (const plan of plans) {
          const result = ask(scene, beam.state, plan, random);
          next.push({ state: result.state, rounds: [...beam.rounds, result.round], score: beam.score + stepScore(beam, result.round, result.state, random) });
        }
      }
      if (next.length === 0) break;
      next.sort((a, b) => b.score - a.score);
      beams = next.slice(0, beamWidth);
    }
    const best = beams.find((b) => !seen.has(flowKey(caption, b))) ?? beams[0]!;
    seen.add(flowKey(caption, best));
    dialogs.push(toDialog(caption, best.rounds));
  }
  return { split: scene.split, image_index: scene.image_index, image_filename: scene.image_filename, dialogs };
}

function flowKey(caption: Caption, beam: Beam): string {
  return [caption.text, ...beam.rounds.map((r) => r.question)].join('\n');
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
