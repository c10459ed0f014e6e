import { addAnswer, emptyAccuracy } from '../../engine/clevr/clevrEvaluation';
import { CLEVR_MODELS, type ClevrModelId } from '../../engine/clevr/clevrModels';
import { type AskResult, type DialogState, ask, questionOptions } from '../../engine/clevr/dialogGrammar';
import { dialogOpenings } from '../../engine/clevr/generateDialogs';
import { parseQuestion } from '../../engine/clevr/questionParser';
import { type Scene, generateScene } from '../../engine/clevr/scene';
import { QUESTION_TEMPLATES } from '../../engine/clevr/templates';
import { assertNever, errorMessage } from '../../engine/errors';
import { formatCount } from '../../engine/datasets/validation';
import { seededRandom } from '../../engine/random';
import { modelWorker } from '../../shared/modelWorker';
import { modelFolderRef, readModelsIndex } from '../../shared/modelsIndex';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import type { ClevrRef, ClevrSceneFileProgress } from '../../protocol/protocol';
import { SceneFileSuperseded, readSceneFileOffThePage } from './sceneFileReader';
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
  await loadAnswerers(true);
}

/** A restarted model worker has no answerers: they are loaded into it again, and the model chosen stays. */
export async function reloadClevrAnswerers(): Promise<void> {
  if (useClevrStore.getState().phase !== 'ready') return;
  await loadAnswerers(false);
}

/** Loads the answerers into the worker; `chooseBest`: the view's model becomes the one best on val. */
async function loadAnswerers(chooseBest: boolean): Promise<void> {
  let ref: ClevrRef | null = null;
  let note = '';
  try {
    const index = await readModelsIndex();
    ref = index.clevr ? modelFolderRef(index.clevr) : null;
  } catch (error) {
    note = `The list of models could not be read (${errorMessage(error)}), so only the baselines answer.`;
  }
  try {
    const loaded = await modelWorker().call('clevrLoad', { clevr: ref, forceWasm: useSettingsStore.getState().forceWasm });
    const models: ClevrModelId[] = ['random', 'random-q', ...loaded.models];
    // The default is the model that did best on the val split when it was trained (clevr.json "default").
    const best = loaded.defaultModel ?? 'random-q';
    useClevrStore.setState((s) => ({
      phase: 'ready',
      models,
      model: chooseBest || !models.includes(s.model) ? best : s.model,
      modelsNote: note || (loaded.provider ? `Models run on ${loaded.provider === 'webgpu' ? 'WebGPU' : 'WASM'}.` : loaded.note),
    }));
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

function progressSentence(name: string, progress: ClevrSceneFileProgress): { text: string; fraction: number | null } {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0);
  switch (progress.stage) {
    case 'reading':
      return {
        text: `Reading ${name}: ${mb(progress.done)} of ${mb(progress.total)} MB…`,
        fraction: progress.total === 0 ? 1 : progress.done / progress.total,
      };
    case 'parsing':
      return { text: `Reading ${name}: parsing its JSON…`, fraction: null };
    case 'checking':
      return { text: `Checking ${name}: scene ${formatCount(progress.done)} of ${formatCount(progress.total)}…`, fraction: progress.done / progress.total };
    default:
      return assertNever(progress);
  }
}

/**
 * Reads a CLEVR scene file (as CLEVR_val_scenes.json) in a worker of its own, with progress; its scenes
 * replace the generated ones until a reload. A refused file leaves the scenes on screen as they were.
 */
export async function loadSceneFile(file: File): Promise<void> {
  if (file.size > MAX_SCENE_FILE_BYTES) {
    useClevrStore.setState({
      fileError: `${file.name} is ${(file.size / 1e6).toFixed(0)} MB, over the ${MAX_SCENE_FILE_BYTES / 1024 / 1024} MB this view reads. Split it into smaller scene files and load one.`,
    });
    return;
  }
  useClevrStore.setState({ fileProgress: progressSentence(file.name, { stage: 'reading', done: 0, total: file.size }), fileError: null });
  let scenes: string[];
  try {
    scenes = await readSceneFileOffThePage(file, (progress) => useClevrStore.setState({ fileProgress: progressSentence(file.name, progress) }));
  } catch (error) {
    // A newer file's reading stopped this one: that file's progress or outcome is what is shown.
    if (error instanceof SceneFileSuperseded) return;
    useClevrStore.setState({ fileProgress: null, fileError: `${errorMessage(error)} The scenes on screen are kept.` });
    return;
  }
  useClevrStore.setState({ loaded: { name: file.name, scenes }, fileError: null, fileProgress: null });
  await showScene(useClevrStore.getState().seed, 0);
}

/** Back to the generator's scenes. */
export function backToGeneratedScenes(): Promise<void> {
  useClevrStore.setState({ loaded: null, fileError: null });
  return showScene(useClevrStore.getState().seed, 0);
}

async function showScene(seed: number, sceneIndex: number): Promise<void> {
  const loaded = useClevrStore.getState().loaded;
  // A loaded scene's text was checked by the reader (parseClevrScenes) and written by JSON.stringify.
  const scene = loaded ? (JSON.parse(loaded.scenes[sceneIndex % loaded.scenes.length]!) as Scene) : generateScene(seed, sceneIndex, { split: PAGE_SPLIT });
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
    const picture = await modelWorker().call('clevrRender', { objects: [...scene.objects] });
    if (useClevrStore.getState().scene === scene) useClevrStore.setState({ picture });
  } catch (error) {
    if (useClevrStore.getState().scene === scene)
      useClevrStore.setState({ pictureError: `The picture could not be drawn: ${errorMessage(error)} The questions still work from the scene.` });
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
/**
 * Whether the typed question was taken: its round is on screen at once and the model's answer follows.
 * Told at once, not when the model answers: the box cleared then wiped a next question typed meanwhile
 * (e2e/clevr.spec.ts, under load).
 */
export function askTyped(text: string): boolean {
  const { scene, dialog, seed } = useClevrStore.getState();
  if (!scene || !dialog) return false;
  const parsed = parseQuestion(text, scene, dialog);
  if (!parsed.ok) {
    useClevrStore.setState({ parseError: { reason: parsed.reason, suggestions: suggestionsFor(scene, dialog, seed).slice(0, 3) } });
    return false;
  }
  const result = ask(scene, dialog, parsed.plan, seededRandom(seed + dialog.round));
  // The question as the person typed it, not re-worded by the grammar.
  void commit({ ...result, round: { ...result.round, question: text.trim() } });
  return true;
}

async function commit(result: AskResult): Promise<void> {
  const { scene, caption, rounds, model, seed } = useClevrStore.getState();
  if (!scene || !caption) return;
  const index = rounds.length;
  const round = result.round;
  useClevrStore.setState({
    dialog: result.state,
    rounds: [
      ...rounds,
      {
        question: round.question,
        template: round.template,
        truth: round.answer,
        model,
        modelAnswer: null,
        modelError: null,
        corefDistance: round.coref_distance,
        referents: round.referents,
        answerObjects: round.answer_objects,
      },
    ],
    suggestions: suggestionsFor(scene, result.state, seed),
    parseError: null,
    highlight: round.referents.length > 0 ? round.referents : round.answer_objects,
  });
  try {
    const answered = await modelWorker().call('clevrAnswer', {
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
    useClevrStore.setState({
      rounds: now.rounds.map((r, i) => (i === index ? { ...r, modelError: `The model could not answer: ${errorMessage(error)}` } : r)),
    });
  }
}
