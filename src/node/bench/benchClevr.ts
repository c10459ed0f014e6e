/**
 * npm run bench -- clevr-stats [--data DIR | --scenes N --seed S] [--split train] [--json out.json]
 *
 * The dataset statistics of CLEVR-Dialog's paper (Table 1, Fig. 3) for a CLEVR-Dialog file: read from
 * DIR/clevr_dialog_<split>.json, or made in memory by the generator (default: 1,000 scenes, seed 1).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClevrAnswerers, clevrQuestions } from '../../engine/clevr/clevrAnswerer';
import { CLEVR_SPLITS, generateClevrDataset } from '../../engine/clevr/clevrDataset';
import { type ClevrAccuracy, addAnswer, emptyAccuracy, percent } from '../../engine/clevr/clevrEvaluation';
import { vocabularyCoverage } from '../../engine/clevr/clevrFeatures';
import { parseClevrDialogs, parseClevrScenes, readClevrDialogFile } from '../../engine/clevr/clevrFiles';
import type { ClevrDialogRecord } from '../../engine/clevr/generateDialogs';
import type { Scene } from '../../engine/clevr/scene';
import { CLEVR_BASELINE_SEED, CLEVR_MODELS, CLEVR_ONNX_MODELS, CLEVR_PAPER_ONLY, type ClevrModelId, clevrModelName } from '../../engine/clevr/clevrModels';
import {
  CLEVR_DIALOG_PAPER,
  ORIGINAL_GENERATOR_SEED_7,
  clevrStats,
  clevrStatsTable,
  recordedObjects,
  recordedObjectsTable,
} from '../../engine/clevr/clevrStats';
import { CAPTION_LABELS, QUESTION_LABELS } from '../../engine/clevr/templates';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { seededRandom } from '../../engine/random';
import { UsageError, integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { FsPackSource } from '../tools/fsPackSource';

export const CLEVR_STATS_USAGE = 'npm run bench -- clevr-stats [--data DIR | --scenes 1000 --seed 1] [--split train] [--beside DIR] [--json out.json]';

const pct = (x: number) => `${x.toFixed(1)}%`;

/** A folder's dialogs of one split (clevr_dialog_<split>.json, either layout), for clevr-stats. */
function readSplitDialogs(dir: string, split: string, option: string): { path: string; records: ClevrDialogRecord[] } {
  const path = join(dir, `clevr_dialog_${split}.json`);
  if (!existsSync(path))
    throw new UsageError(
      `${option} ${dir} has no clevr_dialog_${split}.json; give a folder of CLEVR-Dialog files, or the split with --split.`,
      CLEVR_STATS_USAGE,
    );
  return { path, records: parseClevrDialogs(readFileSync(path, 'utf8'), path) };
}

export async function clevrStatsBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      data: { type: 'string' },
      scenes: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      split: { type: 'string', default: 'train' },
      beside: { type: 'string' },
      json: { type: 'string' },
    },
    CLEVR_STATS_USAGE,
  );
  if (values.json === '') throw new UsageError('--json needs a file name.', CLEVR_STATS_USAGE);
  let records;
  let source: string;
  if (values.data !== undefined) {
    ({ path: source, records } = readSplitDialogs(values.data, values.split, '--data'));
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
  // What each kind of round records, beside a second set of dialogs (the cross-check: the original's and ours).
  const recorded = recordedObjects(records);
  let beside = null;
  if (values.beside !== undefined) {
    const { path, records: besideRecords } = readSplitDialogs(values.beside, values.split, '--beside');
    beside = recordedObjects(besideRecords);
    console.log(`\nbeside: ${path}`);
  } else console.log('');
  for (const line of recordedObjectsTable(recorded, beside)) console.log(line);
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ source, stats, recorded, besideRecorded: beside, original: ORIGINAL_GENERATOR_SEED_7, paper: CLEVR_DIALOG_PAPER }, null, 2)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
}

/** Questions at this coreference distance or more count as "long distances" (paper Fig. 4). */
const LONG_DISTANCE = 4;

