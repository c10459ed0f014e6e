/**
 * npm run bench -- clevr-stats [--data DIR | --scenes N --seed S] [--split train] [--json out.json]
 *
 * The dataset statistics of CLEVR-Dialog's paper (Table 1, Fig. 3) for a CLEVR-Dialog file: read from
 * DIR/clevr_dialog_<split>.json, or made in memory by the generator (default: 1,000 scenes, seed 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClevrAnswerers, clevrQuestions } from '../engine/clevr/clevrAnswerer';
import { CLEVR_SPLITS, generateClevrDataset } from '../engine/clevr/clevrDataset';
import { type ClevrAccuracy, addAnswer, emptyAccuracy, percent } from '../engine/clevr/clevrEvaluation';
import { parseClevrDialogs } from '../engine/clevr/clevrFiles';
import { CLEVR_BASELINE_SEED, CLEVR_MODELS, CLEVR_PAPER_ONLY, clevrModelName } from '../engine/clevr/clevrModels';
import { CLEVR_DIALOG_PAPER, ORIGINAL_GENERATOR_SEED_7, clevrStats, clevrStatsTable } from '../engine/clevr/clevrStats';
import { CAPTION_LABELS, QUESTION_LABELS } from '../engine/clevr/templates';
import { chooseExecutionPlan } from '../engine/onnx/executionPlan';
import { seededRandom } from '../engine/random';
import { UsageError, integerOption, listOption, parseCommandLine } from './cliArgs';
import { FsPackSource } from './fsPackSource';

export const CLEVR_STATS_USAGE = 'npm run bench -- clevr-stats [--data DIR | --scenes 1000 --seed 1] [--split train] [--json out.json]';

const pct = (x: number) => `${x.toFixed(1)}%`;

export async function clevrStatsBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      data: { type: 'string' },
      scenes: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      split: { type: 'string', default: 'train' },
      json: { type: 'string' },
    },
    CLEVR_STATS_USAGE,
  );
  if (values.json === '') throw new UsageError('--json needs a file name.', CLEVR_STATS_USAGE);
  let records;
  let source: string;
  if (values.data !== undefined) {
    const path = join(values.data, `clevr_dialog_${values.split}.json`);
    records = parseClevrDialogs(readFileSync(path, 'utf8'), path);
    source = path;
  } else {
    const scenes = integerOption(values.scenes, 'scenes', CLEVR_STATS_USAGE);
    const seed = integerOption(values.seed, 'seed', CLEVR_STATS_USAGE, 0);
    records = generateClevrDataset({ scenes, seed, split: values.split }).records;
    source = `generated in memory: ${scenes} scenes, seed ${seed}, split ${values.split}`;
  }
  const stats = clevrStats(records);
  console.log(`CLEVR-Dialog statistics · ${source}`);
  // Beside the paper's Table 1 and the original generator's own output on seed 7's scenes (clevrStats.ts).
  for (const line of clevrStatsTable(stats, ORIGINAL_GENERATOR_SEED_7)) console.log(line);
  console.log('\ncaption kinds (paper Fig. 3)');
  for (const k of CAPTION_LABELS) console.log(`  ${k.padEnd(28)}${pct(stats.captionKinds[k]).padStart(8)}`);
  console.log('history dependence (paper Fig. 5: none / coref / all)');
  for (const [k, v] of Object.entries(stats.historyDependence)) console.log(`  ${k.padEnd(28)}${pct(v).padStart(8)}`);
  console.log('question templates');
  for (const k of QUESTION_LABELS) console.log(`  ${k.padEnd(28)}${pct(stats.questionTemplates[k]).padStart(8)}`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ source, stats, original: ORIGINAL_GENERATOR_SEED_7, paper: CLEVR_DIALOG_PAPER }, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
}

export const CLEVR_USAGE = 'npm run bench -- clevr [--models random,random-q,lf-q,...] [--models-dir models/clevr] [--scenes 300] [--json out.json]';

/**
 * npm run bench -- clevr: every answerer on the generated test split (CLEVR_SPLITS.test, never trained
 * or chosen on), through the engine's own ClevrAnswerers on onnxruntime-web (WASM, one thread), with
 * accuracy overall, by question kind, by history dependence and by coreference distance.
 */
