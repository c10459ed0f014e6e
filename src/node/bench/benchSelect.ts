import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { CONVERSATION_CORPORA, splitCorpus } from '../../engine/conversations/corpora';
import { DATASET_FORMATS, SELECTION_FORMATS, datasetFormatOfText, readDatasetFile, unknownDatasetFormatMessage } from '../../engine/datasets/datasetFormats';
import { decodeUtf8Strict, formatCount } from '../../engine/datasets/validation';
import { type PolyaiExample, exampleTurns } from '../../engine/datasets/polyai';
import { errorMessage } from '../../engine/errors';
import { type RankSummary, summarizeRanks } from '../../engine/metrics/dialogMetrics';
import { LexicalIndex, corpusStats } from '../../engine/ranking/lexical';
import { ScoreMatrix } from '../../engine/retrieval/scoreMatrix';
import { topKOfScores } from '../../engine/retrieval/vectors';
import { textKey } from '../../engine/pool/textKey';
import { SELECTION_HYBRID_PARTS } from '../../engine/ranking/hybridRanker';
import { SELECTION_METHOD_IDS, type SelectionMethodId } from '../../engine/response/methods';
import {
  type RankingGroup,
  avsdGroups,
  type NearestTexts,
  nearestNegativeGroups,
  oneOfHundredBatches,
  shuffledConversationExamples,
  visdialGroups,
} from '../../engine/selection/protocols';
import {
  ChatKeyCache,
  type SelectionScorer,
  type TextEmbedding,
  chatEncoderScorer,
  clipMapScorer,
  clipSimScorer,
  contextMatchScorer,
  hybridScorer,
  questionAnswerScorer,
  lexicalScorer,
  randomScorer,
  rankGroups,
} from '../../engine/ranking/scorers';
import { UsageError, choiceOption, integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { loadPoolCatalogue } from '../data/poolFiles';
import { ProgressLine } from '../tools/progressLine';
import { chatPoolOf, loadReplyParts, releaseReplyParts } from './replyParts';
import { cachedTextEmbeddings } from '../tools/textEmbeddingCache';

/**
 * npm run bench -- select --data <file> [--format dailydialog|topical-chat|polyai|visdial|avsd]
 *                         [--methods random,tfidf,bm25,clip-sim,clip-map,chat-encoder,context-match,hybrid]
 *                         [--pack mini-clip] [--limit N] [--seed 1] [--json out.json]
 * Response selection on real dialogue data, one row per method and context (the immediate context,
 * then the whole history), as in the PolyAI paper's Table 2:
 *  - dailydialog: the test part of the one split rule (splitCorpus: copies removed first), 1-of-100 (PolyAI sec. 4);
 *  - topical-chat: a Topical-Chat file's conversations (test_freq.json is the test part), 1-of-100;
 *  - polyai: PolyAI JSON lines, 1-of-100 in file order;
 *  - visdial: VisDial v1.0 val, each round's 100 answer options;
 *  - avsd: DSTC7 AVSD test, the last question of each dialogue among 100 built candidates.
 * The format is read off the file when --format is not given. Nothing is trained, fitted or chosen
 * here: clip-map is the pack's heads' map, the conversational encoder, its stored contexts and the
 * hybrid's weights are the pack's (chat:train, chat:keys, chat:fuse, learned on the valid parts).
 * CLIP embeddings are cached under models/.cache/select/, so a rerun mostly ranks.
 */
export const SELECT_USAGE =
  'npm run bench -- select --data FILE [--format dailydialog|topical-chat|polyai|visdial|avsd] [--negatives random|nearest] [--methods a,b] [--pack mini-clip] [--limit N] [--seed 1] [--json OUT]';
const SELECT_OPTIONS = {
  format: { type: 'string' },
  data: { type: 'string' },
  methods: { type: 'string' },
  pack: { type: 'string' },
  limit: { type: 'string' },
  seed: { type: 'string' },
  negatives: { type: 'string' },
  json: { type: 'string' },
} as const;
/** Random: the other responses of a batch of 100 (PolyAI); nearest: the 99 texts nearest each context (nearestNegativeGroups). */
const NEGATIVES = ['random', 'nearest'] as const;
type SelectOption = keyof typeof SELECT_OPTIONS;
const AVSD_SEED = 1;
const CONTEXTS = [
  { label: 'immediate', turns: 1 },
  { label: 'history', turns: Infinity },
] as const;
type ContextLabel = (typeof CONTEXTS)[number]['label'];

interface SelectionTask {
  groups: RankingGroup[];
  /** The examples the 1-of-100 batches rank, in batch order (the conversation formats); what --negatives nearest ranks instead among their own nearest texts. */
  examples?: PolyaiExample[];
  /** Header lines saying what is ranked. */
  description: string[];
  idf: { corpus: string[]; source: string };
  counts: Record<string, number>;
}

const distinct = (texts: Iterable<string>) => [...new Set(texts)];
const count = (n: number) => formatCount(n);
const readFirstTurns = (conversations: readonly (readonly string[])[]) => distinct(conversations.flat());

/**
 * How `bench -- select` builds the candidate groups of each file it reads. What each format is called,
 * how it is told from its text and its reader are the dataset format registry's (datasetFormats.ts).
 */
const SELECTION_TASKS: Record<Format, { example: string; load(text: string, path: string, seed?: number): SelectionTask }> = {
  dailydialog: {
    example: join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt'),
    load(text: string, path: string): SelectionTask {
      const corpus = CONVERSATION_CORPORA.dailydialog;
      const { conversations, skipped } = readDatasetFile('dailydialog', text, path);
      const split = splitCorpus('dailydialog', [{ file: 'dialogues_text.txt', conversations }]);
      const inPart = (part: string) => split.conversations.filter((c) => c.part === part).map((c) => c.conversation.turns.map(corpus.tidy));
      const test = inPart('test');
      const trainResponses = new Set(inPart('train').flatMap((turns) => turns.slice(1).map((t) => textKey(t))));
      const examples = shuffledConversationExamples(test);
      const batches = oneOfHundredBatches(examples);
      const inTrain = batches.groups.reduce((n, g) => n + g.candidates.filter((c) => trainResponses.has(textKey(c))).length, 0);
      return {
        groups: batches.groups,
        examples: examples.slice(0, batches.ranked),
        description: [
          `${count(conversations.length)} dialogues (${skipped.emptyTurns} empty utterances and ${skipped.oneTurn} one-turn lines skipped); ${count(split.copiesRemoved)} removed as copies of another by normalised text, ${count(split.partsJoined)} put in the part of a copy or variant (splitCorpus); test part ${count(test.length)} dialogues (${count(batches.ranked + batches.dropped)} examples, shuffled with a fixed seed); train and valid are not ranked`,
          `1-of-100: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives; utterances as typed (untokenizeDailyDialog), as the pool and the encoder have them`,
          `${count(inTrain)} of ${count(batches.ranked)} test responses (${((100 * inTrain) / Math.max(1, batches.ranked)).toFixed(1)}%) are also responses of the train part, by text key ("Thank you.", "OK.")`,
        ],
        idf: { corpus: readFirstTurns(test), source: "the test part's own distinct utterances (the collection ranked; no pairing used)" },
        counts: {
          dialogues: conversations.length,
          copiesRemoved: split.copiesRemoved,
          testDialogues: test.length,
          testExamples: batches.ranked + batches.dropped,
          batches: batches.groups.length,
          dropped: batches.dropped,
          repeatedResponses: batches.repeatedResponses,
          testResponsesInTrain: inTrain,
        },
      };
    },
  },
  'topical-chat': {
    example: join('..', 'shared', 'data', 'topical-chat', 'test_freq.json'),
    load(text: string, path: string): SelectionTask {
      const corpus = CONVERSATION_CORPORA['topical-chat'];
      const { conversations, skipped } = readDatasetFile('topical-chat', text, path);
      const file = basename(path);
      const role = corpus.files.find((f) => f.name === file)?.role;
      const turns = conversations.map((c) => c.turns.map(corpus.tidy));
      const examples = shuffledConversationExamples(turns);
      const batches = oneOfHundredBatches(examples);
      return {
        groups: batches.groups,
        examples: examples.slice(0, batches.ranked),
        description: [
          `${count(conversations.length)} conversations of ${file} (${role === 'test' ? 'the test part' : role === 'train-valid' ? 'NOT the test part: this file is train and valid' : 'not one of the files of the split'}; ${skipped.emptyTurns} empty messages and ${skipped.oneTurn} one-turn conversations skipped): ${count(batches.ranked + batches.dropped)} examples, shuffled with a fixed seed`,
          `1-of-100: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`,
        ],
        idf: { corpus: readFirstTurns(turns), source: "the file's own distinct messages (the collection ranked; no pairing used)" },
        counts: {
          conversations: conversations.length,
          examples: batches.ranked + batches.dropped,
          batches: batches.groups.length,
          dropped: batches.dropped,
          repeatedResponses: batches.repeatedResponses,
        },
      };
    },
  },
  polyai: {
    example: join('models', '.cache', 'select', 'dailydialog', 'test.jsonl'),
    load(text: string, path: string): SelectionTask {
      const examples = readDatasetFile('polyai', text, path);
      const batches = oneOfHundredBatches(examples);
      return {
        groups: batches.groups,
        examples: examples.slice(0, batches.ranked),
        description: [
          `${count(examples.length)} examples in file order: ${batches.groups.length} batches of 100 (${batches.dropped} examples of the incomplete last batch left out); ${batches.repeatedResponses} responses repeat within their batch and are not their own negatives`,
        ],
        idf: {
          corpus: distinct(examples.flatMap((e) => [...exampleTurns(e), e.response])),
          source: "the file's own distinct texts (the collection ranked; no pairing used)",
        },
        counts: { examples: examples.length, batches: batches.groups.length, dropped: batches.dropped, repeatedResponses: batches.repeatedResponses },
      };
    },
  },
  visdial: {
    example: join('..', 'shared', 'data', 'visdial', 'visdial_1.0_val.json'),
    load(text: string, path: string): SelectionTask {
      const data = readDatasetFile('visdial', text, path);
      const groups = visdialGroups(data);
      return {
        groups,
        description: [
          `split ${data.split}: ${data.dialogs.length} dialogues, ${groups.length} rounds, each ranking its 100 answer options from the question (immediate) or caption + earlier rounds + question (history)`,
        ],
        idf: {
          corpus: distinct([...data.questions, ...data.answers, ...data.dialogs.map((d) => d.caption)]),
          source: "the file's question and answer lists and captions (no labels used)",
        },
        counts: { dialogues: data.dialogs.length, rounds: groups.length },
      };
    },
  },
  avsd: {
    example: join('..', 'shared', 'data', 'avsd', 'lbl_test_set4DSTC7-AVSD.json'),
    load(text: string, path: string, seed = AVSD_SEED): SelectionTask {
      const dialogues = readDatasetFile('avsd', text, path);
      const built = avsdGroups(dialogues, { seed });
      const n = built.groups.length;
      return {
        groups: built.groups,
        description: [
          `${count(dialogues.length)} dialogues; the last question of each ranked among 100 candidates from the question (immediate) or caption + earlier rounds + question (history)`,
          `candidates per question (mean): 1 truth + ${(built.composition.plausible / n).toFixed(1)} plausible (answers to the most similar questions of other dialogues, tf-idf) + ${(built.composition.popular / n).toFixed(1)} popular + ${(built.composition.random / n).toFixed(1)} random, from ${count(built.distinctAnswers)} distinct answers, seed ${seed}`,
        ],
        idf: {
          corpus: distinct(dialogues.flatMap((d) => [d.caption, ...d.rounds.flatMap((r) => [r.question, r.answer])])),
          source: "the file's captions, questions and answers (no labels used)",
        },
        counts: { dialogues: dialogues.length, questions: n, distinctAnswers: built.distinctAnswers, ...built.composition },
      };
    },
  },
};
type Format = (typeof SELECTION_FORMATS)[number];
const FORMATS: readonly Format[] = SELECTION_FORMATS;

/** The format a file's text looks like, or null. */
export function selectionFormatOf(text: string): Format | null {
  return datasetFormatOfText(text, FORMATS);
}

/** The one sentence for a file no format reads. */
function unknownFile(path: string): string {
  return unknownDatasetFormatMessage(path, 'bench -- select', FORMATS, '--format');
}

function loadTask(path: string, asked: Format | null, seed: number): { format: Format; task: SelectionTask } {
  if (!existsSync(path))
    throw new UsageError(`There is no ${path}. Give the file to rank, for example --data ${SELECTION_TASKS[asked ?? 'dailydialog'].example}.`, SELECT_USAGE);
  let text: string;
  try {
    text = decodeUtf8Strict(new Uint8Array(readFileSync(path)), path);
  } catch {
    throw new Error(unknownFile(path));
  }
  const seen = selectionFormatOf(text);
  const format = asked ?? seen;
  if (!format) throw new Error(unknownFile(path));
  if (asked && seen && seen !== asked)
    throw new Error(`${path} looks like ${DATASET_FORMATS[seen].what}, not ${DATASET_FORMATS[asked].what}: use --format ${seen}.`);
  return { format, task: SELECTION_TASKS[format].load(text, path, seed) };
}

/** Indices of `scores` best first, found a few hundred at a time (a context's nearest texts are read until 99 are distinct). */
function* bestFirst(scores: Float64Array): Generator<number> {
  for (let k = 256, done = 0; done < scores.length; k *= 4) {
    const top = topKOfScores(scores, Math.min(k, scores.length));
    for (let i = done; i < top.length; i++) yield top[i]!.index;
    done = top.length;
  }
}

/** The texts of a collection nearest a context's latest turn: by BM25 (the collection's own document frequencies) and by CLIP cosine. */
function nearestTextsOf(texts: readonly string[], embedding: TextEmbedding): { bm25: NearestTexts; clip: NearestTexts } {
  const bm25 = LexicalIndex.build('bm25', texts, corpusStats(texts));
  const matrix = ScoreMatrix.fromRows(texts.map(embedding));
  return {
    bm25: (turns) => bestFirst(bm25.score(turns.at(-1) ?? '')),
    clip: (turns) => bestFirst(matrix.scores(embedding(turns.at(-1) ?? ''))),
  };
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

export async function selectBench(args: string[]): Promise<void> {
  const values = parseCommandLine(args, SELECT_OPTIONS, SELECT_USAGE);
  const option = (name: SelectOption, fallback: string): string => values[name] || fallback;
  const asked = option('format', '') ? choiceOption(option('format', ''), 'format', FORMATS, SELECT_USAGE) : null;
  const dataPath = option('data', '');
  if (!dataPath) throw new UsageError(`Say which file to rank: --data <file> (for example ${SELECTION_TASKS[asked ?? 'dailydialog'].example}).`, SELECT_USAGE);
  const methods = listOption(option('methods', SELECTION_METHOD_IDS.join(',')), 'methods', SELECTION_METHOD_IDS, SELECT_USAGE);
  const packId = option('pack', 'mini-clip');
  const seed = integerOption(option('seed', '1'), 'seed', SELECT_USAGE, 0);
  // 0: every candidate group.
  const limit = integerOption(option('limit', '0'), 'limit', SELECT_USAGE, 0);

  const negatives = choiceOption(option('negatives', 'random'), 'negatives', NEGATIVES, SELECT_USAGE);

  const started = nowMs();
  const { format, task } = loadTask(dataPath, asked, seed);
  if (negatives === 'nearest' && !task.examples)
    throw new UsageError(`--negatives nearest ranks 1-of-100 examples (dailydialog, topical-chat, polyai); ${format} has its own candidates.`, SELECT_USAGE);
  const wantsChat = methods.some((m) => m === 'chat-encoder' || m === 'context-match' || m === 'hybrid');
  const parts = await loadReplyParts(packId, { heads: methods.includes('clip-map'), chat: wantsChat });
  const { encoder } = parts;
  const unavailable = new Map<SelectionMethodId, string>();
  if (methods.includes('clip-map') && !parts.heads)
    unavailable.set('clip-map', `pack ${packId} has no trained heads, whose clip-map it uses (npm run heads:train -- --pack ${packId})`);
  const chatEncoder = parts.chatEncoder;
  if (!chatEncoder)
    for (const m of ['chat-encoder', 'context-match', 'hybrid'] as const)
      unavailable.set(m, `pack ${packId} has no conversational encoder (npm run chat:data && npm run chat:train)`);
  // Context match reads the pool's stored contexts and keys (chat:keys); the hybrid fuses with the pack's learned weights (chat:fuse).
  const poolDir = join('public', 'pool');
  const chatPool =
    chatEncoder && parts.chat && methods.some((m) => m === 'context-match' || m === 'hybrid')
      ? await (async () => {
          const { texts, media } = loadPoolCatalogue(poolDir);
          return chatPoolOf(
            parts.chat!,
            poolDir,
            packId,
            texts.map((t) => t.text),
            media.map((m) => m.label ?? m.alt),
          );
        })()
      : null;
  if (chatEncoder && !chatPool?.contexts)
    for (const m of ['context-match', 'hybrid'] as const)
      unavailable.set(m, `there are no stored contexts for ${packId} (npm run chat:keys -- --pack ${packId})`);
  if (chatEncoder && !parts.fusion && !unavailable.has('hybrid'))
    unavailable.set('hybrid', `pack ${packId} has no learned hybrid weights (npm run chat:fuse -- --pack ${packId})`);
  const keys = chatEncoder ? new ChatKeyCache(chatEncoder) : null;
  const needsClip = negatives === 'nearest' || methods.some((m) => m === 'clip-sim' || (m === 'clip-map' && !unavailable.has(m)));

  // Every text a CLIP method (or the choice of nearest negatives) will look at, embedded once and cached.
  let embedding: TextEmbedding = () => {
    throw new Error('no embeddings were computed');
  };
  let embeddingNote = '';
  if (needsClip) {
    const texts = new Set<string>(negatives === 'nearest' ? task.idf.corpus : []);
    for (const g of task.groups) {
      for (const c of g.candidates) texts.add(c);
      for (const q of g.queries) for (const t of q.turns) texts.add(t);
    }
    const t0 = nowMs();
    const cached = await cachedTextEmbeddings(encoder, packId, texts, { onProgress: progress('embedding texts') });
    embedding = cached.embedding;
    embeddingNote = `${count(texts.size)} distinct texts embedded by CLIP (${count(cached.computed)} computed, ${count(cached.fromCache)} from the cache, ${((nowMs() - t0) / 1000).toFixed(1)} s)`;
  }

  // --limit N keeps the first N candidate groups; with nearest negatives, the examples of the first N batches.
  let groups = limit > 0 ? task.groups.slice(0, limit) : task.groups;
  let nearestNote = '';
  if (negatives === 'nearest') {
    const examples = limit > 0 ? task.examples!.slice(0, 100 * limit) : task.examples!;
    const nearest = nearestTextsOf(task.idf.corpus, embedding);
    const built = nearestNegativeGroups(examples, task.idf.corpus, [nearest.bm25, nearest.clip], textKey);
    groups = built.groups;
    nearestNote = `NEAREST negatives: each of the ${count(examples.length)} contexts of the batches above ranked among its response and the 99 texts of ${task.idf.source} nearest it (${count(built.fromContext)} of them the context's own turns, ${((100 * built.fromContext) / (99 * Math.max(1, examples.length))).toFixed(1)}%; then, in turn, the best by BM25 and by CLIP cosine (the pack's text tower, not a ranked method) to the latest turn; never the response or a copy of it by text key)`;
  }
  const queries = groups.reduce((n, g) => n + g.queries.length, 0);

  console.log(
    `select · pack ${packId} (fingerprint ${encoder.fingerprint}) · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}, 1 thread) · Node ${process.version}`,
  );
  console.log(`data ${dataPath} (${format})`);
  for (const line of task.description) console.log(`  ${line}`);
  if (nearestNote) console.log(`  ${nearestNote}`);
  if (limit > 0)
    console.log(
      `  LIMITED to the first ${Math.min(limit, task.groups.length)} of ${task.groups.length} candidate groups (--limit ${limit}): not the full protocol`,
    );
  console.log(`  ${count(queries)} ranked contexts · tf-idf/BM25 document frequencies from ${task.idf.source} (${count(task.idf.corpus.length)} texts)`);
  if (embeddingNote) console.log(`  ${embeddingNote}`);
  if (parts.heads && !unavailable.has('clip-map'))
    console.log(
      `  clip-map: the pack's heads' text map (trained on the demo train split, ${parts.source.location}heads/), a = ${parts.heads.clipMap.text.a.toFixed(3)}; nothing trained here`,
    );
  if (chatEncoder) {
    const v = chatEncoder.config.training.valid;
    console.log(
      `  chat-encoder: ${parts.source.location}chat/ (the latest ${chatEncoder.config.contextTurns} turns, ${chatEncoder.config.dim}-d keys; trained on the train parts of DailyDialog and Topical-Chat, epoch ${chatEncoder.config.training.bestEpoch} chosen on their valid parts: ${Object.entries(
        v,
      )
        .map(([c, f]) => `${c} R@1 ${(100 * f.r1).toFixed(1)}`)
        .join(', ')})`,
    );
  }
  if (chatPool?.contexts && parts.chat)
    console.log(
      `  context-match: ${count(chatPool.contexts.vectors.rows)} stored train contexts (public/pool/embeddings/${packId}.contexts.*), ${parts.chat.contextMatch.neighbours} neighbours, temperature ${parts.chat.contextMatch.temperature}`,
    );
  if (parts.fusion && !unavailable.has('hybrid')) {
    console.log(`  hybrid: Σ w · z(part), z standardised over each group's candidates; weights learned on ${parts.fusion.learnedOn.text}:`);
    for (const c of CONTEXTS) {
      const learned = parts.fusion.text[c.label];
      console.log(
        `    ${c.label}: ${SELECTION_HYBRID_PARTS.map((n, i) => `${n} ${learned.weights[i]!.toFixed(2)}`).join(' + ')}${learned.bm25Turns === 1 && c.turns !== 1 ? ' (BM25 on the latest turn)' : ''} (valid MRR ${learned.mrr.toFixed(3)})`,
      );
    }
  }

  const stats = methods.some((m) => m === 'tfidf' || m === 'bm25' || m === 'hybrid') ? corpusStats(task.idf.corpus) : null;
  const stored = chatPool?.contexts && parts.chat ? { contexts: chatPool.contexts, responseKeys: chatPool.textKeys, settings: parts.chat.contextMatch } : null;
  const runs: { method: SelectionMethodId; context: ContextLabel | 'none'; scorer: SelectionScorer }[] = [];
  // One scorer per selection method, by context: a method added to methods.ts does not compile here until it has one.
  const scorers: Record<SelectionMethodId, (context: (typeof CONTEXTS)[number]) => SelectionScorer> = {
    random: () => randomScorer(seed),
    tfidf: (context) => lexicalScorer('tfidf', stats!, { turns: context.turns }),
    bm25: (context) => lexicalScorer('bm25', stats!, { turns: context.turns }),
    'clip-sim': (context) => clipSimScorer(embedding, { turns: context.turns }),
    'clip-map': (context) => clipMapScorer(parts.heads!.clipMap.text, embedding, { turns: context.turns }),
    'chat-encoder': (context) => chatEncoderScorer(keys!, { turns: context.turns }),
    'context-match': (context) => contextMatchScorer(keys!, stored!, { turns: context.turns }),
    hybrid: (context) => {
      const learned = parts.fusion!.text[context.label];
      return hybridScorer(
        [
          lexicalScorer('bm25', stats!, { turns: learned.bm25Turns ?? context.turns }),
          chatEncoderScorer(keys!, { turns: context.turns }),
          contextMatchScorer(keys!, stored!, { turns: context.turns }),
          questionAnswerScorer(parts.fusion!.questionAnswer),
        ],
        learned.weights,
      );
    },
  };
  for (const method of methods) {
    if (unavailable.has(method)) continue;
    // The random baseline reads no context: one run.
    if (method === 'random') runs.push({ method, context: 'none', scorer: scorers.random(CONTEXTS[0]) });
    else for (const context of CONTEXTS) runs.push({ method, context: context.label, scorer: scorers[method](context) });
  }

  const oneOfHundred = format === 'dailydialog' || format === 'polyai' || format === 'topical-chat';
  const header = ['method', 'context', oneOfHundred ? '1-of-100 R@1' : 'R@1', 'R@5', 'R@10', 'MRR', 'mean rank', 'ms/context'];
  console.log(header.map((h, i) => (i < 2 ? h.padEnd(13) : h.padStart(i === 2 ? 13 : 9))).join(' '));
  const rows: ResultRow[] = [];
  const pct = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1);
  for (const run of runs) {
    const t0 = nowMs();
    let summary: RankSummary;
    try {
      summary = summarizeRanks(await rankGroups(groups, run.scorer), [1, 5, 10]);
    } catch (error) {
      console.log(`${run.method.padEnd(13)} ${run.context.padEnd(13)} failed: ${errorMessage(error)}`);
      continue;
    }
    const msPerQuery = (nowMs() - t0) / Math.max(1, queries);
    rows.push({ method: run.method, context: run.context, summary, msPerQuery });
    console.log(
      [
        run.method.padEnd(13),
        (run.context === 'none' ? '-' : run.context).padEnd(13),
        pct(summary.recallAt[1]).padStart(13),
        pct(summary.recallAt[5]).padStart(9),
        pct(summary.recallAt[10]).padStart(9),
        summary.mrr.toFixed(3).padStart(9),
        summary.meanRank.toFixed(1).padStart(9),
        msPerQuery.toFixed(3).padStart(9),
      ].join(' '),
    );
  }
  // What int8 keys (as the page stores the pool's) cost the encoder here: the same ranking with each candidate key quantized.
  let int8: { r1: number; f32: number } | null = null;
  if (keys && methods.includes('chat-encoder')) {
    const f32 = rows.find((r) => r.method === 'chat-encoder' && r.context === 'history');
    const quantized = summarizeRanks(await rankGroups(groups, chatEncoderScorer(keys, { turns: Infinity }, { int8Keys: true })), [1]);
    if (f32) {
      int8 = { r1: quantized.recallAt[1]!, f32: f32.summary.recallAt[1]! };
      console.log(
        `chat-encoder, history, with int8 keys (per-row scale, as the pool's are stored): R@1 ${pct(int8.r1)} against ${pct(int8.f32)} with float keys`,
      );
    }
  }
  for (const [method, why] of unavailable) if (methods.includes(method)) console.log(`${method.padEnd(13)} not available: ${why}`);
  console.log(
    `Recall in %, MRR 0-1, ties at their expected rank; ms/context = ranking only for the CLIP methods (embeddings precomputed), encoding included for the encoder's; WASM, 1 thread; total ${((nowMs() - started) / 1000).toFixed(0)} s`,
  );

  const jsonOut = option('json', '');
  if (jsonOut) {
    const hybrid =
      parts.fusion && !unavailable.has('hybrid') ? { learnedOn: parts.fusion.learnedOn.text, parts: SELECTION_HYBRID_PARTS, weights: parts.fusion.text } : null;
    writeFileSync(
      jsonOut,
      `${JSON.stringify({ format, data: dataPath, pack: packId, packFingerprint: encoder.fingerprint, chatEncoder: chatEncoder?.fingerprint ?? null, backend: encoder.backend.provider, limit: limit || null, counts: task.counts, negatives, queries, idf: task.idf.source, hybrid, int8, rows }, null, 2)}\n`,
    );
  }
  await releaseReplyParts(parts);
}
