import { nowMs } from '../engine/clock';
import { errorMessage } from '../engine/errors';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { type EmbeddedPool, type PoolImageItem, type PoolTextItem, completeDeferredRows } from '../engine/pool/poolEmbeddings';
import { embeddingCache } from '../persistence/datasetDb';
import type { WorkerAnnouncement } from '../protocol/protocol';

/** What background work in the worker is given: the page's announcements, the heartbeat's busy mark, and the request handler's idle gate. */
export interface BackgroundWork {
  announce: (announcement: WorkerAnnouncement) => void;
  /** Marks the worker busy until the returned function is called. */
  markBusy: () => () => void;
  /** Resolves once no request waits. */
  whenIdle: () => Promise<void>;
}

/**
 * The pool's deferred CLIP rows, computed most used first in batches that hand the worker back to
 * the chat, cached in this browser, announced as they go; stops when the pool or pack changes.
 * `session` says when each modality's rows are all there (what clip-map and DE++ wait for), and
 * never rejects: a failure is announced and those methods keep waiting (the others are unaffected).
 * Batches wait for the worker to be idle until `rowsWanted` is called: from then on a request waits
 * for them, so waiting for requests to finish would wait for ever. `eagerFor(ms)` runs batches back
 * to back for that long (before Ready, when nothing else can run).
 */
export function completePoolRows(
  poolId: string,
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>,
  encoder: PhotoAnalyzer,
  loadImage: ((item: PoolImageItem) => Promise<RgbaImage>) | undefined,
  stale: () => boolean,
  worker: BackgroundWork,
): {
  session: { textsComplete: Promise<void>; imagesComplete: Promise<void>; rowsWanted: () => void };
  eagerFor: (ms: number, onTick: (elapsedMs: number) => void) => Promise<void>;
} {
  const total = { texts: embedded.pendingTexts.size, images: embedded.pendingImages.size };
  let rowsWanted = () => undefined as void;
  const demand = new Promise<void>((resolve) => (rowsWanted = resolve));
  let textsDone = () => undefined as void;
  let imagesDone = () => undefined as void;
  const textsComplete = new Promise<void>((resolve) => (textsDone = resolve));
  const imagesComplete = new Promise<void>((resolve) => (imagesDone = resolve));
  const settle = () => {
    if (embedded.pendingTexts.size === 0) textsDone();
    if (embedded.pendingImages.size === 0) imagesDone();
  };
  settle();
  const session = { textsComplete, imagesComplete, rowsWanted: () => rowsWanted() };
  if (total.texts + total.images === 0) return { session, eagerFor: async () => undefined };
  const announce = () =>
    worker.announce({
      type: 'poolRows',
      status: {
        poolId,
        texts: { done: total.texts - embedded.pendingTexts.size, total: total.texts },
        images: { done: total.images - embedded.pendingImages.size, total: total.images },
      },
    });
  announce();
  let eagerUntil = 0;
  let wake = () => undefined as void;
  // Busy while a batch runs, not while it waits for the visitor's requests to be answered.
  let idleAgain = worker.markBusy();
  const all = completeDeferredRows(embedded, encoder, {
    cache: embeddingCache,
    textBatchSize: 64,
    ...(loadImage ? { loadImage } : {}),
    // Between batches, a visitor's turn goes first: the next batch starts only when no request waits,
    // at once when a request waits for the rows themselves, and back to back while eager.
    yieldControl: async () => {
      idleAgain();
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (nowMs() >= eagerUntil) await Promise.race([worker.whenIdle(), demand, new Promise<void>((resolve) => (wake = resolve))]);
      idleAgain = worker.markBusy();
    },
    onProgress: () => {
      announce();
      settle();
    },
    cancelled: stale,
  })
    .finally(() => idleAgain())
    .catch((error: unknown) => {
      if (!stale()) console.warn(`The pool's embeddings could not be computed: ${errorMessage(error)}`);
      return new Promise<void>(() => undefined);
    });
  const eagerFor = async (ms: number, onTick: (elapsedMs: number) => void) => {
    const start = nowMs();
    eagerUntil = start + ms;
    wake();
    let timer: ReturnType<typeof setInterval> | undefined;
    const ticking = new Promise<void>((resolve) => {
      timer = setInterval(() => {
        onTick(Math.min(ms, nowMs() - start));
        if (nowMs() >= eagerUntil) resolve();
      }, 1000);
    });
    await Promise.race([all, ticking]);
    clearInterval(timer);
  };
  return { session, eagerFor };
}