/**
 * The orderings the paper reports (sec. 5, Fig. 4), checked on the figures just measured: each
 * history model above LF-QI on coreference questions; exist above count and seek for every model;
 * the coreference-supervised model ahead of the other models at distances of LONG_DISTANCE or more.
 */
export function paperOrdering(results: Readonly<Record<string, ClevrAccuracy>>): string[] {
  const lines: string[] = [];
  const f = (x: number) => x.toFixed(1);
  const qi = results['lf-qi'];
  const historyModels = Object.keys(results).filter((m) => /^(lf|hre|mn|coref)-q(i?)h$/.test(m));
  if (qi)
    for (const m of historyModels) {
      const [a, b] = [percent(results[m]!.history.coref), percent(qi.history.coref)];
      lines.push(`${m} ${a > b ? 'above' : 'NOT above'} LF-QI on coreference questions: ${f(a)} against ${f(b)}`);
    }
  for (const [m, a] of Object.entries(results)) {
    if (m === 'random' || m === 'random-q') continue;
    const [e, c, s] = [percent(a.family.exist), percent(a.family.count), percent(a.family.seek)];
    lines.push(`${m}: exist ${f(e)} ${e > c && e > s ? 'above' : 'NOT above'} count ${f(c)} and seek ${f(s)}`);
  }
  const long = (a: ClevrAccuracy) => {
    const t = a.corefDistance.slice(LONG_DISTANCE - 1).reduce((x, y) => ({ right: x.right + y.right, total: x.total + y.total }), { right: 0, total: 0 });
    return percent(t);
  };
  const coref = results['coref-qih'];
  if (coref) {
    const others = Object.entries(results).filter(([m]) => m !== 'coref-qih' && m !== 'random' && m !== 'random-q');
    const best = others.reduce<[string, number] | null>(
      (top, [m, a]) => (!Number.isNaN(long(a)) && (top === null || long(a) > top[1]) ? [m, long(a)] : top),
      null,
    );
    if (best)
      lines.push(
        `coref-qih at distance ${LONG_DISTANCE}+: ${f(long(coref))}, ${long(coref) > best[1] ? 'ahead of' : 'NOT ahead of'} the best other model (${best[0]} ${f(best[1])})`,
      );
  }
  return lines;
}

export const CLEVR_USAGE =
  'npm run bench -- clevr [--models random,random-q,lf-q,...] [--models-dir models/clevr] [--scenes 300 | --data DIR [--split test]] [--json out.json]';

/**
 * A CLEVR-Dialog folder laid out as the original names its files: DIR/CLEVR_<split>_scenes.json and
 * DIR/clevr_dialog_<split>.json, the dialogs in the original generator's layout or ours. Without a split,
 * the folder's one dialog file says it. Each image record is matched to its scene by image_index.
 */
