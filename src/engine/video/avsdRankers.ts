/**
 * The AVSD answer rankers on onnxruntime-web: late-fusion models (AVSD paper, sec. 5: question, dialog
 * history, video and audio encoded apart, concatenated, and scored against each candidate answer),
 * one per input set of the paper's ablation, trained by models/scripts/avsd/train_avsd.py.
 */
import { isPlainObject, ownValue } from '../datasets/validation';
import { EngineError } from '../errors';
import type { ExecutionPlan } from '../onnx/executionPlan';
import { ModelSessions, type SessionsOptions, type SessionsState, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import { float32Rows, int64Rows } from '../onnx/batchTensors';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { AUDIO_FEATURES } from './audioFeatures';
import { ANSWER_TOKENS, HISTORY_ROUNDS, QUESTION_TOKENS, ROUND_TOKENS, type TextInputs, type WordVocabulary, vocabulary } from './avsdInputs';
import { AVSD_CONFIG_FILE, type AvsdModelId, AVSD_MODEL_IDS, avsdModelName, pageModels } from './avsdModels';
import { CANDIDATES_PER_QUESTION } from './videoDialogs';

export { AVSD_MODELS, AVSD_MODEL_IDS, type AvsdModelId, SCREENING_MODEL, avsdModelName } from './avsdModels';
import { VIDEO_FEATURES } from './videoFeatures';

const MISSING_ADVICE = 'questions about videos cannot be answered. Restore models/avsd (npm run avsd:train) and reload.';

/** One question about a video, as the rankers read it. */
export interface AvsdItem {
  text: TextInputs;
  video: Float32Array;
  audio: Float32Array;
}

export class AvsdRankers {
  private constructor(
    readonly vocab: WordVocabulary,
    /** Every distinct answer of the train split: what the page draws its 100 candidates from. */
    readonly answers: readonly string[],
    readonly models: readonly AvsdModelId[],
    readonly defaultModel: AvsdModelId,
    private readonly sessions: ModelSessions<AvsdModelId>,
  ) {}

  /** `which`: 'page' loads only the rankers the page runs (pageModels); 'all' every one listed, for the benchmark. */
  static async load(
    source: PackFileSource,
    files: readonly string[],
    plan: ExecutionPlan,
    which: 'page' | 'all',
    options: Omit<SessionsOptions<AvsdModelId>, 'missingAdvice'> = {},
  ): Promise<AvsdRankers> {
    const fileSet = new Set(files);
    const where = `${source.location}${AVSD_CONFIG_FILE}`;
    if (!fileSet.has(AVSD_CONFIG_FILE)) throw new EngineError('pack-file-missing', `${where} is missing, so ${MISSING_ADVICE}`);
    const config = await readPackJson(source, AVSD_CONFIG_FILE);
    if (!isPlainObject(config)) throw new EngineError('pack-file-corrupt', `${where} is not an object, so ${MISSING_ADVICE}`);
    const words = ownValue(config, 'words');
    const answers = ownValue(config, 'answers');
    const models = ownValue(config, 'models');
    const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((w) => typeof w === 'string');
    if (!isStrings(words)) throw new EngineError('pack-file-corrupt', `${where}: "words" must be a list of strings, so ${MISSING_ADVICE}`);
    if (!isStrings(answers) || answers.length < CANDIDATES_PER_QUESTION)
      throw new EngineError('pack-file-corrupt', `${where}: "answers" must list at least ${CANDIDATES_PER_QUESTION} answers, so ${MISSING_ADVICE}`);
    if (!Array.isArray(models) || models.length === 0 || !models.every((m) => (AVSD_MODEL_IDS as readonly unknown[]).includes(m))) {
      throw new EngineError('pack-file-corrupt', `${where}: "models" must list some of ${AVSD_MODEL_IDS.join(', ')}, so ${MISSING_ADVICE}`);
    }
    const listed = models as AvsdModelId[];
    const chosen = ownValue(config, 'default');
    const defaultModel = listed.find((id) => id === chosen) ?? listed[listed.length - 1]!;
    const ids = which === 'all' ? listed : listed.filter((id) => pageModels(defaultModel).includes(id));
    const sessions = await ModelSessions.load(
      source,
      fileSet,
      ids.map((id) => ({ key: id, file: `avsd-${id}`, label: `${avsdModelName(id)} answer ranker` })),
      plan,
      { ...options, missingAdvice: MISSING_ADVICE },
    );
    return new AvsdRankers(vocabulary(words), answers, ids, defaultModel, sessions);
  }

  get backend(): SessionsState<AvsdModelId> {
    return this.sessions.state;
  }

  /** Each item's score for each of its 100 candidates. */
  async rank(model: AvsdModelId, items: readonly AvsdItem[]): Promise<Float32Array[]> {
    if (!this.models.includes(model)) throw new EngineError('pack-file-missing', `The ${avsdModelName(model)} ranker is not in models/avsd; choose another.`);
    if (items.length === 0) return [];
    const n = items.length;
    const names = new Set(this.sessions.inputNames(model));
    const outputs = await this.sessions.run(model, () => {
      const feeds: Record<string, ort.Tensor> = {
        question: new ort.Tensor(
          'int64',
          int64Rows(
            items.map((q) => q.text.question),
            QUESTION_TOKENS,
          ),
          [n, QUESTION_TOKENS],
        ),
        candidates: new ort.Tensor(
          'int64',
          int64Rows(
            items.map((q) => q.text.candidates),
            CANDIDATES_PER_QUESTION * ANSWER_TOKENS,
          ),
          [n, CANDIDATES_PER_QUESTION, ANSWER_TOKENS],
        ),
      };
      // The exporter drops inputs a model does not read (Q reads no history, no video, no audio).
      if (names.has('history'))
        feeds.history = new ort.Tensor(
          'int64',
          int64Rows(
            items.map((q) => q.text.history),
            HISTORY_ROUNDS * ROUND_TOKENS,
          ),
          [n, HISTORY_ROUNDS, ROUND_TOKENS],
        );
      if (names.has('video'))
        feeds.video = new ort.Tensor(
          'float32',
          float32Rows(
            items.map((q) => q.video),
            VIDEO_FEATURES,
          ),
          [n, VIDEO_FEATURES],
        );
      if (names.has('audio'))
        feeds.audio = new ort.Tensor(
          'float32',
          float32Rows(
            items.map((q) => q.audio),
            AUDIO_FEATURES,
          ),
          [n, AUDIO_FEATURES],
        );
      return feeds;
    });
    const scores = floatOutput(outputs, 'scores', 'an AVSD answer ranker');
    return items.map((_, i) => scores.slice(i * CANDIDATES_PER_QUESTION, (i + 1) * CANDIDATES_PER_QUESTION));
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}
