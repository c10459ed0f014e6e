import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { parseAvsd } from '../engine/datasets/avsd';
import { parseDailyDialog } from '../engine/datasets/dailyDialog';
import { decodeUtf8Strict, formatCount, parseJsonDocument } from '../engine/datasets/validation';
import { type PolyaiExample, exampleTurns, parsePolyaiJsonl } from '../engine/datasets/polyai';
import { parseVisdial } from '../engine/datasets/visdial';
import { errorMessage } from '../engine/errors';
import { type RankSummary, summarizeRanks } from '../engine/metrics/dialogMetrics';
import { hashText } from '../engine/pool/contentHash';
import { corpusStats } from '../engine/ranking/lexical';
import { contextVector } from '../engine/response/rankers';
import { stackRows } from '../engine/retrieval/vectors';
import { type RankingGroup, avsdGroups, oneOfHundredBatches, seededShuffle, splitDailyDialog, splitForEarlyStopping, visdialGroups } from '../engine/selection/protocols';
import { SELECTION_METHOD_IDS, type SelectionMethodId } from '../engine/response/methods';
import { type SelectionScorer, type TextEmbedding, clipMapScorer, clipSimScorer, dialogueState, lexicalScorer, randomScorer, rankGroups } from '../engine/selection/scorers';
import { type ClipMapTrainingOptions, type TrainedClipMap, trainClipMap } from '../engine/selection/trainClipMap';
import { UsageError, choiceOption, integerOption, listOption, parseCommandLine } from './cliArgs';
import { loadWasmPack } from './poolFiles';
import { ProgressLine } from './progressLine';
import { SELECT_CACHE_DIR, cachedTextEmbeddings, writeCacheFiles } from './textEmbeddingCache';

/**
 * npm run bench -- select --format polyai|dailydialog|visdial|avsd --data <file>
 *                         [--train <train.jsonl>] [--map-train <dialogues_text.txt>]
 *                         [--methods random,tfidf,bm25,clip-sim,clip-map] [--pack mini-clip]
 *                         [--limit N] [--seed 1] [--json out.json]
 * Response selection on real dialogue data, one row per method and context (the immediate context,
 * then the whole history), as in the PolyAI paper's Table 2:
 *  - dailydialog: the test part of a fixed by-dialogue split, 1-of-100 accuracy (PolyAI sec. 4);
 *  - polyai: PolyAI JSON lines, 1-of-100 in file order; --train gives IDF and clip-map's train data;
 *  - visdial: VisDial v1.0 val, each round's 100 answer options;
 *  - avsd: DSTC7 AVSD test, the last question of each dialogue among 100 built candidates.
 * clip-map is trained on train data only: the DailyDialog train part (dailydialog, and for visdial and
 * avsd from --map-train), or --train (polyai). Embeddings and trained maps are cached under
 * models/.cache/select/, so a rerun only ranks.
 */
export const SELECT_USAGE = 'npm run bench -- select --format polyai|dailydialog|visdial|avsd --data FILE [--train FILE] [--map-train FILE] [--methods a,b] [--pack mini-clip] [--limit N] [--seed 1] [--json OUT]';
const SELECT_OPTIONS = { format: { type: 'string' }, data: { type: 'string' }, train: { type: 'string' }, 'map-train': { type: 'string' }, methods: { type: 'string' }, pack: { type: 'string' }, limit: { type: 'string' }, seed: { type: 'string' }, json: { type: 'string' } } as const;
type SelectOption = keyof typeof SELECT_OPTIONS;
const FORMATS = ['polyai', 'dailydialog', 'visdial', 'avsd'] as const;
type Format = (typeof FORMATS)[number];
const DEFAULT_DAILYDIALOG = join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt');
const AVSD_SEED = 1;
const MAP_TRAINING: ClipMapTrainingOptions = { maxEpochs: 30, batchSize: 64, learningRate: 1e-3, scale: 20, patience: 4, seed: 1 };
const CONTEXTS = [
  { label: 'immediate', turns: 1 },
  { label: 'history', turns: Infinity },
] as const;
type ContextLabel = (typeof CONTEXTS)[number]['label'];

