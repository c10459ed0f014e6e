import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { parseAvsd } from '../engine/datasets/avsd';
import { parseDailyDialog } from '../engine/datasets/dailyDialog';
import { parseConversationsBytes } from '../engine/datasets/mmdialog';
import { decodeUtf8Strict, formatCount, parseJsonDocument } from '../engine/datasets/validation';
import { exampleTurns, parsePolyaiJsonl } from '../engine/datasets/polyai';
import { parseVisdial } from '../engine/datasets/visdial';
import { errorMessage } from '../engine/errors';
import { type RankSummary, summarizeRanks } from '../engine/metrics/dialogMetrics';
import { corpusStats } from '../engine/ranking/lexical';
import { type ConvexFit, fitConvexWeight } from '../engine/response/fusion';
import { ResponseHeads } from '../engine/response/heads';
import { SELECTION_METHOD_IDS, type SelectionMethodId } from '../engine/response/methods';
import { type RankingGroup, avsdGroups, oneOfHundredBatches, seededShuffle, splitDailyDialog, textOnlyExamples, visdialGroups } from '../engine/selection/protocols';
import { type SelectionScorer, type TextEmbedding, clipMapScorer, clipSimScorer, fusionQueries, hybridScorer, lexicalScorer, randomScorer, rankGroups } from '../engine/selection/scorers';
import { UsageError, choiceOption, integerOption, listOption, parseCommandLine } from './cliArgs';
import { loadPoolCatalogue, loadWasmPack } from './poolFiles';
import { ProgressLine } from './progressLine';
import { cachedTextEmbeddings } from './textEmbeddingCache';

/**
 * npm run bench -- select --format polyai|dailydialog|visdial|avsd --data <file>
 *                         [--methods random,tfidf,bm25,clip-sim,clip-map,hybrid] [--pack mini-clip]
 *                         [--limit N] [--seed 1] [--json out.json]
 * Response selection on real dialogue data, one row per method and context (the immediate context,
 * then the whole history), as in the PolyAI paper's Table 2:
 *  - dailydialog: the test part of a fixed by-dialogue split, 1-of-100 accuracy (PolyAI sec. 4);
 *  - polyai: PolyAI JSON lines, 1-of-100 in file order;
 *  - visdial: VisDial v1.0 val, each round's 100 answer options;
 *  - avsd: DSTC7 AVSD test, the last question of each dialogue among 100 built candidates.
 * These data sets are evaluation-only: nothing is trained, fitted or chosen on them. clip-map is the
 * pack's heads' text map (trained on the demo train split by `npm run heads:data`); the hybrid fuses
 * BM25 and that clip-map with a weight learned on the demo train split (public/dialogues/train) made
 * text-only. Embeddings are cached under models/.cache/select/, so a rerun only ranks.
 */
export const SELECT_USAGE = 'npm run bench -- select --format polyai|dailydialog|visdial|avsd --data FILE [--methods a,b] [--pack mini-clip] [--limit N] [--seed 1] [--json OUT]';
const SELECT_OPTIONS = { format: { type: 'string' }, data: { type: 'string' }, methods: { type: 'string' }, pack: { type: 'string' }, limit: { type: 'string' }, seed: { type: 'string' }, json: { type: 'string' } } as const;
type SelectOption = keyof typeof SELECT_OPTIONS;
const FORMATS = ['polyai', 'dailydialog', 'visdial', 'avsd'] as const;
type Format = (typeof FORMATS)[number];
const DEFAULT_DAILYDIALOG = join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt');
const AVSD_SEED = 1;
/** What the hybrid's weight is learned on: the project's own train dialogues, and the pool whose captions stand for their images. */
const DEMO_TRAIN = join('public', 'dialogues', 'train', 'conversations.json');
const DEMO_POOL = join('public', 'pool');
/** The order of the demo train examples before they are cut into batches of 100. */
const DEMO_SHUFFLE_SEED = 7;
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
  counts: Record<string, number>;
}

