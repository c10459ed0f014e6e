import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClevrAnswerers, clevrQuestions } from '../engine/clevr/clevrAnswerer';
import type { ClevrOnnxModelId } from '../engine/clevr/clevrModels';
import { CLEVR_SPLITS, generateClevrDataset } from '../engine/clevr/clevrDataset';
import { CLEVR_ANSWERS } from '../engine/clevr/clevrFeatures';
import { chooseExecutionPlan } from '../engine/onnx/executionPlan';
import { seededRandom } from '../engine/random';
import { FsPackSource } from './fsPackSource';

const MODELS_DIR = join('models', 'clevr');
const WASM = () => chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function load(dir = MODELS_DIR): Promise<ClevrAnswerers> {
  const source = new FsPackSource(dir);
  return ClevrAnswerers.load(source, await source.listFiles(), WASM());
}

describe('the shipped CLEVR-Dialog models (models/clevr)', () => {
  // One test per model, each with its own limit: all six in one took 515 s on a loaded 2-core machine.
  const shipped = (JSON.parse(readFileSync(join(MODELS_DIR, 'clevr.json'), 'utf8')) as { models: ClevrOnnxModelId[] }).models;
  let shared: Promise<{ answerers: ClevrAnswerers; items: ReturnType<typeof clevrQuestions> }> | null = null;
  const valSplit = () =>
    (shared ??= (async () => {
      const answerers = await load();
      // The val split is regenerated here, and encoded by the engine's own clevrFeatures: the same arrays
      // clevr:data wrote for the recipe, so the export, the encoding and the runtime are checked together.
      const { scenes, records } = generateClevrDataset(CLEVR_SPLITS.val);
      return { answerers, items: clevrQuestions(scenes, records, answerers.vocab) };
    })());
  afterAll(async () => (await shared)?.answerers.release());

  it('ships models', () => expect(shipped.length).toBeGreaterThan(0));

  it.each(shipped)(
    '%s scores on the val split through the engine what PyTorch scored when it was trained',
    async (model) => {
      const { answerers, items } = await valSplit();
      const training = JSON.parse(readFileSync(join(MODELS_DIR, 'training.json'), 'utf8')) as Record<string, { best_val_accuracy: number }>;
      expect(items.length).toBe(10_000);
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
      // Float sums in another order may flip an argmax tie or two in 10,000.
      expect(Math.abs(right / items.length - training[model]!.best_val_accuracy), model).toBeLessThanOrEqual(3 / 10_000);
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
