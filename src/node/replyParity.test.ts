import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DialogueRecord, parseConversationsBytes } from '../engine/datasets/mmdialog';
import { parseMediaCatalogue, parseTextCatalogue } from '../engine/datasets/poolCatalogue';
import { embedPool, imageContentKey } from '../engine/pool/poolEmbeddings';
import { ResponseHeads } from '../engine/response/heads';
import { RESPONSE_METHODS, RESPONSE_METHOD_IDS, type ResponseMethodId } from '../engine/response/methods';
import { type SessionReply, evaluateSession } from '../engine/response/session';
import { evaluateDialogs, type ResponseScore } from '../engine/response/evaluate';
import type { ReplyResult, WorkerEvent } from '../worker/protocol';
import { type WorkerEngine, createRequestHandler } from '../worker/requestHandler';
import { type PoolImageInfo, Responder } from '../worker/responder';
import { loadDialogBenchData } from './benchDialog';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { readPoolEmbeddingsFile } from './poolFiles';

/**
 * The page and the benchmark must compose the same replies and score them alike. A demo test
 * dialogue is replayed, for every method a pack offers, (1) through the worker's request handler and
 * Responder, fed the pool and train split as BrowserEngine feeds them, and (2) through the dialog
 * benchmark's own loader and run (loadDialogBenchData, evaluateSession). Each method starts from a
 * fresh worker and a fresh benchmark session, as a fresh page and a benchmark run do.
 */
const DIALOGUE_ID = '3702'; // 4 turns; the first reference turn has a text and an image
const POOL_DIR = join('public', 'pool');

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;
const readDialogues = (split: string) => parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', split, 'conversations.json'))), { file: `dialogues/${split}/conversations.json` });

/** The worker's path: what BrowserEngine does for the demo pool, minus fetch and IndexedDB. */
async function workerPath(packId: string) {
  // As the worker: the detector beside the pack, so the pool file made through the page's photo path matches.
  const { analyzer, encoder, detector, source, files } = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const heads = await ResponseHeads.load(source, new Set(files), encoder.fingerprint);
  const images = parseMediaCatalogue(readJson(join(POOL_DIR, 'media.json')), { file: 'pool/media.json', strict: true });
  const texts = parseTextCatalogue(readJson(join(POOL_DIR, 'texts.json')), { file: 'pool/texts.json', strict: true });
  const embedded = await embedPool({
    encoder: analyzer,
    texts,
    images,
    imageKeys: images.map((m) => imageContentKey(m)),
    loadImage: () => Promise.reject(new Error('every row comes from the pool file')),
    precomputed: readPoolEmbeddingsFile(POOL_DIR, packId),
  });
  const imageInfo: PoolImageInfo[] = images.map((m) => ({ key: m.key, alt: m.alt, label: m.label ?? m.alt, url: `/pool/${m.file}`, kind: m.kind, keywords: m.keywords }));
  const records = readDialogues('test');
  const train = readDialogues('train');

  /** A fresh worker (a fresh page): its request handler over a Responder, with messages cloned both ways as postMessage does. */
  const replay = async (method: ResponseMethodId, turns: number) => {
    const responder = new Responder(analyzer, heads, '');
    responder.setPool(embedded, imageInfo, async () => train);
    const notUsed = async (): Promise<never> => {
      throw new Error('not used by this test');
    };
    const engine: WorkerEngine = {
      loadPack: notUsed, usePool: notUsed, stageDatasetFiles: notUsed, importDataset: notUsed, resumeDataset: notUsed, checkImage: notUsed, reply: notUsed,
      listReferenceDialogues: notUsed, loadReferenceDialogue: notUsed, scoreReference: notUsed, trainHeads: notUsed, encodeTexts: notUsed, encodeImages: notUsed,
      clevrLoad: notUsed, clevrRender: notUsed, clevrAnswer: notUsed, analyzeVideo: notUsed, answerVideo: notUsed,
      replayTurn: async (params) => responder.replayTurn(records.find((r) => r.id === params.dialogueId)!, params.turn, params.method, encoder.backend),
    };
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(engine, (event) => events.push(structuredClone(event)));
    for (let turn = 1; turn <= turns; turn++) await handle(structuredClone({ type: 'replayTurn', id: turn, params: { split: 'test', dialogueId: DIALOGUE_ID, turn, method } }));
    return events.map((e) => {
      if (e.type !== 'result' || e.method !== 'replayTurn') throw new Error(`The worker answered ${JSON.stringify(e)}`);
      return e.result;
    });
  };
  return { heads, replay, release: async () => Promise.all([heads?.release(), releasePhotoAnalyzer({ encoder, detector })]) };
}

/** A reply as both paths can give it: elements and each step's candidates by text or image key, with scores. */
function fromWorker(reply: ReplyResult) {
  const label = (e: { kind: 'text'; text: string } | { kind: 'poolImage'; key: string }) => (e.kind === 'text' ? e.text : e.key);
  return {
    method: reply.method,
    intentModel: reply.intentModel,
    elements: reply.elements.map((e) => ({ label: label(e), score: e.score })),
    steps: reply.steps.map((s) => ({ probabilities: s.probabilities, intent: s.intent, candidates: s.candidates.map((c) => ({ label: c.key ?? c.label, score: c.score })) })),
    relevance: reply.relevance,
  };
}

function fromSession(reply: SessionReply, pool: { texts: readonly string[]; images: readonly { key: string }[] }) {
  const label = (kind: 'text' | 'image', index: number) => (kind === 'text' ? pool.texts[index]! : pool.images[index]!.key);
  return {
    method: reply.method,
    intentModel: reply.intentModel,
    elements: reply.composed.elements.map((e) => ({ label: label(e.kind, e.index), score: e.score })),
    steps: reply.composed.steps.map((s) => ({ probabilities: [...s.probabilities], intent: s.intent, candidates: s.candidates.map((c) => ({ label: label(s.intent === 'image' ? 'image' : 'text', c.index), score: c.score })) })),
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
    const methods = RESPONSE_METHOD_IDS.filter((m) => !RESPONSE_METHODS[m].needs.heads || worker.heads);
    expect(methods).toHaveLength(packId === 'mini-clip' ? 7 : 4);
    for (const method of methods) {
      const page = await worker.replay(method, record.turns.length - 1);
      const replayed: { reply: SessionReply; score: ResponseScore }[] = [];
      const result = await evaluateSession(bench.newSession(), [record], { method, intent }, { onTurn: (_, __, r) => replayed.push(r) });
      expect(page.map((p) => fromWorker(p.reply)), method).toEqual(replayed.map((r) => fromSession(r.reply, bench.pool)));
      expect(page.map((p) => p.reply.intentModel), method).toEqual(page.map(() => intent));
      expect(page.map((p) => p.score), method).toEqual(replayed.map((r) => r.score));
      // And the figures the benchmark prints for this dialogue are the page's turns pooled.
      const pooled = await evaluateDialogs([record], async (_, turn) => ({ score: page[turn - 1]!.score, ms: 0, coherence: page[turn - 1]!.reply.coherence }));
      expect({ ...pooled, responseMs: [] }, method).toEqual({ ...result, responseMs: [] });
    }
  }, 300_000);
});