interface SelectionTask {
  groups: RankingGroup[];
  /** Header lines saying what is ranked. */
  description: string[];
  idf: { corpus: string[]; source: string };
  mapTraining: { examples: PolyaiExample[]; source: string } | { missing: string };
  counts: Record<string, number>;
}

function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new Error(`There is no ${path}. Give ${what}.`);
  return decodeUtf8Strict(new Uint8Array(readFileSync(path)), path);
}

const distinct = (texts: Iterable<string>) => [...new Set(texts)];
const count = (n: number) => formatCount(n);

function dailyDialogSplit(path: string) {
  const dialogues = parseDailyDialog(readText(path, 'DailyDialog\'s dialogues_text.txt'), path);
  return { dialogues, split: splitDailyDialog(dialogues) };
}

function loadTask(format: Format, dataPath: string, option: (name: SelectOption, fallback: string) => string): SelectionTask {
  if (format === 'dailydialog') {
    const { dialogues, split } = dailyDialogSplit(dataPath);
    const batches = oneOfHundredBatches(split.testExamples);
    return {
      groups: batches.groups,
      description: [
        `${count(dialogues.length)} dialogues, split by dialogue (fixed hash): train part ${count(split.train.length)} dialogues (${count(split.trainExamples.length)} examples), test part ${count(split.test.length)} dialogues (${count(split.testExamples.length)} examples, shuffled with a fixed seed)`,
        `1-of-100: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`,
      ],
      idf: { corpus: distinct(split.train.flatMap((d) => d.turns)), source: 'the train part\'s distinct utterances' },
      mapTraining: { examples: split.trainExamples, source: `the DailyDialog train part (${count(split.train.length)} dialogues)` },
      counts: { dialogues: dialogues.length, trainDialogues: split.train.length, testDialogues: split.test.length, testExamples: split.testExamples.length, batches: batches.groups.length, dropped: batches.dropped, repeatedResponses: batches.repeatedResponses },
    };
  }
  if (format === 'polyai') {
    const examples = parsePolyaiJsonl(readText(dataPath, 'a PolyAI JSON lines file'), dataPath);
    const batches = oneOfHundredBatches(examples);
    const trainPath = option('train', '');
    const train = trainPath ? parsePolyaiJsonl(readText(trainPath, 'the train JSON lines (--train)'), trainPath) : null;
    const textsOf = (list: readonly PolyaiExample[]) => distinct(list.flatMap((e) => [...exampleTurns(e), e.response]));
    return {
      groups: batches.groups,
      description: [`${count(examples.length)} examples in file order: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`],
      idf: train ? { corpus: textsOf(train), source: `the distinct texts of ${trainPath}` } : { corpus: textsOf(examples), source: `the ranked file's own distinct texts (no --train given; no labels used)` },
      mapTraining: train ? { examples: train, source: trainPath } : { missing: 'give --train <train.jsonl> to train it' },
      counts: { examples: examples.length, batches: batches.groups.length, dropped: batches.dropped, repeatedResponses: batches.repeatedResponses, trainExamples: train?.length ?? 0 },
    };
  }
  const mapTrainPath = option('map-train', DEFAULT_DAILYDIALOG);
  const mapTraining = (): SelectionTask['mapTraining'] => {
    if (!existsSync(mapTrainPath)) return { missing: `there is no ${mapTrainPath} to train it on (--map-train <dialogues_text.txt>)` };
    const { split } = dailyDialogSplit(mapTrainPath);
    return { examples: split.trainExamples, source: `the DailyDialog train part (${count(split.train.length)} dialogues of ${mapTrainPath}); no ${format === 'visdial' ? 'VisDial' : 'AVSD'} data` };
  };
  if (format === 'visdial') {
    const data = parseVisdial(parseJsonDocument(readText(dataPath, 'VisDial v1.0 val (visdial_1.0_val.json)'), dataPath), dataPath);
    const groups = visdialGroups(data);
    return {
      groups,
      description: [`split ${data.split}: ${data.dialogs.length} dialogues, ${groups.length} rounds, each ranking its 100 answer options from the question (immediate) or caption + earlier rounds + question (history)`],
      idf: { corpus: distinct([...data.questions, ...data.answers, ...data.dialogs.map((d) => d.caption)]), source: 'the file\'s question and answer lists and captions (no labels used)' },
      mapTraining: mapTraining(),
      counts: { dialogues: data.dialogs.length, rounds: groups.length },
    };
  }
  const dialogues = parseAvsd(parseJsonDocument(readText(dataPath, 'the DSTC7 AVSD test file (lbl_test_set4DSTC7-AVSD.json)'), dataPath), dataPath);
  const built = avsdGroups(dialogues, { seed: Number(option('seed', String(AVSD_SEED))) });
  const n = built.groups.length;
  return {
    groups: built.groups,
    description: [
      `${count(dialogues.length)} dialogues; the last question of each ranked among 100 candidates from the question (immediate) or caption + earlier rounds + question (history)`,
      `candidates per question (mean): 1 truth + ${(built.composition.plausible / n).toFixed(1)} plausible (answers to the most similar questions of other dialogues, tf-idf) + ${(built.composition.popular / n).toFixed(1)} popular + ${(built.composition.random / n).toFixed(1)} random, from ${count(built.distinctAnswers)} distinct answers, seed ${option('seed', String(AVSD_SEED))}`,
    ],
    idf: { corpus: distinct(dialogues.flatMap((d) => [d.caption, ...d.rounds.flatMap((r) => [r.question, r.answer])])), source: 'the file\'s captions, questions and answers (no labels used)' },
    mapTraining: mapTraining(),
    counts: { dialogues: dialogues.length, questions: n, distinctAnswers: built.distinctAnswers, ...built.composition },
  };
}

