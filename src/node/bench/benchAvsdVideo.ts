/**
 * npm run bench -- avsd-video [--clips 200] [--models q,q-dh,...] [--json out.json]
 *
 * The AVSD answer rankers on the generated test split (never trained or chosen on): each clip goes
 * through the worker's analyzeVideo, each question is ranked among its 100 candidates by each model
 * of the ablation, and R@1/5/10, MRR and mean rank are printed overall and by what the question
 * needs, with DSTC7's answer-generation metrics (BLEU-1..4, METEOR~, ROUGE-L, CIDEr-D) of the
 * top-ranked answer. The paper's Table 3 (AVSD v1.0 test) is printed beside it for scale only.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { AVSD_SPLITS, generateAvsdSplit, trainAnswerBank } from '../../engine/video/avsdDataset';
import { type AvsdModelFigures, avsdItems, avsdModelFigures, rankAll } from '../../engine/video/avsdEvaluation';
import { AVSD_MODELS, AVSD_MODEL_IDS, AvsdRankers, type AvsdModelId, SCREENING_MODEL, avsdModelName } from '../../engine/video/avsdRankers';
import { answerVideoTurn, askedAbout } from '../../engine/video/videoTurn';
import { QUESTION_KINDS, QUESTION_NEEDS } from '../../engine/video/videoDialogs';
import { clipFeatures, loadSpeechDetector } from '../data/avsdData';
import { UsageError, integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { FsPackSource } from '../tools/fsPackSource';

const AVSD_VIDEO_USAGE =
  'npm run bench -- avsd-video [--clips 200] [--models q,q-dh,q-dh-v,q-dh-a,q-dh-v-a] [--page-questions 120] [--models-dir models/avsd] [--json out.json]';

/** AVSD paper, Table 3 (AVSD v1.0 test, MRR): real Charades videos, for scale, not comparison. */
const PAPER_MRR: Partial<Record<AvsdModelId, number>> = { q: 36.12, 'q-dh': 50.4, 'q-dh-v': 53.41, 'q-dh-v-a': 53.03 };