export function readClevrFolder(dir: string, split?: string): { scenes: Scene[]; records: ClevrDialogRecord[]; format: string; split: string } {
  const pattern = /^clevr_dialog_(.+)\.json$/;
  if (split === undefined) {
    if (!existsSync(dir))
      throw new UsageError(`--data ${dir} does not exist; give a folder holding CLEVR_<split>_scenes.json and clevr_dialog_<split>.json.`, CLEVR_USAGE);
    const splits = readdirSync(dir).flatMap((name) => pattern.exec(name)?.[1] ?? []);
    if (splits.length !== 1)
      throw new UsageError(
        splits.length === 0
          ? `${dir} has no clevr_dialog_<split>.json; it must hold CLEVR_<split>_scenes.json and clevr_dialog_<split>.json, as the original names them.`
          : `${dir} has dialog files for the splits ${splits.join(', ')}; say which with --split.`,
        CLEVR_USAGE,
      );
    split = splits[0]!;
  }
  const scenesPath = join(dir, `CLEVR_${split}_scenes.json`);
  const dialogsPath = join(dir, `clevr_dialog_${split}.json`);
  for (const path of [scenesPath, dialogsPath])
    if (!existsSync(path))
      throw new UsageError(`${path} is missing; --data needs the scenes and the dialogs of split ${split}, as the original names them.`, CLEVR_USAGE);
  const allScenes = parseClevrScenes(readFileSync(scenesPath, 'utf8'), scenesPath);
  const { format, records } = readClevrDialogFile(readFileSync(dialogsPath, 'utf8'), dialogsPath);
  const byIndex = new Map(allScenes.map((scene) => [scene.image_index, scene]));
  const scenes = records.map((record, k) => {
    const scene = byIndex.get(record.image_index);
    if (!scene)
      throw new UsageError(
        `${dialogsPath}, record ${k} is about image_index ${record.image_index}, which ${scenesPath} does not hold; the two files must come from the same scenes.`,
        CLEVR_USAGE,
      );
    for (const [j, dialog] of record.dialogs.entries())
      for (const [n, round] of dialog.dialog.entries())
        for (const i of [...round.referents, ...round.answer_objects])
          if (i >= scene.objects.length)
            throw new UsageError(
              `${dialogsPath}, record ${k} (image_index ${record.image_index}), dialog ${j}, round ${n + 1} names object ${i}, but the scene has ${scene.objects.length} objects; the two files must come from the same scenes.`,
              CLEVR_USAGE,
            );
    return scene;
  });
  return { scenes, records, format, split };
}

/**
 * Each model's accuracy on these questions through the engine's ClevrAnswerers (the page's code path),
 * in batches of 500, and the seconds each took; the baselines draw from CLEVR_BASELINE_SEED.
 */
export async function scoreClevrModels(
  answerers: ClevrAnswerers,
  models: readonly ClevrModelId[],
  items: ReturnType<typeof clevrQuestions>,
): Promise<{ results: Record<string, ClevrAccuracy>; seconds: Record<string, number> }> {
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
  return { results, seconds };
}

/**
 * npm run bench -- clevr: every answerer on the generated test split (CLEVR_SPLITS.test, never trained
 * or chosen on), or on a folder of CLEVR-Dialog files (--data), through the engine's own ClevrAnswerers on
 * onnxruntime-web (WASM, one thread), with accuracy overall, by question kind, by history dependence and
 * by coreference distance.
 */
