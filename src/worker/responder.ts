import { nowMs } from '../engine/clock';
import type { DialogueRecord } from '../engine/datasets/mmdialog';
import type { LexicalCounts } from '../engine/ranking/lexical';
import { EngineError } from '../engine/errors';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import type { EmbeddedPool, EmbeddingCache, PoolImageItem, PoolTextItem } from '../engine/pool/poolEmbeddings';
import type { ResponseHeads } from '../engine/response/heads';
import type { PhotoChecker } from '../engine/perception/photoCheck';
import type { LocalHeads } from '../engine/response/localHeads';
import {
  type PhotoCaptioner,
  type PoolImage,
  type ReplyChoice,
  ReplySession,
  type SessionChat,
  type SessionElement,
  type SessionPool,
  type SessionReply,
  type SessionTurn,
} from '../engine/response/session';
import type {
  AvsdRef,
  HistoryElement,
  HistoryTurn,
  ImagePayload,
  ReferenceDialogue,
  ReferenceElement,
  ReplayTurnResult,
  ReplyResult,
  ResponseMethodId,
  ResponseMethods,
  VideoReply,
  WorkerMethods,
} from '../protocol/protocol';
import { KEPT_VIDEO_CANDIDATES } from '../protocol/protocol';
import type { AvsdRankers } from '../engine/video/avsdRankers';
import type { VideoTurnAnswer } from '../engine/video/videoTurn';

type Decode = (image: ImagePayload) => Promise<RgbaImage>;

/** A pool image as the session ranks it, and where the page finds it (null: a stored dataset's image, read from IndexedDB). */
export interface PoolImageInfo extends PoolImage {
  url: string | null;
}

/**
 * The worker's side of the reply session (engine/response/session.ts): it turns the page's messages
 * into session turns (a shared photo's Blob is decoded only when the session has not seen it) and
 * the session's replies into the wire format, with texts, image URLs and alt texts.
 */
export class Responder {
  private readonly session: ReplySession;
  private images: PoolImageInfo[] = [];

  constructor(
    analyzer: PhotoAnalyzer,
    heads: ResponseHeads | null,
    private readonly headsNote: string,
    cache?: EmbeddingCache,
    /** Called when the detector failed on a photo that the image encoder alone could read; later photos go without it. */
    onDetectorFailed?: (reason: string) => void,
    /** A captioning model whose sentences replace the grounded captions, and what to call when it fails on a photo. */
    captioner?: { captioner: PhotoCaptioner; onFailed: (reason: string) => void } | null,
    /** The pack's conversational encoder, or null. */
    chat?: SessionChat | null,
    /** The check of shared photos for a public booth, or null. */
    photoCheck?: PhotoChecker | null,
  ) {
    this.session = new ReplySession(analyzer, heads, {
      cache,
      onDetectorFailed,
      captioner: captioner?.captioner ?? null,
      onCaptionerFailed: captioner?.onFailed,
      chat: chat ?? null,
      photoCheck: photoCheck ?? null,
    });
  }

  /**
   * `textCounts`: the BM25 counts shipped with the pool (null: the rankers count its texts);
   * `chat`: the encoder's keys of this pool and its stored contexts (null without an encoder);
   * `rows`: when the rows embedPool deferred are all computed, per modality, and what to call when a
   * ranker starts to wait for them (SessionPool); `train`: the pool's train split (null when it has
   * none), read when first needed; `invitations`: the inviting phrases shipped with it.
   */
  setPool(
    embedded: EmbeddedPool<PoolTextItem, PoolImageItem>,
    textCounts: LexicalCounts | null,
    images: PoolImageInfo[],
    chat: SessionPool['chat'],
    rows: Pick<SessionPool, 'textsComplete' | 'imagesComplete' | 'rowsWanted' | 'borderlineTexts' | 'textMarks'>,
    train: () => Promise<readonly DialogueRecord[] | null>,
    invitations?: () => Promise<unknown>,
  ): void {
    this.images = images;
    this.session.setPool({
      texts: embedded.texts.map((t) => t.text),
      textMatrix: embedded.textMatrix,
      images,
      imageMatrix: embedded.imageMatrix,
      ...(textCounts ? { textCounts } : {}),
      train,
      chat,
      pendingTexts: embedded.pendingTexts,
      pendingImages: embedded.pendingImages,
      ...rows,
      ...(invitations ? { invitations } : {}),
    });
    // The default method is ready before the first message; a failure shows on that reply.
    this.firstReply = this.session.prepareFirstReply().catch(() => undefined);
    void this.session.prepare().catch(() => undefined);
  }

