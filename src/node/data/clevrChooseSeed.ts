/**
 * npm run clevr:choose-seed -- --candidates DIR [--into models/clevr]
 *
 * Issue 41, tenth round: two trainings of one recipe differ by several points on the original
 * generator's wording, and val cannot tell them apart (docs/clevr-dialog.md, ninth round). So the recipe
 * trains the QIH models with a second seed into DIR, and this step keeps, per model DIR exports, the one
 * of DIR's and INTO's with the higher accuracy on the held-out-wording val split: the val scenes worded
 * with heldout_phrasings.json, never trained on. A tie keeps INTO's. The kept ONNX and its training.json
 * entry go into INTO, with the choice recorded there (seed_choice), and clevr.json's val accuracies and
 * default (the best on val, as train_clevr.py's write_config picks it) are written again. A model whose
 * ONNX file is the same in both folders (a candidate folder started as a copy of INTO) has nothing to
 * choose between and is left as it is, its recorded choice too.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ClevrAnswerers, clevrQuestions } from '../../engine/clevr/clevrAnswerer';
import { CLEVR_SPLITS, generateClevrDataset } from '../../engine/clevr/clevrDataset';
import { percent } from '../../engine/clevr/clevrEvaluation';
import { parseClevrPhrasings } from '../../engine/clevr/clevrFiles';
import { CLEVR_ONNX_MODELS, type ClevrModelId } from '../../engine/clevr/clevrModels';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { scoreClevrModels } from '../bench/benchClevr';
import { UsageError, parseCommandLine, runCommand } from '../tools/cliArgs';
import { FsPackSource } from '../tools/fsPackSource';

const CLEVR_CHOOSE_SEED_USAGE = 'npm run clevr:choose-seed -- --candidates DIR [--into models/clevr]';

/** Our own held-out wording of the val scenes (issue 41, sixth round): what the seed is chosen on. */
const HELDOUT_PHRASINGS = join('models', 'scripts', 'clevr', 'heldout_phrasings.json');

const CHOICE_RULE =
  'the higher accuracy on the held-out-wording val split (val scenes worded with heldout_phrasings.json); a tie keeps the model already shipped';

interface TrainingEntry {
  best_val_accuracy: number;
  seed: number;
  seed_choice?: SeedChoice;
  [key: string]: unknown;
}

interface SeedChoice {
  rule: string;
  heldout_val: { seed: number; accuracy: number; right: number; questions: number }[];
  kept: number;
}

