import { existsSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type DialogueRecord, parseConversationsBytes } from '../../engine/datasets/mmdialog';
import type { PoolMediaItem, PoolText } from '../../engine/datasets/poolCatalogue';
import { errorMessage } from '../../engine/errors';
import { embedPool, imageContentKey } from '../../engine/pool/poolEmbeddings';
import { hashBytes } from '../../engine/pool/contentHash';
import { percentile } from '../../engine/stats';
import type { DialogEvalResult } from '../../engine/response/evaluate';
import { ResponseHeads } from '../../engine/response/heads';
import { ChatEncoder, loadChatFusion } from '../../engine/response/chatEncoder';
import { embedChatKeys } from '../../engine/pool/chatPool';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { RESPONSE_METHODS, RESPONSE_METHOD_IDS } from '../../engine/response/methods';
import { type ReplyChoice, ReplySession, type SessionPool, evaluateSession, sessionChat } from '../../engine/response/session';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { choiceOption, integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from '../data/poolFiles';
import { ProgressLine } from '../tools/progressLine';
import { chatPoolOf } from './replyParts';

export const DIALOG_USAGE =
  'npm run bench -- dialog [--pack mini-clip] [--data public/dialogues] [--split test] [--methods a,b] [--intent both|majority|head] [--negatives 999] [--pool DIR] [--json OUT]';

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

const textsOf = (records: readonly DialogueRecord[]) =>
  records.flatMap((r) => r.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []))));

export interface DialogBenchOptions {
  packId: string;
  /** A folder with {train,valid,test}/conversations.json in MMDialog format. */
  dataDir: string;
  split: string;
  /** The candidate pool's folder (media.json, texts.json, embeddings/); '' for every text and image of the split. */
  poolDir: string;
  /** Texts appended to the pool and never offered as replies (SessionPool.heldOutTexts), so a benchmark can see where the page ranks them. */
  heldOutTexts?: readonly string[];
}

/** What a dialog benchmark run needs, loaded once: the pack, the embedded pool with its train split, and the split's records. */
export interface DialogBenchData {
  encoder: ClipEncoder;
  heads: ResponseHeads | null;
  pool: SessionPool;
  records: DialogueRecord[];
  /** A fresh reply session over the pool, as the page's worker holds one: each benchmark run gets its own. */
  newSession(): ReplySession;
  /** Releases the pack's, the heads' and the detector's sessions. */
  release(): Promise<void>;
}

