/**
 * The CLEVR-Dialog answerers on onnxruntime-web, like every model of the app (WebGPU, else WASM): the
 * ONNX models of models/clevr/ (trained by models/scripts/clevr/train_clevr.py) and the two baselines.
 */
import { EngineError } from '../errors';
import { type ExecutionPlan } from '../onnx/executionPlan';
import { ModelSessions, type SessionsOptions, type SessionsState, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import { float32Rows, int64Rows } from '../onnx/batchTensors';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { isPlainObject, ownValue } from '../datasets/validation';
import { randomPick } from '../random';
import {
  CLEVR_ANSWERS,
  HISTORY_ROUNDS,
  MAX_OBJECTS,
  OBJECT_FEATURES,
  PIXEL_HEIGHT,
  PIXEL_WIDTH,
  QUESTION_TOKENS,
  ROUND_TOKENS,
  type ClevrVocabulary,
  answersForQuestion,
  objectFeatures,
  pixelInputs,
  roundInputs,
  scenePixels,
  vocabulary,
} from './clevrFeatures';
import { CLEVR_ONNX_MODELS, type ClevrModelId, type ClevrOnnxModelId, clevrModelName } from './clevrModels';
import type { QuestionLabel } from './templates';
import type { ClevrDialogRecord } from './generateDialogs';
import type { Scene } from './scene';

const CLEVR_CONFIG_FILE = 'clevr.json';

/** One question to answer: its encoded inputs (clevrFeatures.ts) and, for Random-Q, its template. */
export interface ClevrQuestion {
  readonly question: Int32Array;
  readonly history: Int32Array;
  readonly objects: Float32Array;
  readonly objectMask: Float32Array;
  /** The picture drawn small (scenePixels), for the pixel models. */
  readonly pixels: Uint8Array;
  readonly template: QuestionLabel;
  readonly text: string;
}

export interface ClevrPrediction {
  readonly answer: string;
  /** The model's probability for each of CLEVR_ANSWERS (uniform over the drawn set for the baselines). */
  readonly probabilities: Float32Array;
}

const MISSING_ADVICE = 'the CLEVR-Dialog view answers with the Random-Q baseline only. Restore models/clevr (npm run clevr:train) and reload.';

export class ClevrAnswerers {
  private constructor(
    readonly vocab: ClevrVocabulary,
    readonly models: readonly ClevrOnnxModelId[],
    /** The model that did best on the val split when trained (clevr.json "default"). */
    readonly defaultModel: ClevrOnnxModelId | null,
    private readonly sessions: ModelSessions<ClevrOnnxModelId>,
    /** Where the models were read from, for messages. */
    readonly location: string,
  ) {}

  static async load(
    source: PackFileSource,
    files: readonly string[],
    plan: ExecutionPlan,
    options: Omit<SessionsOptions<ClevrOnnxModelId>, 'missingAdvice'> = {},
  ): Promise<ClevrAnswerers> {
    const fileSet = new Set(files);
    if (!fileSet.has(CLEVR_CONFIG_FILE)) throw new EngineError('pack-file-missing', `${source.location}${CLEVR_CONFIG_FILE} is missing, so ${MISSING_ADVICE}`);
    const config = await readPackJson(source, CLEVR_CONFIG_FILE);
    const where = `${source.location}${CLEVR_CONFIG_FILE}`;
    if (!isPlainObject(config)) throw new EngineError('pack-file-corrupt', `${where} is not an object, so ${MISSING_ADVICE}`);
    const words = ownValue(config, 'words');
    const answers = ownValue(config, 'answers');
    const models = ownValue(config, 'models');
    if (!Array.isArray(words) || !words.every((w) => typeof w === 'string'))
      throw new EngineError('pack-file-corrupt', `${where}: "words" must be a list of strings, so ${MISSING_ADVICE}`);
    if (JSON.stringify(answers) !== JSON.stringify(CLEVR_ANSWERS))
      throw new EngineError(
        'pack-file-corrupt',
        `${where}: "answers" are not the grammar's ${CLEVR_ANSWERS.length} answers in order; retrain with npm run clevr:train.`,
      );
    if (!Array.isArray(models) || !models.every((m) => (CLEVR_ONNX_MODELS as readonly unknown[]).includes(m)))
      throw new EngineError('pack-file-corrupt', `${where}: "models" must list models of ${CLEVR_ONNX_MODELS.join(', ')}.`);
    const ids = models as ClevrOnnxModelId[];
    const chosen = ownValue(config, 'default');
    const defaultModel = ids.find((id) => id === chosen) ?? ids[ids.length - 1] ?? null;
    const sessions = await ModelSessions.load(
      source,
      fileSet,
      ids.map((id) => ({ key: id, file: id, label: `${clevrModelName(id)} CLEVR-Dialog model` })),
      plan,
      { ...options, missingAdvice: MISSING_ADVICE },
    );
    return new ClevrAnswerers(vocabulary(words), ids, defaultModel, sessions, source.location);
  }

  /** What to say when `model` is asked of a folder that lacks it: where, and what it holds instead. */
  missingModel(model: ClevrModelId): string {
    const held = this.models.map(clevrModelName).join(', ');
    return `The ${clevrModelName(model)} model is not in ${this.location} (it holds ${held || 'no model'}); choose another model.`;
  }

  get backend(): SessionsState<ClevrOnnxModelId> {
    return this.sessions.state;
  }

  /** Answers a batch of questions with one model; the baselines draw with `random`. */
  async answer(model: ClevrModelId, questions: readonly ClevrQuestion[], random: () => number): Promise<ClevrPrediction[]> {
    if (model === 'random' || model === 'random-q') return questions.map((q) => baselineAnswer(model, q, random));
    if (!this.models.includes(model)) throw new EngineError('pack-file-missing', this.missingModel(model));
    if (questions.length === 0) return [];
    const n = questions.length;
    const names = new Set(this.sessions.inputNames(model));
    const outputs = await this.sessions.run(model, () => {
      const feeds: Record<string, ort.Tensor> = {};
      // The exporter drops inputs a model does not read (LF-Q reads the question only).
      if (names.has('question'))
        feeds.question = new ort.Tensor(
          'int64',
          int64Rows(
            questions.map((q) => q.question),
            QUESTION_TOKENS,
          ),
          [n, QUESTION_TOKENS],
        );
      if (names.has('history'))
        feeds.history = new ort.Tensor(
          'int64',
          int64Rows(
            questions.map((q) => q.history),
            HISTORY_ROUNDS * ROUND_TOKENS,
          ),
          [n, HISTORY_ROUNDS, ROUND_TOKENS],
        );
      if (names.has('objects'))
        feeds.objects = new ort.Tensor(
          'float32',
          float32Rows(
            questions.map((q) => q.objects),
            MAX_OBJECTS * OBJECT_FEATURES,
          ),
          [n, MAX_OBJECTS, OBJECT_FEATURES],
        );
      if (names.has('object_mask'))
        feeds.object_mask = new ort.Tensor(
          'float32',
          float32Rows(
            questions.map((q) => q.objectMask),
            MAX_OBJECTS,
          ),
          [n, MAX_OBJECTS],
        );
      if (names.has('pixels')) {
        const plane = 3 * PIXEL_HEIGHT * PIXEL_WIDTH;
        const pixels = new Float32Array(n * plane);
        questions.forEach((q, i) => pixels.set(pixelInputs(q.pixels), i * plane));
        feeds.pixels = new ort.Tensor('float32', pixels, [n, 3, PIXEL_HEIGHT, PIXEL_WIDTH]);
      }
      return feeds;
    });
    const logits = floatOutput(outputs, 'logits', 'a CLEVR-Dialog model');
    const k = CLEVR_ANSWERS.length;
    return questions.map((_, i) => {
      const row = logits.subarray(i * k, (i + 1) * k);
      const max = Math.max(...row);
      const exp = Float32Array.from(row, (v) => Math.exp(v - max));
      const sum = exp.reduce((a, b) => a + b, 0);
      const probabilities = exp.map((v) => v / sum);
      let best = 0;
      for (let j = 1; j < k; j++) if (row[j]! > row[best]!) best = j;
      return { answer: CLEVR_ANSWERS[best]!, probabilities };
    });
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}

/** Random: any of the answers; Random-Q: any answer of the question's type (paper sec. 5). */
export function baselineAnswer(model: 'random' | 'random-q', question: Pick<ClevrQuestion, 'template' | 'text'>, random: () => number): ClevrPrediction {
  const allowed = model === 'random' ? CLEVR_ANSWERS : answersForQuestion(question.template, question.text);
  const probabilities = new Float32Array(CLEVR_ANSWERS.length);
  for (const a of allowed) probabilities[CLEVR_ANSWERS.indexOf(a)] = 1 / allowed.length;
  return { answer: randomPick(random, allowed), probabilities };
}

/** Every question of a set of dialogs as the models read it, with its true answer and its coreference distance. */
export function clevrQuestions(
  scenes: readonly Scene[],
  records: readonly ClevrDialogRecord[],
  vocab: ClevrVocabulary,
): { question: ClevrQuestion; answer: string; corefDistance: number | null }[] {
  return records.flatMap((record, s) => {
    const { features, mask } = objectFeatures(scenes[s]!);
    const pixels = scenePixels(scenes[s]!);
    return record.dialogs.flatMap((dialog) =>
      dialog.dialog.map((round, n) => ({
        question: {
          ...roundInputs(dialog.caption, dialog.dialog.slice(0, n), round.question, vocab),
          objects: features,
          objectMask: mask,
          pixels,
          template: round.template,
          text: round.question,
        },
        answer: round.answer,
        corefDistance: round.coref_distance,
      })),
    );
  });
}
