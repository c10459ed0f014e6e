import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type DialogueElement, type DialogueRecord, parseConversationsBytes } from '../engine/datasets/mmdialog';
import type { PoolMediaItem, PoolText } from '../engine/datasets/poolCatalogue';
import { errorMessage } from '../engine/errors';
import { embedPool, imageContentKey } from '../engine/pool/poolEmbeddings';
import { hashBytes } from '../engine/pool/contentHash';
import { l2Normalize } from '../engine/retrieval/vectors';
import { percentile } from '../engine/stats';
import { type IntentModel, MajorityIntent } from '../engine/response/compose';
import { type DialogEvalResult, evaluateDialogs } from '../engine/response/evaluate';
import { ResponseHeads } from '../engine/response/heads';
import type { ClipEncoder } from '../engine/clip/clipEncoder';
import { ClipMapRanker, ClipSimRanker, LexicalRanker, RANKING_METHODS, RandomRanker, type Ranker, type RankingMethodId } from '../engine/response/rankers';
import type { CandidateItem, CandidatePool, ContextElement, Modality } from '../engine/response/types';
import { choiceOption, integerOption, listOption, parseCommandLine } from './cliArgs';
import { decodeAnyImageFile } from './decodeImageFile';
import { loadPoolCatalogue, loadWasmPack, readPoolEmbeddingsFile } from './poolFiles';
import { ProgressLine } from './progressLine';

export const DIALOG_USAGE = 'npm run bench -- dialog [--pack mini-clip] [--data public/dialogues] [--split test] [--methods a,b] [--intent both|majority|head] [--negatives 999] [--pool DIR] [--json OUT]';

/**
 * npm run bench -- dialog --pack <id> --data <dir> [--split test] [--methods a,b] [--negatives 99|999]
 *                         [--pool <dir>] [--json out.json]
 * The MMDialog response-retrieval protocol (paper Table 5) on any dataset in MMDialog format: one row
 * per method with Intent F1, image and text Recall@1/5/10, MM-Relevance and time per response.
 * The candidate pool is --pool (the demo pool for the demo data) or, without it, every text and image
 * of the split, negatives included.
 */
function findImages(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(jpe?g|png|webp)$/i.test(name)) out.set(name.replace(/\.[^.]+$/, ''), path);
    }
  };
  walk(dir);
  return out;
}

function readSplit(dir: string, split: string, hasMedia: (k: string) => boolean): DialogueRecord[] {
  const file = join(dir, split, 'conversations.json');
  if (!existsSync(file)) throw new Error(`There is no ${file}. --data must be a folder with {train,valid,test}/conversations.json.`);
  return parseConversationsBytes(new Uint8Array(readFileSync(file)), { file: `${split}/conversations.json`, hasMedia });
}

const responseModalities = (records: readonly DialogueRecord[]) => records.flatMap((r) => r.turns.slice(1).map((t) => t.elements.map((e) => (e.kind === 'text' ? 'text' : 'image') as Modality)));
const textsOf = (records: readonly DialogueRecord[]) => records.flatMap((r) => r.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []))));

export interface DialogBenchOptions {
  packId: string;
  /** A folder with {train,valid,test}/conversations.json in MMDialog format. */
  dataDir: string;
  split: string;
  /** Negatives per ranked element (999 or 99): texts beyond them are not encoded. */
  negatives: number;
  /** The candidate pool's folder (media.json, texts.json, embeddings/); '' for every text and image of the split. */
  poolDir: string;
}

/** What a dialog benchmark run needs, loaded once: the pack, the embedded pool, the split's records and how to resolve their elements. */
export interface DialogBenchData {
  encoder: ClipEncoder;
  heads: ResponseHeads | null;
  pool: CandidatePool;
  records: DialogueRecord[];
  element: (e: DialogueElement) => ContextElement;
  negative: (modality: Modality, value: string) => CandidateItem;
  /** The majority intent per step of the train split's responses (of the split itself when there is no train split). */
  majority: IntentModel;
  rankers: Partial<Record<RankingMethodId, () => Ranker>>;
}