/** Loads a pack, embeds the pool and reads a split as the benchmark runs them; the e2e tests use it to check the page's figures. */
export async function loadDialogBenchData({ packId, dataDir, split: splitName, poolDir, heldOutTexts = [] }: DialogBenchOptions): Promise<DialogBenchData> {
  // The page's photo path (with the detector where the image tower takes grounding), so pool images embed as on the page.
  const { analyzer, encoder, detector, source, files: packFiles } = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const heads = await ResponseHeads.load(source, new Set(packFiles), encoder.fingerprint);
  // The conversational encoder with its learned settings, as the worker loads it.
  const chatEncoder = await ChatEncoder.load(source, new Set(packFiles), encoder.tokenizer);
  const chat = chatEncoder ? sessionChat(chatEncoder, await loadChatFusion(source, new Set(packFiles))) : null;
  // The pool: its texts and images, and their unit embeddings.
  let texts: PoolText[];
  let media: (PoolMediaItem & { path: string })[];
  const datasetImages = poolDir ? new Map<string, string>() : findImages(dataDir);
  if (heldOutTexts.length > 0 && !poolDir) throw new Error('Held-out texts are appended to a pool folder: give the pool too.');
  if (poolDir) {
    const catalogue = loadPoolCatalogue(poolDir);
    texts = [...catalogue.texts, ...heldOutTexts.map((text, i) => ({ id: `held-out-${i}`, text }))];
    media = catalogue.media.map((m) => ({ ...m, path: join(poolDir, m.file) }));
  } else {
    const splitRecords = readSplit(dataDir, splitName, (k) => datasetImages.has(k));
    const all = [...new Set([...textsOf(splitRecords), ...splitRecords.flatMap((r) => r.negativeTexts ?? [])])];
    texts = all.map((text, i) => ({ id: String(i), text }));
    media = [...datasetImages].map(([key, path]) => ({
      key,
      file: relative(dataDir, path),
      path,
      kind: 'image',
      alt: key,
      keywords: [],
      source: 'dataset',
      licence: 'unknown',
    }));
  }
  const mediaKeys = new Set(media.map((m) => m.key));
  const records = readSplit(dataDir, splitName, (k) => mediaKeys.has(k));
  // The train split gives the majority intent and document frequencies, as on the page; without one, the session's defaults.
  const train = existsSync(join(dataDir, 'train', 'conversations.json')) ? readSplit(dataDir, 'train', (k) => mediaKeys.has(k)) : null;
  const pre = poolDir ? readPoolEmbeddingsFile(poolDir, packId) : null;
  const progress = new ProgressLine();
  const embedded = await embedPool({
    encoder: analyzer,
    texts,
    images: media,
    imageKeys: media.map((m) => (m.sha256 ? imageContentKey(m) : imageContentKey(m, hashBytes(new Uint8Array(readFileSync(m.path)))))),
    loadImage: (m) => decodeAnyImageFile(m.path),
    precomputed: pre,
    onProgress: ({ phase, done, total }) => progress.update(`embedding the pool: ${phase} ${done}/${total}`, done, total, phase),
  });
  progress.end();
  const images = media.map((m) => ({ key: m.key, label: m.label ?? m.alt, alt: m.alt, kind: m.kind, keywords: m.keywords }));
  // The encoder's keys of the pool and, for the demo pool, its stored contexts (chat:keys), as the worker reads them.
  const chatParts = chat
    ? poolDir
      ? await chatPoolOf(
          chat,
          poolDir,
          packId,
          texts.map((t) => t.text),
          images.map((i) => i.label),
          texts.length - heldOutTexts.length,
        )
      : await embedChatKeys({ encoder: chat.encoder, texts: texts.map((t) => t.text), imageLabels: images.map((i) => i.label) }).then((k) => ({
          textKeys: k.textKeys,
          imageKeys: k.imageKeys,
          contexts: null,
        }))
    : null;
  const pool: SessionPool = {
    texts: texts.map((t) => t.text),
    textMatrix: embedded.textMatrix,
    images,
    imageMatrix: embedded.imageMatrix,
    train: async () => train,
    chat: chatParts,
    heldOutTexts: new Set(heldOutTexts.map((_, i) => texts.length - heldOutTexts.length + i)),
  };
  const newSession = () => {
    const session = new ReplySession(analyzer, heads, { chat });
    session.setPool(pool);
    return session;
  };
  const release = async () => {
    await Promise.all([heads?.release(), chatEncoder?.release()]);
    await releasePhotoAnalyzer({ encoder, detector });
  };
  return { encoder, heads, pool, records, newSession, release };
}