function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new Error(`There is no ${path}. Give ${what}.`);
  return decodeUtf8Strict(new Uint8Array(readFileSync(path)), path);
}

const distinct = (texts: Iterable<string>) => [...new Set(texts)];
const count = (n: number) => formatCount(n);

/*
 * Document frequencies for tf-idf and BM25 (and the hybrid's BM25) come from the collection being
 * ranked, as BM25 defines its IDF: the evaluated texts themselves, without their pairing, so nothing
 * is learned from which response answers which context. The demo train texts were the other choice;
 * they are a few thousand short chat lines on other topics, whose document frequencies say little of
 * DailyDialog's, VisDial's or AVSD's words. DailyDialog's train part is never read.
 */
function loadTask(format: Format, dataPath: string, option: (name: SelectOption, fallback: string) => string): SelectionTask {
  if (format === 'dailydialog') {
    const dialogues = parseDailyDialog(readText(dataPath, 'DailyDialog\'s dialogues_text.txt'), dataPath);
    const split = splitDailyDialog(dialogues);
    const batches = oneOfHundredBatches(split.testExamples);
    return {
      groups: batches.groups,
      description: [
        `${count(dialogues.length)} dialogues, split by dialogue (fixed hash): test part ${count(split.test.length)} dialogues (${count(split.testExamples.length)} examples, shuffled with a fixed seed); the other ${count(split.train.length)} dialogues are not read`,
        `1-of-100: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`,
      ],
      idf: { corpus: distinct(split.test.flatMap((d) => d.turns)), source: 'the test part\'s own distinct utterances (the collection ranked; no pairing used)' },
      counts: { dialogues: dialogues.length, testDialogues: split.test.length, testExamples: split.testExamples.length, batches: batches.groups.length, dropped: batches.dropped, repeatedResponses: batches.repeatedResponses },
    };
  }
  if (format === 'polyai') {
    const examples = parsePolyaiJsonl(readText(dataPath, 'a PolyAI JSON lines file'), dataPath);
    const batches = oneOfHundredBatches(examples);
    return {
      groups: batches.groups,
      description: [`${count(examples.length)} examples in file order: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`],
      idf: { corpus: distinct(examples.flatMap((e) => [...exampleTurns(e), e.response])), source: 'the file\'s own distinct texts (the collection ranked; no pairing used)' },
      counts: { examples: examples.length, batches: batches.groups.length, dropped: batches.dropped, repeatedResponses: batches.repeatedResponses },
    };
  }
  if (format === 'visdial') {
    const data = parseVisdial(parseJsonDocument(readText(dataPath, 'VisDial v1.0 val (visdial_1.0_val.json)'), dataPath), dataPath);
    const groups = visdialGroups(data);
    return {
      groups,
      description: [`split ${data.split}: ${data.dialogs.length} dialogues, ${groups.length} rounds, each ranking its 100 answer options from the question (immediate) or caption + earlier rounds + question (history)`],
      idf: { corpus: distinct([...data.questions, ...data.answers, ...data.dialogs.map((d) => d.caption)]), source: 'the file\'s question and answer lists and captions (no labels used)' },
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
    counts: { dialogues: dialogues.length, questions: n, distinctAnswers: built.distinctAnswers, ...built.composition },
  };
}

/**
 * The demo train split as text-only 1-of-100 batches (textOnlyExamples): what the hybrid's weight is
 * learned on. Its BM25 takes IDF from these same texts, as the benchmark's takes it from the collection it ranks.
 */
function demoTrainBatches(): { missing: string } | { records: number; examples: number; groups: RankingGroup[]; queries: number; idfCorpus: string[] } {
  if (!existsSync(DEMO_TRAIN)) return { missing: `there is no ${DEMO_TRAIN} to learn its weight on` };
  const captions = new Map(loadPoolCatalogue(DEMO_POOL).media.map((m) => [m.key, m.label ?? m.alt]));
  const records = parseConversationsBytes(new Uint8Array(readFileSync(DEMO_TRAIN)), { file: DEMO_TRAIN, hasMedia: (key) => captions.has(key) });
  const examples = textOnlyExamples(records, (key) => captions.get(key)!);
  const batches = oneOfHundredBatches(seededShuffle(examples, DEMO_SHUFFLE_SEED));
  return { records: records.length, examples: examples.length, groups: batches.groups, queries: batches.ranked, idfCorpus: distinct(examples.flatMap((e) => [...exampleTurns(e), e.response])) };
}

function progress(label: string): (done: number, total: number) => void {
  const line = new ProgressLine();
  return (done, total) => line.update(`${label} ${count(done)}/${count(total)} (${total ? Math.floor((100 * done) / total) : 100}%)`, done, total);
}

interface ResultRow {
  method: SelectionMethodId;
  context: ContextLabel | 'none';
  summary: RankSummary;
  msPerQuery: number;
}

/** The hybrid's learned weight for one kind of context, with the train MRR of each part alone for comparison. */
interface HybridFit extends ConvexFit {
  bm25Mrr: number;
  clipMapMrr: number;
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
  const { encoder, source, files } = await loadWasmPack(packId);
  // clip-map and the hybrid use the pack's trained heads (their clip-map); a pack without them has neither.
  const wantsHeads = methods.some((m) => m === 'clip-map' || m === 'hybrid');
  const heads = wantsHeads ? await ResponseHeads.load(source, new Set(files), encoder.fingerprint) : null;
  const unavailable = new Map<SelectionMethodId, string>();
  if (wantsHeads && !heads) for (const m of ['clip-map', 'hybrid'] as const) unavailable.set(m, `pack ${packId} has no trained heads, whose clip-map it uses (npm run heads:train -- --pack ${packId})`);
  const demo = methods.includes('hybrid') && heads ? demoTrainBatches() : null;
  if (demo && 'missing' in demo) unavailable.set('hybrid', demo.missing);
  const demoFit = demo && !('missing' in demo) ? demo : null;
  const needsClip = methods.some((m) => m === 'clip-sim' || ((m === 'clip-map' || m === 'hybrid') && !unavailable.has(m)));

  // Every text a clip method will look at, embedded once and cached.
  let embedding: TextEmbedding = () => {
    throw new Error('no embeddings were computed');
  };
  let embeddingNote = '';
  if (needsClip) {
    const texts = new Set<string>();
    for (const g of [...groups, ...(demoFit?.groups ?? [])]) {
      for (const c of g.candidates) texts.add(c);
      for (const q of g.queries) for (const t of q.turns) texts.add(t);
    }
    const t0 = nowMs();
    const cached = await cachedTextEmbeddings(encoder, packId, texts, { onProgress: progress('embedding texts') });
    embedding = cached.embedding;
    embeddingNote = `${count(texts.size)} distinct texts embedded (${count(cached.computed)} computed, ${count(cached.fromCache)} from the cache, ${((nowMs() - t0) / 1000).toFixed(1)} s)`;
  }

  // The hybrid's weight per kind of context, learned on the demo train batches: BM25 with IDF from the
  // demo texts, the same clip-map, MRR over a grid of weights (fitConvexWeight).
  const fits: Partial<Record<ContextLabel, HybridFit>> = {};
  if (demoFit && heads) {
    const demoStats = corpusStats(demoFit.idfCorpus);
    for (const context of CONTEXTS) {
      const options = { turns: context.turns };
      const fit = fitConvexWeight(fusionQueries(demoFit.groups, lexicalScorer('bm25', demoStats, options), clipMapScorer(heads.clipMap.text, embedding, options)));
      const at = (w: number) => fit.curve.find((c) => c.lexical === w)!.mrr;
      fits[context.label] = { ...fit, bm25Mrr: at(1), clipMapMrr: at(0) };
    }
  }

  console.log(`select · pack ${packId} (fingerprint ${encoder.fingerprint}) · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}, 1 thread) · Node ${process.version}`);
  console.log(`data ${dataPath} (${format})`);
  for (const line of task.description) console.log(`  ${line}`);
  if (limit > 0) console.log(`  LIMITED to the first ${groups.length} of ${task.groups.length} candidate groups (--limit ${limit}): not the full protocol`);
  console.log(`  ${count(queries)} ranked contexts · tf-idf/BM25 document frequencies from ${task.idf.source} (${count(task.idf.corpus.length)} texts)`);
  if (embeddingNote) console.log(`  ${embeddingNote}`);
  if (heads && !unavailable.has('clip-map')) console.log(`  clip-map: the pack's heads' text map (trained on the demo train split, ${source.location}heads/), a = ${heads.clipMap.text.a.toFixed(3)}; nothing trained here`);
  if (demoFit) {
    console.log(`  hybrid: BM25 + clip-map, w · z(BM25) + (1 − w) · z(clip-map), z standardised over each batch's candidates; w learned on ${DEMO_TRAIN} made text-only (${count(demoFit.records)} dialogues, ${count(demoFit.queries)} contexts in ${demoFit.groups.length} batches of 100, IDF from its ${count(demoFit.idfCorpus.length)} texts)`);
    for (const context of CONTEXTS) {
      const f = fits[context.label]!;
      console.log(`    ${context.label}: w = ${f.lexical.toFixed(2)} (train MRR ${f.mrr.toFixed(3)}; BM25 alone ${f.bm25Mrr.toFixed(3)}, clip-map alone ${f.clipMapMrr.toFixed(3)})`);
    }
  }

  const stats = methods.some((m) => m === 'tfidf' || m === 'bm25' || m === 'hybrid') ? corpusStats(task.idf.corpus) : null;
  const runs: { method: SelectionMethodId; context: ContextLabel | 'none'; scorer: SelectionScorer }[] = [];
  for (const method of methods) {
    if (unavailable.has(method)) continue;
    if (method === 'random') {
      runs.push({ method, context: 'none', scorer: randomScorer(seed) });
      continue;
    }
    for (const context of CONTEXTS) {
      const options = { turns: context.turns };
      if (method === 'tfidf' || method === 'bm25') runs.push({ method, context: context.label, scorer: lexicalScorer(method, stats!, options) });
      else if (method === 'clip-sim') runs.push({ method, context: context.label, scorer: clipSimScorer(embedding, options) });
      else if (method === 'clip-map') runs.push({ method, context: context.label, scorer: clipMapScorer(heads!.clipMap.text, embedding, options) });
      else runs.push({ method, context: context.label, scorer: hybridScorer(lexicalScorer('bm25', stats!, options), clipMapScorer(heads!.clipMap.text, embedding, options), fits[context.label]!) });
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
  for (const [method, why] of unavailable) if (methods.includes(method)) console.log(`${method.padEnd(10)} not available: ${why}`);
  console.log(`Recall in %, MRR 0-1, ties at their expected rank; ms/context = ranking only (embeddings precomputed), WASM, 1 thread; total ${((nowMs() - started) / 1000).toFixed(0)} s`);

  const jsonOut = option('json', '');
  if (jsonOut) {
    const hybrid = demoFit ? { learnedOn: DEMO_TRAIN, queries: demoFit.queries, weights: Object.fromEntries(Object.entries(fits).map(([k, f]) => [k, { lexical: f.lexical, mrr: f.mrr, bm25Mrr: f.bm25Mrr, clipMapMrr: f.clipMapMrr, curve: f.curve }])) } : null;
    const clipMap = heads && !unavailable.has('clip-map') ? { from: `${source.location}heads/clip_map.bin`, a: heads.clipMap.text.a } : null;
    writeFileSync(jsonOut, `${JSON.stringify({ format, data: dataPath, pack: packId, packFingerprint: encoder.fingerprint, backend: encoder.backend.provider, limit: limit || null, counts: task.counts, queries, idf: task.idf.source, clipMap, hybrid, rows }, null, 2)}\n`);
  }
  await heads?.release();
  await encoder.release();
}