function progress(label: string): (done: number, total: number) => void {
  const line = new ProgressLine();
  return (done, total) => line.update(`${label} ${count(done)}/${count(total)} (${total ? Math.floor((100 * done) / total) : 100}%)`, done, total);
}

/** The map for one kind of context, trained on the fit part and early-stopped on the valid part, or read from the cache. */
function trainedMap(context: (typeof CONTEXTS)[number], examples: readonly PolyaiExample[], embedding: TextEmbedding, fingerprint: string): TrainedClipMap & { fit: number; valid: number; cached: boolean; seconds: number } {
  const { fit, valid } = splitForEarlyStopping(examples);
  const validShuffled = seededShuffle(valid, 7);
  const key = hashText(JSON.stringify([fingerprint, context.label, MAP_TRAINING, hashText(JSON.stringify(fit)), hashText(JSON.stringify(validShuffled))]));
  const base = join(SELECT_CACHE_DIR, `clip-map-${key}`);
  if (existsSync(`${base}.json`) && existsSync(`${base}.bin`)) {
    const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Omit<TrainedClipMap, 'w'> & { seconds: number };
    const bytes = new Uint8Array(readFileSync(`${base}.bin`));
    const w = new Float32Array(bytes.byteLength / 4);
    new Uint8Array(w.buffer).set(bytes);
    return { ...meta, w, fit: fit.length, valid: valid.length, cached: true };
  }
  const pairs = (list: readonly PolyaiExample[]) => ({
    x: stackRows(list.map((e) => contextVector(dialogueState(exampleTurns(e), embedding), { turns: context.turns }))),
    y: stackRows(list.map((e) => embedding(e.response))),
  });
  const start = nowMs();
  const trained = trainClipMap(pairs(fit), pairs(validShuffled), {
    ...MAP_TRAINING,
    onEpoch: ({ epoch, loss, validR1 }) => process.stderr.write(`clip-map (${context.label}) epoch ${epoch}: loss ${Number.isNaN(loss) ? '-' : loss.toFixed(3)}, valid 1-of-100 R@1 ${(100 * validR1).toFixed(1)} (${((nowMs() - start) / 1000).toFixed(0)} s)\n`),
  });
  const seconds = (nowMs() - start) / 1000;
  const { w, ...meta } = trained;
  writeCacheFiles(base, new Uint8Array(w.buffer, w.byteOffset, w.byteLength), { ...meta, seconds, context: context.label, options: MAP_TRAINING, fit: fit.length, valid: valid.length });
  return { ...trained, fit: fit.length, valid: valid.length, cached: false, seconds };
}