export async function dialogBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string', default: 'mini-clip' },
      data: { type: 'string', default: join('public', 'dialogues') },
      split: { type: 'string', default: 'test' },
      negatives: { type: 'string', default: '999' },
      pool: { type: 'string' },
      methods: { type: 'string', default: RESPONSE_METHOD_IDS.join(',') },
      intent: { type: 'string' },
      json: { type: 'string', default: '' },
    },
    DIALOG_USAGE,
  );
  const { pack: packId, data: dataDir, split: splitName } = values;
  const negatives = integerOption(values.negatives, 'negatives', DIALOG_USAGE);
  // The demo dialogues, however the path is spelled (./public/dialogues, an absolute path, a link), rank against the demo pool.
  const poolDir = values.pool ?? (sameFolder(dataDir, join('public', 'dialogues')) ? join('public', 'pool') : '');
  const methods = listOption(values.methods, 'methods', RESPONSE_METHOD_IDS, DIALOG_USAGE);
  const intentOption = values.intent === undefined ? undefined : choiceOption(values.intent, 'intent', ['both', 'majority', 'head'], DIALOG_USAGE);
  const data = await loadDialogBenchData({ packId, dataDir, split: splitName, poolDir });
  const { encoder, heads, pool, records } = data;
  const candidates = Math.min(negatives, records[0]?.negativeTexts?.length ?? 0) + 1;
  console.log(
    `pack ${packId} · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}) · data ${dataDir} · split ${splitName}: ${records.length} dialogues · pool ${pool.texts.length} texts, ${pool.images.length} images · ${candidates} candidates per ranked element`,
  );
  const header = [
    'method',
    'intent',
    'Intent F1',
    'img R@1',
    'img R@5',
    'img R@10',
    'txt R@1',
    'txt R@5',
    'txt R@10',
    'MM-Rel',
    'coherence',
    'median ms',
    'p95 ms',
  ];
  console.log(header.map((h, i) => (i < 2 ? h.padEnd(10) : h.padStart(9))).join(' '));
  const rows: Record<string, unknown>[] = [];
  // Each zero-shot ranker runs with the majority intent, and also with the trained intent head when the
  // pack has one (rows "head"), so ranking and intent can be told apart; depp is the trained pair.
  const intentChoice = intentOption ?? (heads ? 'both' : 'majority');
  const runs: ReplyChoice[] = [];
  const offered = data.newSession().methods().available;
  for (const method of methods) {
    if (!offered.includes(method)) {
      const needs = RESPONSE_METHODS[method].needs;
      console.log(
        `${method.padEnd(10)} not available for pack ${packId}: it needs ${[needs.heads && `trained heads (npm run heads:train -- --pack ${packId})`, needs.chat && `the conversational encoder${needs.chat === 'contexts' ? " and the pool's stored contexts" : ''} (npm run chat:train, chat:keys)`].filter(Boolean).join(' and ')}`,
      );
      continue;
    }
    if (method === 'depp') {
      runs.push({ method, intent: 'head' });
      continue;
    }
    if (intentChoice !== 'head') runs.push({ method, intent: 'majority' });
    if (heads && intentChoice !== 'majority') runs.push({ method, intent: 'head' });
  }
  for (const run of runs) {
    const method = run.method!;
    let result: DialogEvalResult;
    let note: string | undefined;
    try {
      // A session per run, as a fresh page: the random baseline's stream starts at its seed each time.
      const session = data.newSession();
      result = await evaluateSession(session, records, run, { negatives });
      note = await session.methodNote(run);
    } catch (error) {
      console.log(`${method.padEnd(10)} failed: ${errorMessage(error)}`);
      continue;
    }
    const pct = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1).padStart(9);
    const { text, image } = result.recall;
    console.log(
      [
        method.padEnd(10),
        run.intent!.padEnd(10),
        result.intentF1.toFixed(1).padStart(9),
        pct(image.recallAt[1]),
        pct(image.recallAt[5]),
        pct(image.recallAt[10]),
        pct(text.recallAt[1]),
        pct(text.recallAt[5]),
        pct(text.recallAt[10]),
        result.mmRelevance.toFixed(1).padStart(9),
        `${(100 * result.coherence.share).toFixed(1)} (${result.coherence.inviting})`.padStart(9),
        percentile(result.responseMs, 50).toFixed(2).padStart(9),
        percentile(result.responseMs, 95).toFixed(2).padStart(9),
      ].join(' '),
    );
    if (note) console.log(`           ${method}: ${note}`);
    rows.push({
      method,
      intent: run.intent,
      responses: result.responses,
      intentF1: result.intentF1,
      mmRelevance: result.mmRelevance,
      coherence: result.coherence,
      recall: result.recall,
      medianMs: percentile(result.responseMs, 50),
      p95Ms: percentile(result.responseMs, 95),
      ...(note ? { note } : {}),
    });
  }
  console.log(
    `${records.reduce((n, r) => n + r.turns.length - 1, 0)} responses; Recall in %, a wrong intent counts as a miss; coherence: % of the replies whose text invites an image (phrases learned from the train split) that show one, with how many invite in brackets; time = the reply session's own, as on the page: embedding what it has not seen, intent and ranking over the whole pool (WASM, 1 thread)`,
  );
  const jsonOut = values.json;
  if (jsonOut)
    writeFileSync(
      jsonOut,
      `${JSON.stringify({ pack: packId, backend: encoder.backend.provider, data: dataDir, split: splitName, negatives, poolTexts: pool.texts.length, poolImages: pool.images.length, rows }, null, 2)}\n`,
    );
  await data.release();
}

/** Whether two paths name the same existing folder. */
function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