interface ClevrConfig {
  words: string[];
  models: string[];
  default: string | null;
  val_accuracy: Record<string, number>;
  [key: string]: unknown;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** The held-out wording of the val split's first `scenes` scenes (all by default): what the seed is chosen on. */
export function heldoutVal(scenes: number = CLEVR_SPLITS.val.scenes): ReturnType<typeof generateClevrDataset> {
  const phrasings = parseClevrPhrasings(readFileSync(HELDOUT_PHRASINGS, 'utf8'), HELDOUT_PHRASINGS);
  return generateClevrDataset({ ...CLEVR_SPLITS.val, scenes, phrasings });
}

/** The accuracy of each of a folder's models on these dialogs, through the engine's answerers (the page's code path). */
async function folderAccuracy(
  dir: string,
  models: readonly ClevrModelId[],
  { scenes, records }: ReturnType<typeof generateClevrDataset>,
): Promise<Record<string, { right: number; total: number }>> {
  const source = new FsPackSource(dir);
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  // Sessions are made for the models run only.
  const answerers = await ClevrAnswerers.load(source, await source.listFiles(), plan, { deferred: CLEVR_ONNX_MODELS });
  try {
    const { results } = await scoreClevrModels(answerers, models, clevrQuestions(scenes, records, answerers.vocab));
    return Object.fromEntries(models.map((m) => [m, results[m]!.overall]));
  } finally {
    await answerers.release();
  }
}

/**
 * Keeps, per model the candidates export, the better of the two on the held-out wording (`dialogs`, by
 * default the whole val split worded so); returns what it did, a line a model.
 */
export async function chooseClevrSeeds(candidates: string, into: string, dialogs?: ReturnType<typeof heldoutVal>): Promise<string[]> {
  for (const dir of [candidates, into])
    for (const file of ['clevr.json', 'training.json'])
      if (!existsSync(join(dir, file)))
        throw new UsageError(
          `${join(dir, file)} is missing; both folders must be train_clevr.py's output (clevr.json, training.json, onnx/).`,
          CLEVR_CHOOSE_SEED_USAGE,
        );
  const candidateConfig = readJson<ClevrConfig>(join(candidates, 'clevr.json'));
  const config = readJson<ClevrConfig>(join(into, 'clevr.json'));
  if (JSON.stringify(candidateConfig.words) !== JSON.stringify(config.words))
    throw new Error(
      `${candidates} was trained on another vocabulary than ${into} (${candidateConfig.words.length} and ${config.words.length} words): train both on the same npm run clevr:data.`,
    );
  const candidateLog = readJson<Record<string, TrainingEntry>>(join(candidates, 'training.json'));
  const log = readJson<Record<string, TrainingEntry>>(join(into, 'training.json'));
  const exported = candidateConfig.models.filter((m) => candidateLog[m]) as ClevrModelId[];
  const missing = exported.filter((m) => !config.models.includes(m) || !log[m]);
  if (missing.length > 0) throw new Error(`${into} has no ${missing.join(', ')} to compare with; train it there first.`);
  const onnx = (dir: string, model: string) => {
    const file = join(dir, 'onnx', `${model}.onnx`);
    if (!existsSync(file)) throw new Error(`${file} is missing, though ${join(dir, 'training.json')} lists ${model}: train it into that folder again.`);
    return readFileSync(file);
  };
  const unchanged = new Set(exported.filter((m) => onnx(candidates, m).equals(onnx(into, m))));
  const models = exported.filter((m) => !unchanged.has(m));
  const lines = exported.filter((m) => unchanged.has(m)).map((m) => `${m}: the same file in both folders, left as it is`);
  if (models.length === 0) return lines;
  const heldout = dialogs ?? heldoutVal();
  const [theirs, ours] = [await folderAccuracy(candidates, models, heldout), await folderAccuracy(into, models, heldout)];
  for (const model of models) {
    const shipped = log[model]!;
    const candidate = candidateLog[model]!;
    const keepCandidate = percent(theirs[model]!) > percent(ours[model]!);
    const scored = [
      { seed: shipped.seed, ...ours[model]! },
      { seed: candidate.seed, ...theirs[model]! },
    ].map(({ seed, right, total }) => ({ seed, accuracy: Number((right / total).toFixed(4)), right, questions: total }));
    const kept = keepCandidate ? candidate : shipped;
    const { seed_choice: _, ...entry } = kept;
    log[model] = { ...entry, seed_choice: { rule: CHOICE_RULE, heldout_val: scored, kept: kept.seed } };
    if (keepCandidate) copyFileSync(join(candidates, 'onnx', `${model}.onnx`), join(into, 'onnx', `${model}.onnx`));
    lines.push(
      `${model}: held-out wording ${scored.map((h) => `seed ${h.seed} ${(100 * h.accuracy).toFixed(2)}%`).join(', ')} -> keeps seed ${kept.seed}${keepCandidate ? ` (copied from ${candidates})` : ''}`,
    );
  }
  writeFileSync(join(into, 'training.json'), JSON.stringify(log, null, 1));
  // As train_clevr.py's write_config: each model's best val accuracy to 4 digits, the default the best on val.
  const valAccuracy = Object.fromEntries(config.models.map((m) => [m, Number(log[m]!.best_val_accuracy.toFixed(4))]));
  const best = config.models.reduce((a, b) => (log[b]!.best_val_accuracy > log[a]!.best_val_accuracy ? b : a));
  writeFileSync(join(into, 'clevr.json'), JSON.stringify({ ...config, default: best, val_accuracy: valAccuracy }, null, 1));
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCommand('clevr:choose-seed', async () => {
    const values = parseCommandLine(
      process.argv.slice(2),
      { candidates: { type: 'string' }, into: { type: 'string', default: join('models', 'clevr') } },
      CLEVR_CHOOSE_SEED_USAGE,
    );
    if (values.candidates === undefined)
      throw new UsageError('--candidates DIR is needed: the folder the second seed was trained into.', CLEVR_CHOOSE_SEED_USAGE);
    for (const line of await chooseClevrSeeds(values.candidates, values.into)) console.log(line);
  });
}