/** Loads a pack, embeds the pool and reads a split as the benchmark runs them; the e2e tests use it to check the page's figures. */
export async function loadDialogBenchData({ packId, dataDir, split: splitName, negatives, poolDir }: DialogBenchOptions): Promise<DialogBenchData> {
  const { encoder, source, files: packFiles } = await loadWasmPack(packId);
  const heads = await ResponseHeads.load(source, new Set(packFiles), encoder.fingerprint);
  // The pool: its texts and images, and their unit embeddings.
  let texts: PoolText[];
  let media: (PoolMediaItem & { path: string })[];
  const datasetImages = poolDir ? new Map<string, string>() : findImages(dataDir);
  if (poolDir) {
    const catalogue = loadPoolCatalogue(poolDir);
    texts = catalogue.texts;
    media = catalogue.media.map((m) => ({ ...m, path: join(poolDir, m.file) }));
  } else {
    const splitRecords = readSplit(dataDir, splitName, (k) => datasetImages.has(k));
    const all = [...new Set([...textsOf(splitRecords), ...splitRecords.flatMap((r) => r.negativeTexts ?? [])])];
    texts = all.map((text, i) => ({ id: String(i), text }));
    media = [...datasetImages].map(([key, path]) => ({ key, file: relative(dataDir, path), path, kind: 'image', alt: key, keywords: [], source: 'dataset', licence: 'unknown' }));
  }
  const mediaKeys = new Set(media.map((m) => m.key));
  const records = readSplit(dataDir, splitName, (k) => mediaKeys.has(k));
  const train = existsSync(join(dataDir, 'train', 'conversations.json')) ? readSplit(dataDir, 'train', (k) => mediaKeys.has(k)) : [];
  const pre = poolDir ? readPoolEmbeddingsFile(poolDir, packId) : null;
  const progress = new ProgressLine();
  const embedded = await embedPool({
    encoder,
    texts,
    images: media,
    imageKeys: media.map((m) => (m.sha256 ? imageContentKey(m) : imageContentKey(m, hashBytes(new Uint8Array(readFileSync(m.path)))))),
    loadImage: (m) => decodeAnyImageFile(m.path),
    precomputed: pre,
    onProgress: ({ phase, done, total }) => progress.update(`embedding the pool: ${phase} ${done}/${total}`, done, total, phase),
  });
  progress.end();
  const pool: CandidatePool = {
    texts: texts.map((t) => t.text),
    textMatrix: embedded.textMatrix,
    imageKeys: media.map((m) => m.key),
    imageCaptions: media.map((m) => m.label ?? m.alt),
    imageMatrix: embedded.imageMatrix,
  };

  // Every text of the split (turns and negatives) as a unit embedding: pool rows where they exist, else encoded once.
  const textRow = new Map(pool.texts.map((t, i) => [t, i] as const));
  const imageRow = new Map(pool.imageKeys.map((k, i) => [k, i] as const));
  const encoded = new Map<string, Float32Array>();
  const missing = [...new Set([...textsOf(records), ...records.flatMap((r) => r.negativeTexts?.slice(0, negatives) ?? [])])].filter((t) => !textRow.has(t));
  for (let i = 0; i < missing.length; i += 64) {
    const batch = missing.slice(i, i + 64);
    (await encoder.encodeTexts(batch)).forEach((e, j) => encoded.set(batch[j]!, l2Normalize(e)));
  }
  const row = (m: { data: Float32Array; dim: number }, i: number) => m.data.subarray(i * m.dim, (i + 1) * m.dim);
  const textItem = (text: string): CandidateItem => ({ text, embedding: encoded.get(text) ?? row(pool.textMatrix, textRow.get(text)!) });
  const imageItem = (key: string): CandidateItem => {
    const i = imageRow.get(key);
    if (i === undefined) throw new Error(`Media key ${key} has no image in the pool.`);
    return { text: pool.imageCaptions[i]!, embedding: row(pool.imageMatrix, i) };
  };
  const element = (e: DialogueElement): ContextElement => (e.kind === 'text' ? { kind: 'text', ...textItem(e.text) } : { kind: 'image', ...imageItem(e.key) });
  const negative = (modality: Modality, value: string) => (modality === 'text' ? textItem(value) : imageItem(value));

  const majority = MajorityIntent.fromResponses(responseModalities(train.length ? train : records));
  const idfCorpus = textsOf(train.length ? train : records);
  const rankers: Partial<Record<RankingMethodId, () => Ranker>> = {
    random: () => new RandomRanker(pool, 7),
    tfidf: () => new LexicalRanker('tfidf', pool, idfCorpus),
    bm25: () => new LexicalRanker('bm25', pool, idfCorpus),
    'clip-sim': () => new ClipSimRanker(pool),
    ...(heads ? { 'clip-map': () => new ClipMapRanker(pool, heads.clipMap) } : {}),
  };
  const deppRanker = heads ? await heads.ranker(pool) : null;
  if (deppRanker) rankers.depp = () => deppRanker;
  return { encoder, heads, pool, records, element, negative, majority, rankers };
}

