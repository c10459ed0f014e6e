import { create } from 'zustand';
import type { AskResult, Caption, DialogState } from '../../engine/clevr/dialogGrammar';
import { type ClevrAccuracy, emptyAccuracy } from '../../engine/clevr/clevrEvaluation';
import type { ClevrModelId } from '../../engine/clevr/clevrModels';
import type { Scene } from '../../engine/clevr/scene';
import type { QuestionLabel } from '../../engine/clevr/templates';

/** One question of the dialog on screen: what the model said beside the scene graph's answer. */
export interface ClevrRoundView {
  readonly question: string;
  readonly template: QuestionLabel;
  readonly truth: string;
  readonly model: ClevrModelId;
  /** null while the model thinks; the error's sentence when it failed. */
  readonly modelAnswer: string | null;
  readonly modelError: string | null;
  readonly corefDistance: number | null;
  readonly referents: readonly number[];
  readonly answerObjects: readonly number[];
}

export interface ClevrSuggestion {
  readonly question: string;
  readonly result: AskResult;
}

interface ClevrPicture {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8ClampedArray;
}

interface ClevrStoreState {
  phase: 'idle' | 'loading' | 'ready';
  /** The answerers the view offers (the baselines always), and what the worker said about the ONNX ones. */
  models: ClevrModelId[];
  modelsNote: string;
  model: ClevrModelId;
  seed: number;
  sceneIndex: number;
  scene: Scene | null;
  picture: ClevrPicture | null;
  pictureError: string | null;
  caption: Caption | null;
  dialog: DialogState | null;
  rounds: ClevrRoundView[];
  suggestions: ClevrSuggestion[];
  /** A typed question the grammar could not read: why, and questions it can. */
  parseError: { reason: string; suggestions: ClevrSuggestion[] } | null;
  /** Objects outlined in the picture: the latest reference, or the one a person points at. */
  highlight: readonly number[];
  /** Every answer of this visit, across scenes, for the running figures. */
  accuracy: ClevrAccuracy;
  /**
   * Scenes from a CLEVR scene file the visitor loaded (null: the generator's), and the file's name. Each
   * scene is kept as its checked JSON and read when shown: a 15,000-scene file is then one copy of text.
   */
  loaded: { name: string; scenes: readonly string[] } | null;
  /** Why a scene file was refused; the scenes on screen stay. */
  fileError: string | null;
  /** A scene file being read, and how far: a sentence and a fraction (null while the JSON is parsed). */
  fileProgress: { text: string; fraction: number | null } | null;
}

export const useClevrStore = create<ClevrStoreState>()(() => ({
  phase: 'idle',
  models: ['random', 'random-q'],
  modelsNote: '',
  model: 'random-q',
  seed: 1,
  sceneIndex: 0,
  scene: null,
  picture: null,
  pictureError: null,
  caption: null,
  dialog: null,
  rounds: [],
  suggestions: [],
  parseError: null,
  highlight: [],
  accuracy: emptyAccuracy(),
  loaded: null,
  fileError: null,
  fileProgress: null,
}));