export async function clevrBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      models: { type: 'string', default: CLEVR_MODELS.map((m) => m.id).join(',') },
      'models-dir': { type: 'string', default: join('models', 'clevr') },
      scenes: { type: 'string', default: String(CLEVR_SPLITS.test.scenes) },
      json: { type: 'string' },
    },
    CLEVR_USAGE,
  );
  if (values.json === '') throw new UsageError('--json needs a file name.', CLEVR_USAGE);
  const models = listOption(
    values.models,
    'models',
    CLEVR_MODELS.map((m) => m.id),
    CLEVR_USAGE,
  );
  const scenesCount = integerOption(values.scenes, 'scenes', CLEVR_USAGE);
  const { scenes, records } = generateClevrDataset({ ...CLEVR_SPLITS.test, scenes: scenesCount });
  const source = new FsPackSource(values['models-dir']);
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  const answerers = await ClevrAnswerers.load(source, await source.listFiles(), plan);
  const items = clevrQuestions(scenes, records, answerers.vocab);
  console.log(
    `CLEVR-Dialog answering · test split: ${scenes.length} generated scenes, ${items.length} questions (seed ${CLEVR_SPLITS.test.seed}, never trained or chosen on) · ${values['models-dir']} on onnxruntime-web, ${answerers.backend.provider}`,
  );
  const results: Record<string, ClevrAccuracy> = {};
  const seconds: Record<string, number> = {};
  for (const model of models) {
    const accuracy = emptyAccuracy();
    const random = seededRandom(CLEVR_BASELINE_SEED);
    const start = performance.now();
    for (let i = 0; i < items.length; i += 500) {
      const batch = items.slice(i, i + 500);
      const predictions = await answerers.answer(
        model,
        batch.map((b) => b.question),
        random,
      );
      predictions.forEach((p, j) =>
        addAnswer(accuracy, { template: batch[j]!.question.template, corefDistance: batch[j]!.corefDistance, correct: p.answer === batch[j]!.answer }),
      );
    }
    seconds[model] = (performance.now() - start) / 1000;
    results[model] = accuracy;
  }
  const f = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(1));
  const col = (s: string, w = 9) => s.padStart(w);
  console.log('\naccuracy in % (paper: Kottur et al. 2019, Table 2)');
  console.log(
    `${'model'.padEnd(22)}${col('overall')}${col('count')}${col('exist')}${col('seek')}${col('none')}${col('coref')}${col('all')}${col('paper')}${col('ms/q')}`,
  );
  for (const model of models) {
    const a = results[model]!;
    const paper = CLEVR_MODELS.find((m) => m.id === model)!.paper;
    console.log(
      `${clevrModelName(model).padEnd(22)}${col(f(percent(a.overall)))}${col(f(percent(a.family.count)))}${col(f(percent(a.family.exist)))}${col(f(percent(a.family.seek)))}${col(f(percent(a.history.none)))}${col(f(percent(a.history.coref)))}${col(f(percent(a.history.all)))}${col(paper === null ? '—' : paper.toFixed(1))}${col(((1000 * seconds[model]!) / items.length).toFixed(3))}`,
    );
  }
  for (const row of CLEVR_PAPER_ONLY)
    console.log(`${`${row.name} (paper only)`.padEnd(22)}${col('')}${col('')}${col('')}${col('')}${col('')}${col('')}${col('')}${col(row.paper.toFixed(1))}`);
  console.log('none / coref / all: questions that need no history, one earlier mention, or all of it (paper Fig. 5)');
  console.log('\naccuracy by coreference distance (paper Fig. 4), questions per distance on the first line');
  console.log(`${'distance'.padEnd(22)}${Array.from({ length: 10 }, (_, i) => col(i === 9 ? '10+' : String(i + 1), 7)).join('')}`);
  console.log(`${'questions'.padEnd(22)}${results[models[0]!]!.corefDistance.map((t) => col(String(t.total), 7)).join('')}`);
  for (const model of models) console.log(`${clevrModelName(model).padEnd(22)}${results[model]!.corefDistance.map((t) => col(f(percent(t)), 7)).join('')}`);
  console.log('\naccuracy by question template');
  console.log(`${'template'.padEnd(26)}${col('n', 7)}${models.map((m) => col(m, 10)).join('')}`);
  for (const label of QUESTION_LABELS) {
    const n = results[models[0]!]!.template[label].total;
    if (n === 0) continue;
    console.log(`${label.padEnd(26)}${col(String(n), 7)}${models.map((m) => col(f(percent(results[m]!.template[label])), 10)).join('')}`);
  }
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ questions: items.length, scenes: scenes.length, results, seconds }, null, 1)}\n`);
    console.log(`wrote ${values.json}`);
  }
  await answerers.release();
}
