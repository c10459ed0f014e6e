import type { PoolMediaItem } from '../engine/datasets/poolCatalogue';
import type { DialogueRecord } from '../engine/datasets/mmdialog';
import { parseMediaCatalogue } from '../engine/datasets/poolCatalogue';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { LoadSteps } from '../engine/loadSteps';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { type EmbeddedPool, type PoolImageItem, type PoolTextItem, embedPool, imageContentKey } from '../engine/pool/poolEmbeddings';
import { rowsByUse } from '../engine/pool/rowsByUse';
import type { LexicalCounts } from '../engine/ranking/lexical';
import type { ResponseHeads } from '../engine/response/heads';
import type { TextMarks } from '../engine/response/textMarks';
import { embeddingCache } from '../persistence/datasetDb';
import type { PoolLoaded, PoolRef } from '../protocol/protocol';
import { decodeImage } from './decodeImage';
import { fetchBinaryFile, fetchBlob, fetchJson, fetchPrecomputed, readLexicalCounts, readPoolTexts, readTextMarks, useShippedDeppKeys } from './demoPoolFiles';
import type { PoolImageInfo } from './responder';

type DemoRef = Extract<PoolRef, { kind: 'demo' }>;

/** The demo pool's catalogues and what its load derives from them before the encoder is needed. */
export interface DemoCatalogues {
  images: PoolMediaItem[];
  textItems: PoolTextItem[];
  /** Rows booth strictness leaves out (texts.json's "borderline"). */
  borderlineTexts: Set<number>;
  /** Rows by their use in the train split, most used first; null without a train split. */
  byUse: { texts: number[]; images: number[] } | null;
}

/** The catalogues, the rows booth strictness leaves out, and the rows' order of use in the train split (`train`: its dialogues). */
export async function readDemoCatalogues(ref: DemoRef, train: () => Promise<readonly DialogueRecord[]>): Promise<DemoCatalogues> {
  const [media, textItems] = await Promise.all([fetchJson(`${ref.baseUrl}media.json`), readPoolTexts(ref.baseUrl)]);
  const images = parseMediaCatalogue(media, { file: 'pool/media.json', strict: true });
  const borderlineTexts = new Set(textItems.flatMap((t, row) => (t.borderline ? [row] : [])));
  const dialogues = await train().catch(() => null);
  const byUse = dialogues
    ? rowsByUse(
        dialogues,
        textItems.map((t) => t.text),
        images.map((m) => m.key),
      )
    : null;
  return { images, textItems, borderlineTexts, byUse };
}

/** What the demo pool's load gives the pack's responder. */
export interface DemoPoolLoaded {
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
  loaded: Omit<PoolLoaded, 'embeddings'>;
  imageInfo: PoolImageInfo[];
  loadImage: (item: PoolImageItem) => Promise<RgbaImage>;
  textCounts: LexicalCounts | null;
  textMarks: TextMarks | null;
  borderlineTexts: ReadonlySet<number>;
}

/**
 * The demo pool with the pack in use: its rows (the precomputed file, this browser's cache, the rest
 * deferred), its shipped BM25 counts and text marks, and its shipped DE++ keys, each checked against
 * the pool's texts and refused with a warning when they do not match (the session then works them out).
 */
export async function loadDemoPool(
  ref: DemoRef,
  catalogues: Promise<DemoCatalogues>,
  {
    packId,
    analyzer,
    heads,
    progress,
    cancelled,
    steps,
  }: {
    packId: string;
    analyzer: PhotoAnalyzer;
    heads: ResponseHeads | null;
    progress: (phase: string, done: number, total: number) => void;
    cancelled: () => boolean;
    steps: LoadSteps;
  },
): Promise<DemoPoolLoaded> {
  const lexical = fetchBinaryFile(`${ref.baseUrl}lexical`);
  const marksFile = fetchBinaryFile(`${ref.baseUrl}text-marks`);
  const { images, textItems, byUse, borderlineTexts } = await catalogues;
  steps.mark('pool catalogues, train dialogues and rows by use');
  const precomputed = await fetchPrecomputed(`${ref.baseUrl}embeddings/${packId}`);
  steps.mark('precomputed rows');
  const readImage = async (item: PoolMediaItem) => (await decodeImage({ name: item.file, blob: await fetchBlob(`${ref.baseUrl}${item.file}`) })).pixels;
  const mediaByKey = new Map(images.map((m) => [m.key, m]));
  const loadImage = (item: PoolImageItem) => readImage(mediaByKey.get(item.key)!);
  // Through the analyzer: rows it computes get the detector's grounding when the image tower takes it, and cached rows are keyed by its fingerprint.
  const embedded = await embedPool({
    encoder: analyzer,
    texts: textItems,
    images,
    imageKeys: images.map((m) => imageContentKey(m)),
    loadImage: readImage,
    precomputed,
    cache: embeddingCache,
    onProgress: ({ phase, done, total }) => progress(phase, done, total),
    cancelled,
    // The demo's file holds no text rows (the install stays small): the hybrid needs none. A
    // downloaded pack has no rows at all: embedding the whole pool takes about 25 minutes on WASM
    // (bench -- pool-rate), so it answers from the most used rows first (POOL_STARTER_MS).
    deferTexts: { order: byUse?.texts ?? [] },
    deferImages: { order: byUse?.images ?? [] },
  });
  steps.mark('pool rows');
  // Checked against the texts' content keys the rows just computed.
  const textCounts = readLexicalCounts(
    `${ref.baseUrl}lexical`,
    await lexical,
    textItems.map((t) => t.text),
    embedded.textKeys,
  );
  steps.mark('BM25 counts');
  const textMarks = readTextMarks(
    `${ref.baseUrl}text-marks`,
    await marksFile,
    textItems.map((t) => t.text),
    embedded.textKeys,
  );
  steps.mark('text keys and marks');
  if (heads) await useShippedDeppKeys(heads, `${ref.baseUrl}embeddings/${packId}.depp`, embedded, analyzer.fingerprint);
  steps.mark('DE++ keys');
  const loaded = { poolId: 'demo', name: 'Demo pool', texts: textItems.length, images: images.length };
  const imageInfo = images.map((m) => ({
    key: m.key,
    alt: m.alt,
    label: m.label ?? m.alt,
    url: `${ref.baseUrl}${m.file}`,
    kind: m.kind,
    keywords: m.keywords,
  }));
  return { embedded, loaded, imageInfo, loadImage, textCounts, textMarks, borderlineTexts };
}