interface ResultRow {
  method: SelectionMethodId;
  context: ContextLabel | 'none';
  summary: RankSummary;
  msPerQuery: number;
}

export async function selectBench(args: string[]): Promise<void> {
  const values = parseCommandLine(args, SELECT_OPTIONS, SELECT_USAGE);
  const option = (name: SelectOption, fallback: string): string => values[name] || fallback;
  const format = choiceOption(option('format', ''), 'format', FORMATS, SELECT_USAGE);
  const dataPath = option('data', '');
  if (!dataPath) throw new UsageError(`Say which file to rank: --data <file> (for example ${format === 'dailydialog' ? DEFAULT_DAILYDIALOG : join('..', 'shared', 'data', format === 'visdial' ? 'visdial/visdial_1.0_val.json' : format === 'avsd' ? 'avsd/lbl_test_set4DSTC7-AVSD.json' : '<file>.jsonl')}).`, SELECT_USAGE);
  const methods = listOption(option('methods', SELECTION_METHOD_IDS.join(',')), 'methods', SELECTION_METHOD_IDS, SELECT_USAGE);
  const packId = option('pack', 'mini-clip');
  const seed = integerOption(option('seed', '1'), 'seed', SELECT_USAGE, 0);
  // 0: every candidate group.
  const limit = integerOption(option('limit', '0'), 'limit', SELECT_USAGE, 0);

  const started = nowMs();
  const task = loadTask(format, dataPath, option);
  const groups = limit > 0 ? task.groups.slice(0, limit) : task.groups;
  const queries = groups.reduce((n, g) => n + g.queries.length, 0);
  const needsClip = methods.some((m) => m === 'clip-sim' || m === 'clip-map');
  const { encoder } = await loadWasmPack(packId);

  // Every text a clip method will look at, embedded once and cached.
  let embedding: TextEmbedding = () => {
    throw new Error('no embeddings were computed');
  };
  let embeddingNote = '';
  const maps: Partial<Record<ContextLabel, ReturnType<typeof trainedMap>>> = {};
  if (needsClip) {
    const texts = new Set<string>();
    for (const g of groups) {
      for (const c of g.candidates) texts.add(c);
      for (const q of g.queries) for (const t of q.turns) texts.add(t);
    }
    if (methods.includes('clip-map') && 'examples' in task.mapTraining) for (const e of task.mapTraining.examples) for (const t of [...exampleTurns(e), e.response]) texts.add(t);
    const t0 = nowMs();
    const cached = await cachedTextEmbeddings(encoder, packId, texts, { onProgress: progress('embedding texts') });
    embedding = cached.embedding;
    embeddingNote = `${count(texts.size)} distinct texts embedded (${count(cached.computed)} computed, ${count(cached.fromCache)} from the cache, ${((nowMs() - t0) / 1000).toFixed(1)} s)`;
    if (methods.includes('clip-map') && 'examples' in task.mapTraining) {
      for (const context of CONTEXTS) maps[context.label] = trainedMap(context, task.mapTraining.examples, embedding, encoder.fingerprint);
    }
  }

  console.log(`select · pack ${packId} (fingerprint ${encoder.fingerprint}) · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}, 1 thread) · Node ${process.version}`);
  console.log(`data ${dataPath} (${format})`);
  for (const line of task.description) console.log(`  ${line}`);
  if (limit > 0) console.log(`  LIMITED to the first ${groups.length} of ${task.groups.length} candidate groups (--limit ${limit}): not the full protocol`);
  console.log(`  ${count(queries)} ranked contexts · tf-idf/BM25 document frequencies from ${task.idf.source} (${count(task.idf.corpus.length)} texts)`);
  if (embeddingNote) console.log(`  ${embeddingNote}`);
  if (methods.includes('clip-map')) {
    if ('missing' in task.mapTraining) console.log(`  clip-map: not trained: ${task.mapTraining.missing}`);
    else {
      for (const context of CONTEXTS) {
        const m = maps[context.label]!;
        console.log(`  clip-map (${context.label}): trained on ${task.mapTraining.source}: ${count(m.fit)} pairs, early-stopped on ${count(m.valid)} held-out pairs at epoch ${m.bestEpoch} (valid 1-of-100 R@1 ${(100 * m.validR1).toFixed(1)}, from ${(100 * m.history[0]!.validR1).toFixed(1)} at epoch 0 = clip-sim; a = ${m.a.toFixed(3)}; ${m.cached ? 'from the cache' : `${m.seconds.toFixed(0)} s`})`);
      }
    }
  }

  const stats = methods.some((m) => m === 'tfidf' || m === 'bm25') ? corpusStats(task.idf.corpus) : null;
  const runs: { method: SelectionMethodId; context: ContextLabel | 'none'; scorer: SelectionScorer }[] = [];
  for (const method of methods) {
    if (method === 'random') {
      runs.push({ method, context: 'none', scorer: randomScorer(seed) });
      continue;
    }
    for (const context of CONTEXTS) {
      const options = { turns: context.turns };
      if (method === 'tfidf' || method === 'bm25') runs.push({ method, context: context.label, scorer: lexicalScorer(method, stats!, options) });
      else if (method === 'clip-sim') runs.push({ method, context: context.label, scorer: clipSimScorer(embedding, options) });
      else if (maps[context.label]) runs.push({ method, context: context.label, scorer: clipMapScorer(maps[context.label]!, embedding, options) });
    }
  }

  const oneOfHundred = format === 'dailydialog' || format === 'polyai';
  const header = ['method', 'context', oneOfHundred ? '1-of-100 R@1' : 'R@1', 'R@5', 'R@10', 'MRR', 'mean rank', 'ms/context'];
  console.log(header.map((h, i) => (i < 2 ? h.padEnd(10) : h.padStart(i === 2 ? 13 : 9))).join(' '));
  const rows: ResultRow[] = [];
  for (const run of runs) {
    const t0 = nowMs();
    let summary: RankSummary;
    try {
      summary = summarizeRanks(rankGroups(groups, run.scorer), [1, 5, 10]);
    } catch (error) {
      console.log(`${run.method.padEnd(10)} ${run.context.padEnd(10)} failed: ${errorMessage(error)}`);
      continue;
    }
    const msPerQuery = (nowMs() - t0) / Math.max(1, queries);
    rows.push({ method: run.method, context: run.context, summary, msPerQuery });
    const pct = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1);
    console.log([run.method.padEnd(10), (run.context === 'none' ? '-' : run.context).padEnd(10), pct(summary.recallAt[1]).padStart(13), pct(summary.recallAt[5]).padStart(9), pct(summary.recallAt[10]).padStart(9), summary.mrr.toFixed(3).padStart(9), summary.meanRank.toFixed(1).padStart(9), msPerQuery.toFixed(3).padStart(9)].join(' '));
  }
  for (const method of methods) if (method === 'clip-map' && !maps.immediate) console.log(`clip-map   not available: ${'missing' in task.mapTraining ? task.mapTraining.missing : 'no embeddings'}`);
  console.log(`Recall in %, MRR 0-1, ties at their expected rank; ms/context = ranking only (embeddings precomputed), WASM, 1 thread; total ${((nowMs() - started) / 1000).toFixed(0)} s`);

  const jsonOut = option('json', '');
  if (jsonOut) {
    const mapInfo = Object.fromEntries(Object.entries(maps).map(([k, m]) => [k, { fit: m.fit, valid: m.valid, bestEpoch: m.bestEpoch, validR1: m.validR1, a: m.a, history: m.history }]));
    writeFileSync(
      jsonOut,
      `${JSON.stringify({ format, data: dataPath, pack: packId, packFingerprint: encoder.fingerprint, backend: encoder.backend.provider, limit: limit || null, counts: task.counts, queries, idf: task.idf.source, clipMap: 'examples' in task.mapTraining ? { trainedOn: task.mapTraining.source, ...mapInfo } : null, rows }, null, 2)}\n`,
    );
  }
  await encoder.release();
}
