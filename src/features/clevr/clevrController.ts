import { addAnswer, emptyAccuracy } from '../../engine/clevr/clevrEvaluation';
import { CLEVR_MODELS, type ClevrModelId } from '../../engine/clevr/clevrModels';
import { type AskResult, type DialogState, ask, questionOptions } from '../../engine/clevr/dialogGrammar';
import { dialogOpenings } from '../../engine/clevr/generateDialogs';
import { parseQuestion } from '../../engine/clevr/questionParser';
import { parseClevrScenes } from '../../engine/clevr/clevrFiles';
import { type Scene, generateScene } from '../../engine/clevr/scene';
import { QUESTION_TEMPLATES } from '../../engine/clevr/templates';
import { errorMessage } from '../../engine/errors';
import { seededRandom } from '../../engine/random';
import { engine } from '../../shared/engine';
import { modelFolderRef, readModelsIndex } from '../../shared/modelsIndex';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import type { ClevrRef } from '../../worker/protocol';
import { type ClevrSuggestion, useClevrStore } from './clevrStore';

/** The page's scenes are the generator's (split "page"): scene k of seed s is the same in Node, so a test can replay it. */
const PAGE_SPLIT = 'page';
const SUGGESTIONS = 4;

/** ?clevr=<seed>:<scene> opens the view on a given scene (a presenter's link, and the e2e test's). */
export function clevrLinkFromAddress(search: string): { seed: number; sceneIndex: number } | null {
  const m = /^(\d{1,9}):(\d{1,9})$/.exec(new URLSearchParams(search).get('clevr') ?? '');
  return m ? { seed: Number(m[1]), sceneIndex: Number(m[2]) } : null;
}

/** Loads the answerers once (the first time the view opens) and shows the first scene. */
export async function openClevr(): Promise<void> {
  const state = useClevrStore.getState();
  if (state.phase !== 'idle') return;
  const link = clevrLinkFromAddress(window.location.search);
  useClevrStore.setState({ phase: 'loading', ...(link ?? {}) });
  void showScene(link?.seed ?? state.seed, link?.sceneIndex ?? state.sceneIndex);
  let ref: ClevrRef | null = null;
  let note = '';
  try {
    const index = await readModelsIndex();
    ref = index.clevr ? modelFolderRef(index.clevr) : null;
  } catch (error) {
    note = `The list of models could not be read (${errorMessage(error)}), so only the baselines answer.`;
  }
  try {
    const loaded = await engine().call('clevrLoad', { clevr: ref, forceWasm: useSettingsStore.getState().forceWasm });
    const models: ClevrModelId[] = ['random', 'random-q', ...loaded.models];
    // The default is the model that did best on the val split when it was trained (clevr.json "default").
    const best = loaded.defaultModel ?? 'random-q';
    useClevrStore.setState({ phase: 'ready', models, model: best, modelsNote: note || (loaded.provider ? `Models run on ${loaded.provider === 'webgpu' ? 'WebGPU' : 'WASM'}.` : loaded.note) });
  } catch (error) {
    useClevrStore.setState({ phase: 'ready', modelsNote: `The CLEVR-Dialog models could not be loaded: ${errorMessage(error)} Only the baselines answer.` });
  }
}

/** Suggested questions for the state: a few of the grammar's, of different kinds, worded and answered ahead. */
function suggestionsFor(scene: Scene, dialog: DialogState, seed: number): ClevrSuggestion[] {
  const random = seededRandom(seed * 31 + dialog.round);
  const plans = questionOptions(scene, dialog, random);
  const out: ClevrSuggestion[] = [];
  const families = new Set<string>();
  // One of each family first, then whatever is left, so the buttons offer counting, yes/no and attributes.
  for (const pass of [0, 1]) {
    for (const plan of plans) {
      if (out.length >= SUGGESTIONS) break;
      const family = QUESTION_TEMPLATES[plan.label].family + (QUESTION_TEMPLATES[plan.label].history === 'coref' ? '+coref' : '');
      if (pass === 0 && families.has(family)) continue;
      const result = ask(scene, dialog, plan, random);
      if (out.some((s) => s.question === result.round.question)) continue;
      families.add(family);
      out.push({ question: result.round.question, result });
    }
  }
  return out;
}

/** The largest scene file read (CLEVR's val scenes are about 60 MB); larger ones are refused before reading. */
const MAX_SCENE_FILE_BYTES = 200 * 1024 * 1024;

/** Reads a CLEVR scene file (as CLEVR_val_scenes.json); its scenes replace the generated ones until a reload. */
export async function loadSceneFile(file: File): Promise<void> {
  if (file.size > MAX_SCENE_FILE_BYTES) {
    useClevrStore.setState({ fileError: `${file.name} is ${(file.size / 1e6).toFixed(0)} MB, over the ${MAX_SCENE_FILE_BYTES / 1024 / 1024} MB this view reads. Split it into smaller scene files and load one.` });
    return;
  }
  try {
    const scenes = parseClevrScenes(await file.text(), file.name);
    if (scenes.length === 0) throw new Error(`${file.name} holds no scenes.`);
    const empty = scenes.findIndex((s) => s.objects.length === 0);
    if (empty >= 0) throw new Error(`${file.name}, scene ${empty} (image_index ${scenes[empty]!.image_index}) has no objects, so there is nothing to ask about. Remove it and load the file again.`);
    useClevrStore.setState({ loaded: { name: file.name, scenes }, fileError: null });
    await showScene(useClevrStore.getState().seed, 0);
  } catch (error) {
    useClevrStore.setState({ fileError: `${errorMessage(error)} The scenes on screen are kept.` });
  }
}