export async function avsdVideoBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      clips: { type: 'string', default: String(AVSD_SPLITS.test.clips) },
      models: { type: 'string', default: AVSD_MODEL_IDS.join(',') },
      'models-dir': { type: 'string', default: join('models', 'avsd') },
      'page-questions': { type: 'string', default: '120' },
      json: { type: 'string' },
    },
    AVSD_VIDEO_USAGE,
  );
  if (values.json === '') throw new UsageError('--json needs a file name.', AVSD_VIDEO_USAGE);
  const models = listOption(values.models, 'models', AVSD_MODEL_IDS, AVSD_VIDEO_USAGE);
  const records = generateAvsdSplit('test', trainAnswerBank(), integerOption(values.clips, 'clips', AVSD_VIDEO_USAGE));
  const source = new FsPackSource(values['models-dir']);
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  const rankers = await AvsdRankers.load(source, await source.listFiles(), plan, 'all');
  const analyzeStart = performance.now();
  const features = await clipFeatures(records, await loadSpeechDetector(values['models-dir']));
  const analyzeMs = (performance.now() - analyzeStart) / records.length;
  const items = avsdItems(records, features);
  console.log(
    `AVSD-style answer ranking · generated test split: ${records.length} clips, ${items.length} questions, 100 candidates each (seed ${AVSD_SPLITS.test.seed}, never trained or chosen on)`,
  );
  console.log(
    `clips analyzed by the worker's analyzeVideo (8 frames, Silero VAD, audio features; no detector: the shapes are not COCO objects): ${analyzeMs.toFixed(0)} ms per 4 s clip · rankers on onnxruntime-web, ${rankers.backend.provider}`,
  );
  const figures: Partial<Record<AvsdModelId, AvsdModelFigures>> = {};
  for (const model of models) figures[model] = avsdModelFigures(await rankAll(rankers, model, items));

  const f = (x: number, d = 1) => x.toFixed(d);
  const col = (s: string, w = 9) => s.padStart(w);
  console.log('\nranking the right answer among 100 (AVSD paper, Table 3 columns); MRR x100');
  console.log(`${'inputs'.padEnd(11)}${col('R@1')}${col('R@5')}${col('R@10')}${col('MRR')}${col('mean r')}${col('paper MRR', 11)}`);
  for (const model of models) {
    const a = figures[model]!.all;
    const paper = PAPER_MRR[model];
    console.log(
      `${avsdModelName(model).padEnd(11)}${col(f(a.r1))}${col(f(a.r5))}${col(f(a.r10))}${col(f(a.mrr))}${col(f(a.meanRank, 2))}${col(paper === undefined ? '—' : f(paper, 2), 11)}`,
    );
  }
  const needs = ['video', 'audio', 'history+video'] as const;
  console.log('\nMRR by what the question needs (questions)');
  console.log(`${'inputs'.padEnd(11)}${needs.map((n) => col(`${n} (${figures[models[0]!]!.byNeed[n].questions})`, 22)).join('')}`);
  for (const model of models) console.log(`${avsdModelName(model).padEnd(11)}${needs.map((n) => col(f(figures[model]!.byNeed[n].mrr), 22)).join('')}`);
  console.log('\nMRR by question kind');
  console.log(`${'kind'.padEnd(12)}${col('needs', 15)}${col('n', 5)}${models.map((m) => col(avsdModelName(m), 10)).join('')}`);
  for (const kind of QUESTION_KINDS) {
    console.log(
      `${kind.padEnd(12)}${col(QUESTION_NEEDS[kind], 15)}${col(String(figures[models[0]!]!.byKind[kind].questions), 5)}${models.map((m) => col(f(figures[m]!.byKind[kind].mrr), 10)).join('')}`,
    );
  }
  console.log('\nDSTC7 answer-generation metrics of the top-ranked answer (one reference; METEOR~ is the open approximation, no WordNet), x100');
  console.log(`${'inputs'.padEnd(11)}${['BLEU-1', 'BLEU-2', 'BLEU-3', 'BLEU-4', 'METEOR~', 'ROUGE-L', 'CIDEr-D'].map((h) => col(h)).join('')}`);
  for (const model of models) {
    const g = figures[model]!.generation;
    console.log(`${avsdModelName(model).padEnd(11)}${[...g.bleu, g.meteor, g.rougeL, g.ciderD].map((v) => col(f(100 * v))).join('')}`);
  }
  // The page's way, which has no reference candidates: screened from the answer bank, then ranked (videoTurn.ts, videoAnswer.ts).
  const pageQuestions = items.slice(0, integerOption(values['page-questions'], 'page-questions', AVSD_VIDEO_USAGE));
  if (pageQuestions.length > 0) {
    const pageRankers = await AvsdRankers.load(source, await source.listFiles(), plan, 'page');
    let right = 0;
    // Each question as a visitor's turn about the video, answered as the reply session answers it.
    for (const [i, item] of pageQuestions.entries()) {
      const answered = await answerVideoTurn(item.question.question, askedAbout(`bench-${i}`, item.question), async () => pageRankers);
      if (answered?.text === item.answer) right++;
    }
    const sameModel = avsdModelFigures(await rankAll(rankers, pageRankers.defaultModel, pageQuestions)).all.r1;
    console.log(
      `\nthe page's way (${avsdModelName(pageRankers.defaultModel)}, candidates the ${pageRankers.answers.length}-answer bank screened by ${avsdModelName(SCREENING_MODEL)}), first ${pageQuestions.length} questions: the reference answer on top ${f((100 * right) / pageQuestions.length)}% (ranked among the dataset's own 100: ${f(sameModel)}%)`,
    );
  }
  if (values.json) {
    const rows = models.map((model) => ({
      name: avsdModelName(model),
      model,
      ...figures[model]!.all,
      byNeed: figures[model]!.byNeed,
      byKind: figures[model]!.byKind,
      generation: figures[model]!.generation,
      paperMrr: PAPER_MRR[model] ?? null,
    }));
    writeFileSync(
      values.json,
      `${JSON.stringify({ split: 'test', clips: records.length, questions: items.length, candidates: 100, models: AVSD_MODELS.filter((m) => models.includes(m.id)).map((m) => m.name), rows }, null, 1)}\n`,
    );
    console.log(`\nwrote ${values.json}`);
  }
}