export async function clevrBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      // Default: the baselines and every model the folder ships.
      models: { type: 'string' },
      'models-dir': { type: 'string', default: join('models', 'clevr') },
      scenes: { type: 'string' },
      data: { type: 'string' },
      split: { type: 'string' },
      json: { type: 'string' },
    },
    CLEVR_USAGE,
  );
  if (values.data !== undefined && values.scenes !== undefined)
    throw new UsageError('--scenes is for the generated test split; with --data the folder says which scenes.', CLEVR_USAGE);
  if (values.data === undefined && values.split !== undefined) throw new UsageError('--split goes with --data DIR.', CLEVR_USAGE);
  if (values.json === '') throw new UsageError('--json needs a file name.', CLEVR_USAGE);
  // Default: the baselines and every model the folder ships.
  const chosen =
    values.models === undefined
      ? null
      : listOption(
          values.models,
          'models',
          CLEVR_MODELS.map((m) => m.id),
          CLEVR_USAGE,
        );
  let scenes: Scene[];
  let records: ClevrDialogRecord[];
  let described: string;
  if (values.data !== undefined) {
    const folder = readClevrFolder(values.data, values.split);
    ({ scenes, records } = folder);
    described = `${values.data} (split ${folder.split}, dialogs in ${folder.format === 'original' ? "the original generator's" : 'our'} layout): ${scenes.length} scenes`;
  } else {
    const scenesCount = integerOption(values.scenes ?? String(CLEVR_SPLITS.test.scenes), 'scenes', CLEVR_USAGE);
    ({ scenes, records } = generateClevrDataset({ ...CLEVR_SPLITS.test, scenes: scenesCount }));
    described = `test split: ${scenes.length} generated scenes`;
  }
  const source = new FsPackSource(values['models-dir']);
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  const answerers = await ClevrAnswerers.load(source, await source.listFiles(), plan);
  // Checked before the questions are built and scored: a missing model would fail only after that.
  const missing = chosen?.find((m) => (CLEVR_ONNX_MODELS as readonly string[]).includes(m) && !(answerers.models as readonly string[]).includes(m));
  if (missing !== undefined) throw new UsageError(`--models ${missing}: ${answerers.missingModel(missing)}`, CLEVR_USAGE);
  const models = chosen ?? CLEVR_MODELS.filter((m) => m.kind === 'baseline' || (answerers.models as readonly string[]).includes(m.id)).map((m) => m.id);
  const items = clevrQuestions(scenes, records, answerers.vocab);
  console.log(
    `CLEVR-Dialog answering · ${described}, ${items.length} questions (${values.data === undefined ? `seed ${CLEVR_SPLITS.test.seed}, ` : ''}never trained or chosen on) · ${values['models-dir']} on onnxruntime-web, ${answerers.backend.provider}`,
  );
  const questionCoverage = vocabularyCoverage(
    records.flatMap((r) => r.dialogs.flatMap((d) => d.dialog.map((round) => round.question))),
    answerers.vocab,
  );
  const captionCoverage = vocabularyCoverage(
    records.flatMap((r) => r.dialogs.map((d) => d.caption)),
    answerers.vocab,
  );
  const share = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
  for (const [what, c] of [
    ['question', questionCoverage],
    ['caption', captionCoverage],
  ] as const)
    console.log(
      `${what} words the models' vocabulary (${answerers.vocab.words.length} words) lacks: ${share(c.unknownTokens, c.tokens)} of ${c.tokens} tokens, in ${share(c.textsWithUnknown, c.texts)} of ${c.texts} ${what}s${
        c.unknownWords.length > 0
          ? `; most often ${c.unknownWords
              .slice(0, 12)
              .map(([w, n]) => `${w} ${n}`)
              .join(', ')}`
          : ''
      }`,
    );
  const { results, seconds } = await scoreClevrModels(answerers, models, items);
  const f = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(1));
  const col = (s: string, w = 9) => s.padStart(w);
  console.log('\naccuracy in % (paper: Kottur et al. 2019, Table 2; "—": no such row in the paper)');
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
  console.log('every model with an image has a count head; the pixel model reads the picture drawn at 96x64, the others the objects (perfect perception)');
  console.log('\naccuracy by coreference distance (paper Fig. 4), questions per distance on the first line');
  console.log(`${'distance'.padEnd(22)}${Array.from({ length: 10 }, (_, i) => col(i === 9 ? '10+' : String(i + 1), 7)).join('')}`);
  console.log(`${'questions'.padEnd(22)}${results[models[0]!]!.corefDistance.map((t) => col(String(t.total), 7)).join('')}`);
  for (const model of models) console.log(`${clevrModelName(model).padEnd(22)}${results[model]!.corefDistance.map((t) => col(f(percent(t)), 7)).join('')}`);
  console.log('\naccuracy by question template');
  console.log(`${'template'.padEnd(26)}${col('n', 7)}${models.map((m) => col(m, 13)).join('')}`);
  for (const label of QUESTION_LABELS) {
    const n = results[models[0]!]!.template[label].total;
    if (n === 0) continue;
    console.log(`${label.padEnd(26)}${col(String(n), 7)}${models.map((m) => col(f(percent(results[m]!.template[label])), 13)).join('')}`);
  }
  const ordering = paperOrdering(results);
  if (ordering.length > 0) {
    console.log("\nthe paper's ordering (issue 29's targets) on this split");
    for (const line of ordering) console.log(`  ${line}`);
  }
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ source: described, questions: items.length, scenes: scenes.length, coverage: { questions: questionCoverage, captions: captionCoverage }, results, seconds }, null, 1)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
  await answerers.release();
}
