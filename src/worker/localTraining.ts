import type { ClipEncoder } from '../engine/clip/clipEncoder';
import type { DialogueRecord } from '../engine/datasets/mmdialog';
import { EngineError, errorMessage } from '../engine/errors';
import { hashText } from '../engine/pool/contentHash';
import type { EmbeddedPool, PoolImageItem, PoolTextItem } from '../engine/pool/poolEmbeddings';
import { readLocalHeads, storeLocalHeads } from '../engine/response/localHeads';
import { localHeadsCache } from '../persistence/localHeadsDb';
import type { LocalHeadsStatus, PoolRef, WorkerAnnouncement } from '../protocol/protocol';
import type { RequestContext } from './requestHandler';
import type { Responder } from './responder';

/** What training needs of the pack and pool in use, asked for when needed and never kept. */
export interface TrainingPack {
  /** Whether these are still the encoder, responder and pool in use: another pack or pool stops the training. */
  stillInUse(encoder: ClipEncoder, responder: Responder, embedded: EmbeddedPool<PoolTextItem, PoolImageItem>): boolean;
  dialogues(ref: PoolRef, split: string): Promise<DialogueRecord[]>;
  /** The pack and pool in use (an error that says to wait while they load). */
  inUse(): {
    packId: string;
    encoder: ClipEncoder;
    responder: Responder | null;
    embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
    source: PoolRef | null;
    hasPythonHeads: boolean;
  };
}

/** What one training is for: the pack, its responder and the pool in use (training stops when any of them changes). */
export interface TrainingTarget {
  packId: string;
  encoder: ClipEncoder;
  responder: Responder;
  ref: PoolRef;
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
}

/**
 * clip-map and the intent head trained in this browser for a pack without Python heads: the owner of
 * the training under way (one at a time) and of how it is stopped.
 */
export class LocalTraining {
  private training: Promise<void> | null = null;
  private abort: AbortController | null = null;
  private announce: (announcement: WorkerAnnouncement) => void = () => undefined;

  constructor(private readonly pack: TrainingPack) {}

  useAnnouncer(announce: (announcement: WorkerAnnouncement) => void): void {
    this.announce = announce;
  }

  /**
   * clip-map and the intent head for a pack without Python heads: read from this browser's cache, or
   * trained here on the pool's train split (early-stopped on its valid split) in slices, so replies
   * go on meanwhile (zero-shot). Loading another pack or pool cancels it.
   */
  private async train({ packId, encoder, responder, ref, embedded }: TrainingTarget, trainIfMissing: boolean, signal: AbortSignal): Promise<void> {
    const current = () => this.pack.stillInUse(encoder, responder, embedded);
    const announce = (status: LocalHeadsStatus) => {
      if (current()) this.announce({ type: 'localHeads', packId, status });
    };
    try {
      const train = await this.pack.dialogues(ref, 'train');
      const poolKey = hashText(JSON.stringify([embedded.texts.length, embedded.images.length, train.length, train.map((r) => r.id).join(',')]));
      const cacheKey = `${encoder.fingerprint}:${ref.kind === 'demo' ? 'demo' : ref.datasetId}:${poolKey}`;
      const cached = readLocalHeads(await localHeadsCache.get(cacheKey).catch(() => undefined), embedded.textMatrix.dim);
      let local = cached;
      if (!local && !trainIfMissing) return;
      if (!local) {
        const valid = await this.pack.dialogues(ref, 'valid').catch(() => {
          throw new EngineError(
            'dataset-invalid',
            'The pool has no valid split to choose the training epochs on, so clip-map and the intent head are not trained: replies stay zero-shot.',
          );
        });
        announce({ state: 'training', phase: 'Starting', done: 0, total: 1 });
        local = await responder.replySession.learnLocalHeads(valid, {
          yieldControl: async () => {
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (!current()) throw new EngineError('not-loaded', 'Another pack or pool was chosen: training stopped.');
            if (signal.aborted) throw new EngineError('cancelled', 'Training was stopped, as asked.');
          },
          onProgress: (phase, done, total) => announce({ state: 'training', phase, done, total }),
        });
        await localHeadsCache
          .put(cacheKey, storeLocalHeads(local))
          .catch((error: unknown) => console.warn(`The trained heads could not be cached: ${errorMessage(error)}`));
      }
      if (!current()) return;
      const f = local.figures;
      responder.useLocalHeads(
        local,
        `No Python heads for this pack: clip-map and the intent head were trained in this browser${cached ? ' (read from its cache)' : ` in ${(f.totalMs / 1000).toFixed(0)} s`} on the train split (valid: intent accuracy ${(100 * f.intent.validAccuracy).toFixed(1)}%, majority ${(100 * f.intent.majorityAccuracy).toFixed(1)}%; clip-map text R@1 ${(100 * f.clipMap.text.validR1).toFixed(1)}%, image ${(100 * f.clipMap.image.validR1).toFixed(1)}% among 100). DE++ and the hybrid need the Python heads.`,
      );
      announce({ state: 'trained', figures: f, fromCache: cached !== null, methods: responder.methods() });
    } catch (error) {
      if (!current()) return;
      if (signal.aborted) {
        announce({
          state: 'unavailable',
          reason: 'Training clip-map and the intent head was stopped, as asked; replies stay zero-shot. Train them again from Settings whenever you like.',
        });
        return;
      }
      console.warn('clip-map and the intent head were not trained:', errorMessage(error));
      announce({
        state: 'unavailable',
        reason: `clip-map and the intent head could not be trained in this browser (${errorMessage(error).replace(/\.$/, '')}); replies stay zero-shot.`,
      });
    }
  }

  /** Starts reading or training the heads for the pool just put in use; `abort` stops it. */
  start(target: TrainingTarget, trainIfMissing: boolean): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const training = this.train(target, trainIfMissing, abort.signal).finally(() => {
      if (this.training === training) {
        this.training = null;
        this.abort = null;
      }
    });
    this.training = training;
    return training;
  }

  /**
   * Settings asked to train clip-map and the intent head for the pack and pool in use: starts the
   * training, or joins the one under way, and answers when it ends. Cancelling the call stops it.
   */
  async trainHeads(_params: Record<string, never>, context: RequestContext): Promise<{ started: boolean }> {
    const { packId, encoder, responder, embedded, source, hasPythonHeads } = this.pack.inUse();
    if (!responder || hasPythonHeads || !source) return { started: false };
    const started = this.training === null;
    const training = this.training ?? this.start({ packId, encoder, responder, ref: source, embedded }, true);
    const abort = this.abort;
    const stop = () => abort?.abort();
    if (context.signal.aborted) stop();
    context.signal.addEventListener('abort', stop, { once: true });
    try {
      await training;
    } finally {
      context.signal.removeEventListener('abort', stop);
    }
    context.signal.throwIfAborted();
    return { started };
  }
}
