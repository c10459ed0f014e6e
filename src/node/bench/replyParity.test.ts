import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DialogueRecord, parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { parseMediaCatalogue, parseTextCatalogue } from '../../engine/datasets/poolCatalogue';
import { completeDeferredRows, embedPool, imageContentKey } from '../../engine/pool/poolEmbeddings';
import { ResponseHeads } from '../../engine/response/heads';
import { ChatEncoder, loadChatFusion } from '../../engine/response/chatEncoder';
import { RESPONSE_METHODS, RESPONSE_METHOD_IDS, type ResponseMethodId } from '../../engine/response/methods';
import { type SessionReply, evaluateSession, sessionChat } from '../../engine/response/session';
import { evaluateDialogs, type ResponseScore } from '../../engine/response/evaluate';
import type { ReplyResult, WorkerEvent } from '../../protocol/protocol';
import { type WorkerApi, createRequestHandler } from '../../worker/requestHandler';
import { type PoolImageInfo, Responder } from '../../worker/responder';
import { loadDialogBenchData } from './benchDialog';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { readLexicalCountsFile, readPoolEmbeddingsFile } from '../data/poolFiles';
import { chatPoolOf } from './replyParts';

/**
 * The page and the benchmark must compose the same replies and score them alike. A demo test
 * dialogue is replayed, for every method a pack offers, (1) through the worker's request handler and
 * Responder, fed the pool and train split as WorkerModels feeds them, and (2) through the dialog
 * benchmark's own loader and run (loadDialogBenchData, evaluateSession). Each method starts from a
 * fresh worker and a fresh benchmark session, as a fresh page and a benchmark run do.
 */
const DIALOGUE_ID = '3702'; // 4 turns; the first reference turn has a text and an image
const POOL_DIR = join('public', 'pool');

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;
const readDialogues = (split: string) =>
  parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', split, 'conversations.json'))), {
    file: `dialogues/${split}/conversations.json`,
  });

/** The worker's path: what WorkerModels does for the demo pool, minus fetch and IndexedDB. */
async function workerPath(packId: string) {
  // As the worker: the detector beside the pack, so the pool file made through the page's photo path matches.
  const { analyzer, encoder, detector, source, files } = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const heads = await ResponseHeads.load(source, new Set(files), encoder.fingerprint);
  const chatEncoder = await ChatEncoder.load(source, new Set(files), encoder.tokenizer);
  const chat = chatEncoder ? sessionChat(chatEncoder, await loadChatFusion(source, new Set(files))) : null;
  const images = parseMediaCatalogue(readJson(join(POOL_DIR, 'media.json')), { file: 'pool/media.json', strict: true });
  const texts = parseTextCatalogue(readJson(join(POOL_DIR, 'texts.json')), { file: 'pool/texts.json', strict: true });
  // As WorkerModels.usePool: text rows the file lacks are deferred, and computed while the replies go on.
  const embedded = await embedPool({
    encoder: analyzer,
    texts,
    images,
    imageKeys: images.map((m) => imageContentKey(m)),
    loadImage: () => Promise.reject(new Error('every image row comes from the pool file')),
    precomputed: readPoolEmbeddingsFile(POOL_DIR, packId),
    deferTexts: true,
  });
  const textsComplete = completeDeferredRows(embedded, analyzer, { textBatchSize: 256, yieldControl: () => new Promise((resolve) => setTimeout(resolve, 0)) });
  const imageInfo: PoolImageInfo[] = images.map((m) => ({
    key: m.key,
    alt: m.alt,
    label: m.label ?? m.alt,
    url: `/pool/${m.file}`,
    kind: m.kind,
    keywords: m.keywords,
  }));
  // As WorkerModels.chatPool: the precomputed keys and stored contexts of the demo pool.
  const chatParts = chat
    ? await chatPoolOf(
        chat,
        POOL_DIR,
        packId,
        texts.map((t) => t.text),
        imageInfo.map((i) => i.label),
      )
    : null;
  const records = readDialogues('test');
  const train = readDialogues('train');
  // As WorkerModels.loadPool: the pool's shipped BM25 counts.
  const textCounts = readLexicalCountsFile(
    POOL_DIR,
    texts.map((t) => t.text),
  );

  /** A fresh worker (a fresh page): its request handler over a Responder, with messages cloned both ways as postMessage does. */
  const replay = async (method: ResponseMethodId, turns: number) => {
    const responder = new Responder(analyzer, heads, '', undefined, undefined, null, chat);
    responder.setPool(embedded, textCounts, imageInfo, chatParts, { textsComplete }, async () => train);
    const notUsed = async (): Promise<never> => {
      throw new Error('not used by this test');
    };
    const engine: WorkerApi = {
      loadPack: notUsed,
      usePool: notUsed,
      stageDatasetFiles: notUsed,
      importDataset: notUsed,
      resumeDataset: notUsed,
      checkImage: notUsed,
      reply: notUsed,
      listReferenceDialogues: notUsed,
      loadReferenceDialogue: notUsed,
      scoreReference: notUsed,
      trainHeads: notUsed,
      encodeTexts: notUsed,
      encodeImages: notUsed,
      clevrLoad: notUsed,
      clevrRender: notUsed,
      clevrAnswer: notUsed,
      hearVideo: notUsed,
      analyzeVideo: notUsed,
      warmUp: notUsed,
      preparePhotoPath: notUsed,
      preparePhoto: notUsed,
      replayTurn: async (params) =>
        responder.replayTurn(
          records.find((r) => r.id === params.dialogueId)!,
          params.turn,
          params.method,
          encoder.backend,
        ),
    };
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(engine, (event) => events.push(structuredClone(event)));
    for (let turn = 1; turn <= turns; turn++)
      await handle(structuredClone({ type: 'replayTurn', id: turn, params: { split: 'test', dialogueId: DIALOGUE_ID, turn, method } }));
    return events.map((e) => {
      if (e.type !== 'result' || e.method !== 'replayTurn') throw new Error(`The worker answered ${JSON.stringify(e)}`);
      return e.result;
    });
  };
  const methods = () => {
    const responder = new Responder(analyzer, heads, '', undefined, undefined, null, chat);
    responder.setPool(embedded, textCounts, imageInfo, chatParts, { textsComplete }, async () => train);
    return responder.methods().available;
  };
  // Released once the background rows are done: they run on the same sessions.
  return {
    heads,
    replay,
    methods,
    rowsComplete: textsComplete,
    release: async () => textsComplete.then(() => Promise.all([heads?.release(), chatEncoder?.release(), releasePhotoAnalyzer({ encoder, detector })])),
  };
}