  private firstReply: Promise<void> = Promise.resolve();

  /** Resolves when the pool's first reply has what it can have before Ready (session.prepareFirstReply); never rejects. */
  firstReplyPrepared(): Promise<void> {
    return this.firstReply;
  }

  private note: string | null = null;

  methods(): ResponseMethods {
    return { ...this.session.methods(), note: this.note ?? this.headsNote };
  }

  /** The session for in-worker training (localHeads.ts), and the note once it is trained. */
  get replySession(): ReplySession {
    return this.session;
  }

  useLocalHeads(local: LocalHeads, note: string): void {
    this.session.setLocalHeads(local);
    this.note = note;
    void this.session.prepare().catch(() => undefined);
  }

  /** One step of warming (session.warmUp); a pool must be in use. */
  async warmUp(params: WorkerMethods['warmUp']['params'], signal?: AbortSignal): Promise<WorkerMethods['warmUp']['result']> {
    const start = nowMs();
    await this.session.warmUp(params.step, params.method, signal);
    return { step: params.step, ms: nowMs() - start };
  }

  /** The photo path's sessions, made once (session.preparePhotoPath); a pool must be in use. */
  async preparePhotoPath(): Promise<WorkerMethods['preparePhotoPath']['result']> {
    const start = nowMs();
    await this.session.preparePhotoPath();
    return { ms: nowMs() - start };
  }

  /** A photo on the draft, checked and analysed before its turn is sent (session.preparePhoto); a pool must be in use. */
  async preparePhoto(imageId: string, pixels: RgbaImage): Promise<WorkerMethods['preparePhoto']['result']> {
    this.session.requirePool();
    const start = nowMs();
    await this.session.preparePhoto(imageId, pixels);
    return { ms: nowMs() - start };
  }

  /** `videoRankers` loads the AVSD rankers, for a turn about a video (params.video) whose question needs them. */
  async reply(
    params: WorkerMethods['reply']['params'],
    decode: Decode,
    backend: ReplyResult['backend'],
    signal?: AbortSignal,
    videoRankers?: VideoRankers,
  ): Promise<ReplyResult> {
    this.session.requirePool();
    const latest: HistoryTurn = {
      elements: [
        ...params.images.map((i) => ({ kind: 'image' as const, imageId: i.imageId, blob: i.blob })),
        ...params.texts.map((text) => ({ kind: 'text' as const, text })),
      ],
    };
    // A turn that shared only a video has nothing else in it, and is answered about the video.
    const video = params.video;
    if (latest.elements.length === 0 && !video?.turn.sharedNow) throw new EngineError('invalid-input', 'The message is empty. Type something or add a photo.');
    const reply = await this.session.compose(sessionTurns([...params.history, latest], decode), {
      ...choice(params.method),
      strict: params.strict === true,
      ...(video ? { video: { turn: video.turn, rankers: () => requireRankers(videoRankers, video.avsd, video.forceWasm) } } : {}),
      ...(signal ? { signal } : {}),
    });
    return this.wire(reply, backend);
  }

  /** Replays one response turn of a reference dialogue and scores it, as the dialog benchmark does. */
  async replayTurn(record: DialogueRecord, turn: number, method: ResponseMethodId | null, backend: ReplyResult['backend']): Promise<ReplayTurnResult> {
    const { reply, score } = await this.session.replayTurn(record, turn, choice(method));
    return { reply: this.wire(reply, backend), score };
  }

  /** Scores a reply against the visitor's own answer: MM-Relevance and Intent F1 (no negatives, so no Recall). */
  async scoreReference(params: WorkerMethods['scoreReference']['params'], decode: Decode): Promise<WorkerMethods['scoreReference']['result']> {
    this.session.requirePool();
    if (params.reference.length === 0) throw new EngineError('invalid-input', 'Your answer is empty. Type something or add a photo.');
    for (const e of params.reply) {
      if (e.kind === 'poolImage' && this.session.poolImageRow(e.key) === undefined)
        throw new EngineError(
          'invalid-input',
          'This reply shows an image of a pool that is no longer in use, so it cannot be compared. Choose that pool under "Reply from", or answer a newer reply.',
        );
    }
    const [reply, reference] = sessionTurns([{ elements: params.reply }, { elements: params.reference }], decode);
    return this.session.scoreReference(reply!.elements, reference!.elements);
  }