/** Back to the generator's scenes. */
export function backToGeneratedScenes(): Promise<void> {
  useClevrStore.setState({ loaded: null, fileError: null });
  return showScene(useClevrStore.getState().seed, 0);
}

export async function showScene(seed: number, sceneIndex: number): Promise<void> {
  const loaded = useClevrStore.getState().loaded;
  const scene = loaded ? loaded.scenes[sceneIndex % loaded.scenes.length]! : generateScene(seed, sceneIndex, { split: PAGE_SPLIT });
  const opening = dialogOpenings(scene, seed).openings[0] ?? null;
  const dialog = opening?.state ?? null;
  useClevrStore.setState({
    seed,
    sceneIndex,
    scene,
    picture: null,
    pictureError: null,
    caption: opening?.caption ?? null,
    dialog,
    rounds: [],
    suggestions: dialog ? suggestionsFor(scene, dialog, seed) : [],
    parseError: null,
    highlight: opening?.caption.objects ?? [],
  });
  try {
    const picture = await engine().call('clevrRender', { objects: [...scene.objects] });
    if (useClevrStore.getState().scene === scene) useClevrStore.setState({ picture });
  } catch (error) {
    if (useClevrStore.getState().scene === scene) useClevrStore.setState({ pictureError: `The picture could not be drawn: ${errorMessage(error)} The questions still work from the scene.` });
  }
}

export function nextScene(): Promise<void> {
  const { seed, sceneIndex } = useClevrStore.getState();
  return showScene(seed, sceneIndex + 1);
}

/** Another model: the running figures start again, so they are always one model's. */
export function chooseModel(model: ClevrModelId): void {
  if (CLEVR_MODELS.some((m) => m.id === model) && model !== useClevrStore.getState().model) useClevrStore.setState({ model, accuracy: emptyAccuracy() });
}

export function highlightObjects(objects: readonly number[]): void {
  useClevrStore.setState({ highlight: objects });
}

/** Asks a question the grammar has already worded and answered (a suggestion). */
export function askSuggestion(suggestion: ClevrSuggestion): Promise<void> {
  return commit(suggestion.result);
}

/** Asks a typed question: the grammar reads it, or says why not and offers three it can read. */
export function askTyped(text: string): Promise<boolean> {
  const { scene, dialog, seed } = useClevrStore.getState();
  if (!scene || !dialog) return Promise.resolve(false);
  const parsed = parseQuestion(text, scene, dialog);
  if (!parsed.ok) {
    useClevrStore.setState({ parseError: { reason: parsed.reason, suggestions: suggestionsFor(scene, dialog, seed).slice(0, 3) } });
    return Promise.resolve(false);
  }
  const result = ask(scene, dialog, parsed.plan, seededRandom(seed + dialog.round));
  // The question as the person typed it, not re-worded by the grammar.
  return commit({ ...result, round: { ...result.round, question: text.trim() } }).then(() => true);
}

async function commit(result: AskResult): Promise<void> {
  const { scene, caption, rounds, model, seed } = useClevrStore.getState();
  if (!scene || !caption) return;
  const index = rounds.length;
  const round = result.round;
  useClevrStore.setState({
    dialog: result.state,
    rounds: [...rounds, { question: round.question, template: round.template, truth: round.answer, model, modelAnswer: null, modelError: null, corefDistance: round.coref_distance, referents: round.referents, answerObjects: round.answer_objects }],
    suggestions: suggestionsFor(scene, result.state, seed),
    parseError: null,
    highlight: round.referents.length > 0 ? round.referents : round.answer_objects,
  });
  try {
    const answered = await engine().call('clevrAnswer', {
      model,
      objects: [...scene.objects],
      caption: caption.text,
      // The history holds the true answers, as in the paper's evaluation.
      earlier: rounds.map((r) => ({ question: r.question, answer: r.truth })),
      question: round.question,
      template: round.template,
    });
    const now = useClevrStore.getState();
    if (now.scene !== scene || now.rounds.length <= index) return;
    const accuracy = now.accuracy;
    addAnswer(accuracy, { template: round.template, corefDistance: round.coref_distance, correct: answered.answer === round.answer });
    useClevrStore.setState({ rounds: now.rounds.map((r, i) => (i === index ? { ...r, modelAnswer: answered.answer } : r)), accuracy: { ...accuracy } });
  } catch (error) {
    const now = useClevrStore.getState();
    if (now.scene !== scene) return;
    useClevrStore.setState({ rounds: now.rounds.map((r, i) => (i === index ? { ...r, modelError: `The model could not answer: ${errorMessage(error)}` } : r)) });
  }
}