export async function dialogBench(args: string[]): Promise<void> {
  const values = parseCommandLine(args, {
    pack: { type: 'string', default: 'mini-clip' },
    data: { type: 'string', default: join('public', 'dialogues') },
    split: { type: 'string', default: 'test' },
    negatives: { type: 'string', default: '999' },
    pool: { type: 'string' },
    methods: { type: 'string', default: RANKING_METHODS.join(',') },
    intent: { type: 'string' },
    json: { type: 'string', default: '' },
  }, DIALOG_USAGE);
  const { pack: packId, data: dataDir, split: splitName } = values;
  const negatives = integerOption(values.negatives, 'negatives', DIALOG_USAGE);
  const poolDir = values.pool ?? (dataDir === join('public', 'dialogues') ? join('public', 'pool') : '');
  const methods = listOption(values.methods, 'methods', RANKING_METHODS, DIALOG_USAGE);
  const intentOption = values.intent === undefined ? undefined : choiceOption(values.intent, 'intent', ['both', 'majority', 'head'], DIALOG_USAGE);
  const { encoder, heads, pool, records, element, negative, majority, rankers } = await loadDialogBenchData({ packId, dataDir, split: splitName, negatives, poolDir });
  const candidates = Math.min(negatives, records[0]?.negativeTexts?.length ?? 0) + 1;
  console.log(`pack ${packId} · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}) · data ${dataDir} · split ${splitName}: ${records.length} dialogues · pool ${pool.texts.length} texts, ${pool.imageKeys.length} images · ${candidates} candidates per ranked element`);
  const header = ['method', 'intent', 'Intent F1', 'img R@1', 'img R@5', 'img R@10', 'txt R@1', 'txt R@5', 'txt R@10', 'MM-Rel', 'median ms', 'p95 ms'];
  console.log(header.map((h, i) => (i < 2 ? h.padEnd(10) : h.padStart(9))).join(' '));
  const rows: Record<string, unknown>[] = [];
  // Each zero-shot ranker runs with the majority intent, and also with the trained intent head when the
  // pack has one (rows "head"), so ranking and intent can be told apart; depp is the trained pair.
  const intentChoice = intentOption ?? (heads ? 'both' : 'majority');
  const runs: { id: RankingMethodId; intent: IntentModel }[] = [];
  for (const id of methods) {
    if (id === 'depp') {
      if (heads) runs.push({ id, intent: heads.intent });
      else console.log(`${id.padEnd(10)} not available for pack ${packId}: it has no trained heads (npm run heads:train -- --pack ${packId})`);
      continue;
    }
    if (!rankers[id]) {
      console.log(`${id.padEnd(10)} not available for pack ${packId}${id === 'clip-map' ? ': it has no trained heads' : ''}`);
      continue;
    }
    if (intentChoice !== 'head') runs.push({ id, intent: majority });
    if (heads && intentChoice !== 'majority') runs.push({ id, intent: heads.intent });
  }
  for (const { id, intent } of runs) {
    let result: DialogEvalResult;
    try {
      result = await evaluateDialogs(records, pool, intent, rankers[id]!(), {
        negatives,
        element,
        negative,
        encodeTurn: async (turn) => void (await encoder.encodeTexts(turn.elements.filter((e) => e.kind === 'text').map((e) => e.text))),
      });
    } catch (error) {
      console.log(`${id.padEnd(10)} failed: ${errorMessage(error)}`);
      continue;
    }
    const pct = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1).padStart(9);
    const { text, image } = result.recall;
    console.log([id.padEnd(10), intent.id.padEnd(10), result.intentF1.toFixed(1).padStart(9), pct(image.recallAt[1]), pct(image.recallAt[5]), pct(image.recallAt[10]), pct(text.recallAt[1]), pct(text.recallAt[5]), pct(text.recallAt[10]), result.mmRelevance.toFixed(1).padStart(9), percentile(result.responseMs, 50).toFixed(2).padStart(9), percentile(result.responseMs, 95).toFixed(2).padStart(9)].join(' '));
    rows.push({ method: id, intent: intent.id, responses: result.responses, intentF1: result.intentF1, mmRelevance: result.mmRelevance, recall: result.recall, medianMs: percentile(result.responseMs, 50), p95Ms: percentile(result.responseMs, 95) });
  }
  console.log(`${records.reduce((n, r) => n + r.turns.length - 1, 0)} responses; Recall in %, a wrong intent counts as a miss; time = encoding the latest turn's text, intent and ranking over the whole pool (WASM, 1 thread)`);
  const jsonOut = values.json;
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ pack: packId, backend: encoder.backend.provider, data: dataDir, split: splitName, negatives, poolTexts: pool.texts.length, poolImages: pool.imageKeys.length, rows }, null, 2)}\n`);
  await heads?.release();
  await encoder.release();
}