/**
 * Where two values differ, numbers by more than 1e-6 of their size: a text whose CLIP row the page had not computed yet
 * is encoded on its own, and onnxruntime's sums then differ from the same text's in a batch by a few
 * units in the eighth decimal. Everything else (texts, keys, order, intents) must be equal.
 */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b)) || (Number.isNaN(a) && Number.isNaN(b)) ? [] : [`${path}: ${a} vs ${b}`];
  if (Array.isArray(a) && Array.isArray(b))
    return a.length !== b.length ? [`${path}: ${a.length} items vs ${b.length}`] : a.flatMap((x, i) => differences(x, b[i], `${path}[${i}]`));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
}

/** A reply as both paths can give it: elements and each step's candidates by text or image key, with scores. */
function fromWorker(reply: ReplyResult) {
  const label = (e: { kind: 'text'; text: string } | { kind: 'poolImage'; key: string }) => (e.kind === 'text' ? e.text : e.key);
  return {
    method: reply.method,
    intentModel: reply.intentModel,
    elements: reply.elements.map((e) => ({ label: label(e), score: e.score })),
    steps: reply.steps.map((s) => ({
      probabilities: s.probabilities,
      intent: s.intent,
      candidates: s.candidates.map((c) => ({ label: c.key ?? c.label, score: c.score })),
    })),
    relevance: reply.relevance,
  };
}

function fromSession(reply: SessionReply, pool: { texts: readonly string[]; images: readonly { key: string }[] }) {
  const label = (kind: 'text' | 'image', index: number) => (kind === 'text' ? pool.texts[index]! : pool.images[index]!.key);
  return {
    method: reply.method,
    intentModel: reply.intentModel,
    elements: reply.composed.elements.map((e) => ({ label: label(e.kind, e.index), score: e.score })),
    steps: reply.composed.steps.map((s) => ({
      probabilities: [...s.probabilities],
      intent: s.intent,
      candidates: s.candidates.map((c) => ({ label: label(s.intent === 'image' ? 'image' : 'text', c.index), score: c.score })),
    })),
    relevance: reply.relevance,
  };
}

describe.each([
  // Trained heads: every method, with the trained intent head, as the page runs this pack.
  { packId: 'mini-clip', intent: 'head' as const },
  // No heads: the zero-shot methods with the majority intent of the train split.
  { packId: 'test-tiny-clip', intent: 'majority' as const },
])('the page and the benchmark reply alike ($packId)', ({ packId, intent }) => {
  const loaded = Promise.all([workerPath(packId), loadDialogBenchData({ packId, dataDir: join('public', 'dialogues'), split: 'test', poolDir: POOL_DIR })]);
  afterAll(async () => {
    const [worker, bench] = await loaded;
    await worker.release();
    await bench.release();
  });

  it(`replays test dialogue ${DIALOGUE_ID} with every method and gets the same replies and scores`, async () => {
    const [worker, bench] = await loaded;
    const record: DialogueRecord = bench.records.find((r) => r.id === DIALOGUE_ID)!;
    const methods = worker.methods();
    // mini-clip has every part (heads, the conversational encoder, the stored contexts); the tiny pack none of them.
    expect(methods).toEqual(packId === 'mini-clip' ? [...RESPONSE_METHOD_IDS] : ['random', 'tfidf', 'bm25', 'clip-sim']);
    for (const method of methods) {
      // clip-sim answers from the pool's CLIP rows there so far (methods.ts clipRows 'live'); the benchmark has them all, so the two are compared once the page has them too.
      if (RESPONSE_METHODS[method].needs.clipRows.text === 'live') await worker.rowsComplete;
      const page = await worker.replay(method, record.turns.length - 1);
      const replayed: { reply: SessionReply; score: ResponseScore }[] = [];
      const result = await evaluateSession(bench.newSession(), [record], { method, intent }, { onTurn: (_, __, r) => replayed.push(r) });
      expect(
        differences(
          page.map((p) => fromWorker(p.reply)),
          replayed.map((r) => fromSession(r.reply, bench.pool)),
        ),
        method,
      ).toEqual([]);
      expect(
        page.map((p) => p.reply.intentModel),
        method,
      ).toEqual(page.map(() => intent));
      expect(
        differences(
          page.map((p) => p.score),
          replayed.map((r) => r.score),
        ),
        method,
      ).toEqual([]);
      // And the figures the benchmark prints for this dialogue are the page's turns pooled.
      const pooled = await evaluateDialogs([record], async (_, turn) => ({ score: page[turn - 1]!.score, ms: 0, coherence: page[turn - 1]!.reply.coherence }));
      expect(differences({ ...pooled, responseMs: [] }, { ...result, responseMs: [] }), method).toEqual([]);
    }
  }, 300_000);
});