  /** A record as the page shows it; every media key must name an image of the active pool. */
  describeDialogue(record: DialogueRecord): ReferenceDialogue['turns'] {
    this.session.requireRecordImages(record);
    return record.turns.map((t) => ({
      elements: t.elements.map((e): ReferenceElement => {
        if (e.kind === 'text') return { kind: 'text', text: e.text };
        const info = this.images[this.session.poolImageRow(e.key)!]!;
        return { kind: 'poolImage', key: info.key, alt: info.alt, url: info.url };
      }),
    }));
  }

  /** The session's reply as the page receives it. */
  private wire(reply: SessionReply, backend: ReplyResult['backend']): ReplyResult {
    const pool = this.session.requirePool();
    const image = (index: number) => this.images[index]!;
    return {
      elements: reply.screened
        ? [{ kind: 'text', text: reply.screened.line, score: 0 }]
        : reply.video
          ? [{ kind: 'text', text: reply.video.text, score: reply.video.answeredFrom === 'ranker' ? reply.video.candidates[0]!.score : 0 }]
          : reply.composed.elements.map((e) =>
              e.kind === 'text'
                ? { kind: 'text', text: pool.texts[e.index]!, score: e.score }
                : { kind: 'poolImage', key: image(e.index).key, alt: image(e.index).alt, url: image(e.index).url, score: e.score },
            ),
      steps: reply.composed.steps.map((s) => ({
        probabilities: [...s.probabilities] as [number, number, number],
        intent: s.intent,
        ...(s.forcedBy ? { forcedBy: s.forcedBy } : {}),
        ...(s.preferred ? { preferred: s.preferred } : {}),
        candidates: s.candidates.map((c) =>
          s.intent === 'image'
            ? {
                kind: 'poolImage' as const,
                label: image(c.index).label,
                key: image(c.index).key,
                url: image(c.index).url,
                alt: image(c.index).alt,
                score: c.score,
              }
            : { kind: 'text' as const, label: pool.texts[c.index]!, score: c.score },
        ),
      })),
      method: reply.method,
      intentModel: reply.intentModel,
      relevance: reply.relevance,
      coherence: reply.coherence,
      captions: reply.captions,
      timings: reply.timings,
      backend,
      ...(reply.screened ? { screened: reply.screened.category } : {}),
      ...(reply.photoChecks ? { photoChecks: reply.photoChecks } : {}),
      ...(reply.video ? { video: videoReply(reply.video) } : {}),
    };
  }
}

const choice = (method: ResponseMethodId | null): ReplyChoice => ({ method });

/** Loads the AVSD rankers from models/avsd on the plan the page asked for; rejects with a sentence when they cannot be loaded. */
export type VideoRankers = (avsd: AvsdRef | null, forceWasm: boolean) => Promise<AvsdRankers>;

function requireRankers(videoRankers: VideoRankers | undefined, avsd: AvsdRef | null, forceWasm: boolean): Promise<AvsdRankers> {
  if (!videoRankers) throw new EngineError('not-loaded', 'Questions about videos cannot be answered here: this worker has no video models.');
  return videoRankers(avsd, forceWasm);
}

/** A video answer as the page keeps it: the ranker's best candidates, not all 100. */
function videoReply(answer: VideoTurnAnswer): VideoReply {
  const { text: _, ...how } = answer;
  if (how.answeredFrom !== 'ranker') return how;
  const { candidates, bankSize: __, ...rest } = how;
  return { ...rest, candidates: candidates.slice(0, KEPT_VIDEO_CANDIDATES), candidateCount: candidates.length };
}

/** The page's turns as session turns: a shared photo carries how to decode its Blob. */
function sessionTurns(history: readonly HistoryTurn[], decode: Decode): SessionTurn[] {
  return history.map((turn) => ({
    elements: turn.elements.map((e: HistoryElement): SessionElement => {
      if (e.kind !== 'image') return e;
      const blob = e.blob;
      return blob ? { kind: 'image', imageId: e.imageId, decode: () => decode({ name: e.imageId, blob }) } : { kind: 'image', imageId: e.imageId };
    }),
  }));
}
