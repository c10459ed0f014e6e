import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClevrAnswerers, clevrQuestions } from '../../engine/clevr/clevrAnswerer';
import type { ClevrOnnxModelId } from '../../engine/clevr/clevrModels';
import { CLEVR_SPLITS, generateClevrDataset } from '../../engine/clevr/clevrDataset';
import { CLEVR_ANSWERS } from '../../engine/clevr/clevrFeatures';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { seededRandom } from '../../engine/random';
import { FsPackSource } from '../tools/fsPackSource';

const MODELS_DIR = join('models', 'clevr');
const WASM = () => chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function load(dir = MODELS_DIR): Promise<ClevrAnswerers> {
  const source = new FsPackSource(dir);
  return ClevrAnswerers.load(source, await source.listFiles(), WASM());
}

type TrainingLog = Record<string, { parity_slice?: { questions: number; accuracy: number } }>;

/** Questions a val scene holds: five dialogs of ten rounds. */
const QUESTIONS_PER_SCENE = 50;

describe('the shipped CLEVR-Dialog models (models/clevr)', () => {
  // One test per model, each with its own limit: all six in one took 515 s on a loaded 2-core machine.
  const shipped = (JSON.parse(readFileSync(join(MODELS_DIR, 'clevr.json'), 'utf8')) as { models: ClevrOnnxModelId[] }).models;
  const training = JSON.parse(readFileSync(join(MODELS_DIR, 'training.json'), 'utf8')) as TrainingLog;
  // The recipe scores each exported model on the first val questions (its parity slice); every model the same ones.
  const sliceQuestions = training[shipped[0] ?? '']?.parity_slice?.questions ?? 2000;
  let shared: Promise<{ answerers: ClevrAnswerers; items: ReturnType<typeof clevrQuestions> }> | null = null;
  const valSlice = () =>
    (shared ??= (async () => {
      const answerers = await load();
      // The first val scenes are regenerated here, and encoded by the engine's own clevrFeatures: the same
      // arrays clevr:data wrote for the recipe, so the export, the encoding and the runtime are checked
      // together. Scenes are generated one by one from their index, so the first 40 are the split's first 40.
      const { scenes, records } = generateClevrDataset({ ...CLEVR_SPLITS.val, scenes: Math.ceil(sliceQuestions / QUESTIONS_PER_SCENE) });
      return { answerers, items: clevrQuestions(scenes, records, answerers.vocab) };
    })());
  afterAll(async () => (await shared)?.answerers.release());

  it('ships models', () => expect(shipped.length).toBeGreaterThan(0));

  it.each(shipped)(
    '%s scores on the first 2,000 val questions through the engine what PyTorch scored when it was exported',
    async (model) => {
      const { answerers, items } = await valSlice();
      const slice = training[model]?.parity_slice;
      if (!slice) throw new Error(`models/clevr/training.json has no parity_slice for ${model}: retrain it with npm run clevr:train.`);
      expect(slice.questions).toBe(2000);
      expect(items.length).toBe(slice.questions);
      expect(answerers.models).toContain(model);
      let right = 0;
      for (let i = 0; i < items.length; i += 1000) {
        const batch = items.slice(i, i + 1000);
        const predictions = await answerers.answer(
          model,
          batch.map((b) => b.question),
          seededRandom(1),
        );
        predictions.forEach((p, j) => {
          if (p.answer === batch[j]!.answer) right++;
        });
      }
      // Float sums in another order may flip an argmax tie: at most one question of the 2,000.
      expect(Math.abs(right - slice.accuracy * slice.questions), model).toBeLessThanOrEqual(1);
      const [one] = await answerers.answer(model, [items[0]!.question], seededRandom(1));
      expect(CLEVR_ANSWERS).toContain(one!.answer);
      expect(one!.probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    },
    300_000,
  );

  it("refuses a folder without clevr.json, or whose answers are not the grammar's, saying what to do", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clevr-models-'));
    dirs.push(dir);
    await expect(load(dir)).rejects.toThrow(
      `${dir}/clevr.json is missing, so the CLEVR-Dialog view answers with the Random-Q baseline only. Restore models/clevr (npm run clevr:train) and reload.`,
    );
    mkdirSync(join(dir, 'onnx'));
    writeFileSync(join(dir, 'clevr.json'), JSON.stringify({ words: ['<pad>'], answers: ['yes', 'no'], models: [] }));
    await expect(load(dir)).rejects.toThrow(`"answers" are not the grammar's ${CLEVR_ANSWERS.length} answers in order; retrain with npm run clevr:train.`);
    writeFileSync(join(dir, 'clevr.json'), JSON.stringify({ words: ['<pad>'], answers: CLEVR_ANSWERS, models: ['lf-q'] }));
    await expect(load(dir)).rejects.toThrow(/lf-q/);
  });
});
