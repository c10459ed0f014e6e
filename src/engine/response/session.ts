import { nowMs } from '../clock';
import type { DialogueRecord, DialogueTurn } from '../datasets/mmdialog';
import { EngineError, errorMessage } from '../errors';
import type { RgbaImage } from '../image/rgbaImage';
import { type AnalyzedPhoto, type PhotoTimings, PhotoAnalyzer, steeringObject } from '../perception/photoAnalyzer';
import { type CaptionedPhoto, type PhotoCaption, groundedPhotoCaption, imageEncoderCaption, modelPhotoCaption } from '../perception/photoCaptions';
import { type EmbeddingCache, embedPool } from '../pool/poolEmbeddings';
import type { Int8Matrix } from '../retrieval/int8Matrix';
import { type EmbeddingMatrix, type ScoredIndex, dot, l2Normalize, topKOfScores } from '../retrieval/vectors';
import { type LexicalCounts, LexicalIndex, corpusStats, tokenize } from '../ranking/lexical';
import { textKey } from '../pool/textKey';
import { captionBank } from './captioner';
import type { ChatEncoder, ChatFusion } from './chatEncoder';
import { type ChatPool, type ContextMatchSettings, type StoredContexts, DEFAULT_CONTEXT_MATCH, KeyEchoGuard } from '../ranking/chatRanking';
import { fuseScores } from '../ranking/fusion';
import { PICTURE_INTRO_LINES, asksForPhotos, contradictionGuard, echoGuard, namesObject, namesTopic, pictureRequest, requestTopics } from './replyPolicy';
import { type TextMarks, computeTextMarks, rowsOfKey } from './textMarks';
import { NOT_UNDERSTOOD, aboutTheDemoEntry, aboutTheDemoLines } from './aboutTheDemo';
import { ImageInvitations, invitationsFromFile, replyCoherence, trainResponses } from './coherence';
import { type ComposeOptions, type ComposedResponse, type IntentModel, MajorityIntent, composeResponse, poolElement } from './compose';
import { type DialogEvalResult, type ResponseScore, evaluateDialogs, scoreResponse } from './evaluate';
import type { TargetRank } from '../metrics/dialogMetrics';
import type { ResponseHeads } from './heads';
import type { LocalHeads } from './localHeads';
import { type LocalHeadsOptions, learnLocalHeads } from './learnLocalHeads';
import { RESPONSE_METHODS, RESPONSE_METHOD_IDS, type ResponseMethodId, methodAvailable } from './methods';
import { PHOTO_PATH_STEPS, type WarmUpStep } from './warmUpSteps';
import type { ClipMapParams } from '../ranking/clipMapRanker';
import type { HybridWeights } from '../ranking/hybridRanker';
import { type PoolScoringRanker, type Ranker, contextVector } from '../ranking/ranker';
import { createRanker } from '../ranking/rankerFactory';
import type { CandidatePool, ContextElement, ContextTurn, Modality } from './types';
import { screenReplyLine, screenVisitorMessage, type VisitorScreenCategory } from '../safety/visitorScreen';
import { screenCategoryOf } from '../safety/screenLists';
import type { PhotoCheckVerdict, PhotoChecker } from '../perception/photoCheck';
import type { AvsdRankers } from '../video/avsdRankers';
import { type TurnVideo, type VideoTurnAnswer, answerVideoTurn, answeredAsUnfit } from '../video/videoTurn';

/** Negatives each reference element is ranked among, as MMDialog does (1 of 1,000). */
const REFERENCE_NEGATIVES = 999;

/** The text of the hidden warm-up turn. */
const WARM_UP_TEXT = 'look at this';

/** A small photo drawn on the spot (a gradient, 96 x 64), so warming reads no file. */
function warmUpPhoto(): RgbaImage {
  const width = 96;
  const height = 64;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x + y) / (width + height);
      data.set([Math.round(59 + 186 * t), Math.round(130 + 28 * t), Math.round(246 - 235 * t), 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

/** The intent without train dialogues to count: one text, then stop. */
const ONE_TEXT_THEN_STOP = new MajorityIntent([
  [1, 0, 0],
  [0, 0, 1],
]);

/** An element of the conversation: a text, a photo the person shared (decoded only if not seen before), or an image of the pool. */
export type SessionElement =
  { kind: 'text'; text: string } | { kind: 'image'; imageId: string; decode?: () => Promise<RgbaImage> } | { kind: 'poolImage'; key: string };

export interface SessionTurn {
  elements: readonly SessionElement[];
}

export interface PoolImage {
  key: string;
  /** What the image shows: its text for the text-only methods, and a source of the caption bank. */
  label: string;
  alt: string;
  kind: string;
  keywords: readonly string[];
}

/** The candidate pool replies come from, and the train dialogues that go with it. */
export interface SessionPool {
  texts: readonly string[];
  textMatrix: EmbeddingMatrix;
  images: readonly PoolImage[];
  imageMatrix: EmbeddingMatrix;
  /** The BM25 counts of `texts`, made ahead of time (CandidatePool.textCounts). */
  textCounts?: LexicalCounts;
  /**
   * The pool's train split, read when it is first needed. The majority intent and the phrases that
   * invite an image come from it and never from a split that is evaluated. Null when there is none:
   * then the majority intent is one text and stop, and no phrase invites an image.
   */
  train: () => Promise<readonly DialogueRecord[] | null>;
  /** The inviting phrases shipped with the train split (coherence.ts InvitationsFile), or null; used only when learned from this very split. */
  invitations?: () => Promise<unknown>;
  /** The conversational encoder's keys of the pool's texts and images (by label) and its stored contexts; absent without the encoder. */
  chat?: { textKeys: Int8Matrix; imageKeys: Int8Matrix; contexts: StoredContexts | null } | null;
  /**
   * Rows of textMatrix and imageMatrix still being computed (embedPool's deferTexts and deferImages;
   * they read as zero until then), and when each modality's are all there. A 'live' method (clip-sim)
   * answers from the rows there so far and never offers a pending one; a 'complete' one (methods.ts
   * clipRows) waits for them. A text of the conversation whose row is pending is encoded on its own.
   */
  pendingTexts?: ReadonlySet<number>;
  pendingImages?: ReadonlySet<number>;
  textsComplete?: Promise<void>;
  imagesComplete?: Promise<void>;
  /**
   * Text rows never offered as a reply: texts a benchmark appended to the pool to see where the page
   * would rank them (`bench -- pool-select`'s true responses).
   */
  heldOutTexts?: ReadonlySet<number>;
  /**
   * The rows booth strictness leaves out (texts.json's "borderline", marked by pool:human); absent: the
   * session screens the pool's texts itself the first time a strict reply is asked for.
   */
  borderlineTexts?: ReadonlySet<number>;
  /** The texts' keys and photo-rule marks, read from the pool's shipped file (textMarks.ts); worked out here when absent. */
  textMarks?: TextMarks;
  /**
   * Called when a ranker or training starts to wait for the pending rows. Whoever computes them in the
   * background stops deferring to requests then: the request waiting is one of them.
   */
  rowsWanted?: () => void;
}

/** The pack's conversational encoder and what goes with it. */
export interface SessionChat {
  encoder: ChatEncoder;
  /** The hybrid's weights (the pack's chat/fusion.json), null without them. */
  hybridWeights: HybridWeights | null;
  contextMatch: ContextMatchSettings;
  /** The key-space echo guard's bar (chat/fusion.json), null without one: then only the words are compared. */
  echoKeyBar: number | null;
}

export interface ReplyChoice {
  /** The method; null, or one this pack does not offer, means the preferred one (as the page's "Best available"). */
  method?: ResponseMethodId | null;
  /** The intent model: the trained head when the pack has one (as the page), or the train split's majority. */
  intent?: IntentModel['id'];
  /**
   * The conversation's rules (replyPlan: nothing said twice, photos asked for at most once, a picture
   * when one is asked for, a text naming what a shared photo shows): on, as on the page, unless false.
   * Off only to measure what they add (bench -- replies).
   */
  rules?: boolean;
  /** Booth strictness (on in kiosk mode): borderline texts are left out too (mild insults, drinking, religion, party politics). */
  strict?: boolean;
  /**
   * The video the latest turn is about (shared with it, or the last one shared before it), with how to
   * load the AVSD rankers: the turn is answered about it (videoTurn.ts), or with the photo check's
   * written line when the check called the video unfit.
   */
  video?: { turn: TurnVideo; rankers: () => Promise<AvsdRankers> };
  /** Stops the reply at its next step (the photo check, the analysis, the ranking): the page cancelled it. */
  signal?: AbortSignal;
}

export interface SessionReply {
  method: ResponseMethodId;
  intentModel: IntentModel['id'];
  composed: ComposedResponse;
  /** The reply's elements, as the context of the next turn would hold them. */
  elements: ContextElement[];
  /** Captions of the photos shared in this history and not seen before. */
  captions: PhotoCaption[];
  /** Whether the reply's text invites an image (phrases learned from the train split), and whether it shows one. */
  coherence: { invites: boolean; showsImage: boolean };
  /** Cosine between the latest turn and the reply's first element: context relevance, not MM-Relevance. */
  relevance: number;
  timings: { decodeMs: number; detectMs: number; encodeMs: number; captionMs: number; intentMs: number; rankMs: number; totalMs: number };
  /** Set when the visitor's message was screened (visitorScreen.ts): the reply is this line written for the demo, with nothing from the pool. */
  screened?: { category: VisitorScreenCategory; line: string };
  /** What the photo check said of each photo shared in the turn replied to. */
  photoChecks?: { imageId: string; verdict: PhotoCheckVerdict }[];
  /** Set when the turn was about a video: the reply is this answer, with nothing from the pool. */
  video?: VideoTurnAnswer;
}

export interface SessionOptions {
  /** Embeddings of the caption bank, kept between visits (the browser's IndexedDB cache). */
  cache?: EmbeddingCache;
  /** Called when the detector failed on a photo that the image encoder alone could read; later photos go without it. */
  onDetectorFailed?: (reason: string) => void;
  /** A captioning model (engine/caption/imageCaptioner.ts): its sentence replaces the grounded caption of new photos. */
  captioner?: PhotoCaptioner | null;
  /** The check of shared photos for a public booth (perception/photoCheck.ts); null or absent: photos go unchecked. */
  photoCheck?: PhotoChecker | null;
  /** Called when the captioner failed on a photo; it and every later photo keep their grounded captions. */
  onCaptionerFailed?: (reason: string) => void;
  /** The pack's conversational encoder; null or absent without one. */
  chat?: SessionChat | null;
}

/**
 * The encoder with the settings the pack learned for it (chat/fusion.json): the hybrid ranks the whole
 * pool, so it takes the text weights learned as the page ranks (fusion.page). Without the file, context match
 * takes its default settings and the hybrid counts its parts alike (its note says so).
 */
export function sessionChat(encoder: ChatEncoder, fusion: ChatFusion | null): SessionChat {
  return {
    encoder,
    contextMatch: fusion?.contextMatch ?? DEFAULT_CONTEXT_MATCH,
    echoKeyBar: fusion?.echoKeyBar.bar ?? null,
    hybridWeights: fusion
      ? {
          text: fusion.page.weights,
          image: fusion.image.weights,
          bm25Turns: fusion.page.bm25Turns ?? Infinity,
          questionAnswer: fusion.questionAnswer,
          learnedOn: `${fusion.learnedOn.page} (texts); ${fusion.learnedOn.image} (images)`,
        }
      : null,
  };
}

/** How deep in a text step's ranking a text that names the visitor's photo's object is looked for: the ten the Inspector shows. */
const PHOTO_OBJECT_DEPTH = 10;
/** How deep in the text ranking a line that goes with a requested picture is looked for. */
const REQUEST_TEXT_DEPTH = 200;

/** What the session needs of a captioner: one sentence for a photo. */
export interface PhotoCaptioner {
  caption(image: RgbaImage): Promise<{ text: string }>;
}

/**
 * One reply session: what the page's worker and every benchmark that composes replies run, so a
 * benchmark measures what the page does. The conversation becomes the context U (texts and photos
 * embedded once and kept, so a long chat is not re-encoded each turn); the response engine composes
 * the reply from the pool with the chosen method (MMDialog sec. 7.2), and a replayed reference turn
 * is scored as the benchmark scores it. New photos go through the PhotoAnalyzer: the object detector
 * (when there is one), the grounded caption, the image tower.
 *
 * The random baseline draws from one stream per session, so replies depend on what came before:
 * two fresh sessions given the same turns in the same order give the same replies and scores.
 */
const MODALITIES: readonly Modality[] = ['text', 'image'];

/** Two sets of rows left out, per modality, as one. */
function withRows(
  a: Partial<Record<Modality, ReadonlySet<number>>> | undefined,
  b: Partial<Record<Modality, ReadonlySet<number>>>,
): Partial<Record<Modality, ReadonlySet<number>>> {
  const merged: Partial<Record<Modality, ReadonlySet<number>>> = { ...a };
  for (const kind of MODALITIES) {
    const extra = b[kind];
    if (extra) merged[kind] = merged[kind] ? new Set([...merged[kind], ...extra]) : extra;
  }
  return merged;
}

/** Photos attached and prepared but not (yet) sent are kept at most this many: one taken off the draft is never asked for. */
const MAX_PREPARED_PHOTOS = 8;

/** What preparePhoto worked out for one photo before its turn was sent. */
interface PreparedPhoto {
  /** The photo check's answer; null when there is no check or it failed (the turn checks again, and reports a failure). */
  unfit: boolean | null;
  /** The photo analysed alone, and by which analyzer; null for an unfit photo or a failed analysis (the turn does it again). */
  analyzed: { photo: AnalyzedPhoto; analyzer: PhotoAnalyzer } | null;
}

/** The history with each photo's decode memoised, so the photo check and the reply decode it once. */
function withDecodedOnce(history: readonly SessionTurn[]): SessionTurn[] {
  return history.map((turn) => ({
    elements: turn.elements.map((e) => {
      if (e.kind !== 'image' || !e.decode) return e;
      const decode = e.decode;
      let decoded: Promise<RgbaImage> | null = null;
      return { ...e, decode: () => (decoded ??= decode()) };
    }),
  }));
}

/** The texts of a turn, in order. */
function turnTexts(turn: SessionTurn | undefined): string[] {
  return (turn?.elements ?? []).flatMap((e) => (e.kind === 'text' ? [e.text] : []));
}

/**
 * The history with every earlier visitor turn that screening flags emptied, and the reply that
 * followed it (the demo's own line). The turns stay, so whose turn each is does not change. The
 * latest turn, the one replied to, is the visitor's, as every other one back from it.
 */
function withoutScreenedTurns(history: readonly SessionTurn[], flaggedPhoto: (turn: SessionTurn) => boolean = () => false): readonly SessionTurn[] {
  const last = history.length - 1;
  const emptied = new Set<number>();
  for (let i = last - 2; i >= 0; i -= 2) {
    if (screenVisitorMessage(turnTexts(history[i])).category || flaggedPhoto(history[i]!)) emptied.add(i).add(i + 1);
  }
  return emptied.size === 0 ? history : history.map((turn, i) => (emptied.has(i) ? { elements: [] } : turn));
}

export class ReplySession {
  private readonly elements = new Map<string, ContextElement>();
  private readonly rankers = new Map<ResponseMethodId, Promise<Ranker>>();
  private pool: CandidatePool | null = null;
  private images: readonly PoolImage[] = [];
  private imageRow = new Map<string, number>();
  private textRow = new Map<string, number>();
  private train: Promise<readonly DialogueRecord[] | null> | null = null;
  private readTrain: () => Promise<readonly DialogueRecord[] | null> = async () => null;
  private readShippedInvitations: () => Promise<unknown> = async () => null;
  private majority: Promise<IntentModel> | null = null;
  private invitations: Promise<ImageInvitations> | null = null;
  private captions: Promise<{ bank: string[]; matrix: EmbeddingMatrix }> | null = null;
  /** clip-map and the intent head trained in the worker, for a pack without Python heads (localHeads.ts). */
  private local: LocalHeads | null = null;
  private chatPool: ChatPool | null = null;
  /** The echo guard in key space, for a pool with the encoder's keys and a pack with its bar. */
  private keyEchoGuard: KeyEchoGuard | null = null;
  /** The pool's texts by key (to leave out what the conversation already said in any re-typing), and which ask for photos or speak of one sent. */
  private marks: TextMarks = computeTextMarks([]);
  /** The pool rows of the demo's lines about itself (aboutTheDemo.ts), by text; absent from a pool without them. */
  private aboutTheDemoRows = new Map<string, number>();
  /** The pool rows of the lines written to introduce a requested picture. */
  private pictureIntroRows: number[] = [];
  /** Every word of the pool's texts (lexical.ts tokenize), gathered when a line is first checked. */
  private poolWords: Set<string> | null = null;
  /** BM25 over the pool images' labels and keywords, for picture requests. */
  private imageWords: LexicalIndex | null = null;
  private pending: Record<Modality, ReadonlySet<number>> = { text: new Set(), image: new Set() };
  private rowsComplete: Record<Modality, Promise<void>> = { text: Promise.resolve(), image: Promise.resolve() };
  /** Whether each of rowsComplete has resolved (warming never waits for them). */
  private rowsDone: Record<Modality, boolean> = { text: true, image: true };
  private rowsWanted: () => void = () => undefined;
  private heldOutTexts: ReadonlySet<number> = new Set();
  private borderlineTexts: ReadonlySet<number> | null = null;
  /** Photos checked and analysed while the visitor was still composing (preparePhoto), by image id, oldest first. */
  private readonly preparedPhotos = new Map<string, Promise<PreparedPhoto>>();

  constructor(
    private analyzer: PhotoAnalyzer,
    private readonly heads: ResponseHeads | null,
    private readonly options: SessionOptions = {},
  ) {}

  /** Makes a pool the one replies come from; caches that belong to the old pool are dropped. */
  setPool(pool: SessionPool): void {
    this.pool = {
      texts: pool.texts,
      textMatrix: pool.textMatrix,
      imageKeys: pool.images.map((i) => i.key),
      imageCaptions: pool.images.map((i) => i.label),
      imageMatrix: pool.imageMatrix,
      ...(pool.textCounts ? { textCounts: pool.textCounts } : {}),
    };
    this.images = pool.images;
    this.imageRow = new Map(pool.images.map((i, r) => [i.key, r]));
    this.textRow = new Map(pool.texts.map((t, r) => [t, r]));
    const chat = this.options.chat;
    this.chatPool =
      chat && pool.chat
        ? { encoder: chat.encoder, textKeys: pool.chat.textKeys, imageKeys: pool.chat.imageKeys, contexts: pool.chat.contexts, contextMatch: chat.contextMatch }
        : null;
    this.keyEchoGuard = this.chatPool && chat?.echoKeyBar ? new KeyEchoGuard(this.chatPool, chat.echoKeyBar) : null;
    this.marks = pool.textMarks ?? computeTextMarks(pool.texts);
    this.pending = { text: pool.pendingTexts ?? new Set(), image: pool.pendingImages ?? new Set() };
    const rowsComplete = { text: pool.textsComplete ?? Promise.resolve(), image: pool.imagesComplete ?? Promise.resolve() };
    this.rowsComplete = rowsComplete;
    // Rows with nothing pending are done now, not a tick later when their promise's callback runs: a
    // ranker that waits for them would otherwise be left out of prepareFirstReply (and Ready).
    this.rowsDone = { text: !pool.textsComplete || pool.pendingTexts?.size === 0, image: !pool.imagesComplete || pool.pendingImages?.size === 0 };
    this.rowsWanted = pool.rowsWanted ?? (() => undefined);
    this.heldOutTexts = pool.heldOutTexts ?? new Set();
    this.borderlineTexts = pool.borderlineTexts ?? null;
    for (const kind of MODALITIES) {
      void rowsComplete[kind].then(() => {
        if (this.rowsComplete === rowsComplete) this.rowsDone[kind] = true;
      });
    }
    // The demo's own lines, found by text key: the pool keeps one text of a key ("here you go!!" for "Here you go:").
    const rowOfLine = (line: string) => rowsOfKey(this.marks, pool.texts, textKey(line))[0];
    this.aboutTheDemoRows = new Map(aboutTheDemoLines().flatMap((line) => (rowOfLine(line) === undefined ? [] : [[line, rowOfLine(line)!] as const])));
    this.pictureIntroRows = PICTURE_INTRO_LINES.flatMap((line) => (rowOfLine(line) === undefined ? [] : [rowOfLine(line)!]));
    this.imageWords = null;
    this.poolWords = null;
    this.rankers.clear();
    this.captions = null;
    this.train = null;
    this.readTrain = pool.train;
    this.readShippedInvitations = pool.invitations ?? (async () => null);
    this.majority = null;
    this.invitations = null;
  }

  /**
   * Builds the chosen method's ranker and intent model now rather than on the first reply: DE++
   * passes every pool row through its candidate model once (about 1.8 s for the demo pool with
   * mini-clip). A reply that comes sooner waits on the same promise.
   */
  async prepare(choice: ReplyChoice = {}): Promise<void> {
    await Promise.all([this.ranker(this.resolveMethod(choice.method)), this.intentModel(choice.intent), this.imageInvitations()]);
  }

  /**
   * What the first reply needs and can have before Ready (the page waits for it): the intent model, the
   * phrases that invite an image, and the method's ranker unless it waits for the CLIP text rows still
   * being computed. Built after Ready instead, they held up the visitor's first turn by seconds
   * (the demo pool's BM25 index alone).
   */
  async prepareFirstReply(choice: ReplyChoice = {}): Promise<void> {
    const method = this.resolveMethod(choice.method);
    await Promise.all([this.intentModel(choice.intent), this.imageInvitations(), this.rankerWaits(method) ? undefined : this.ranker(method)]);
  }

  /** What the chosen method's ranker says of itself (the hybrid: its learned weights), once built; undefined when nothing. */
  async methodNote(choice: ReplyChoice = {}): Promise<string | undefined> {
    return (await this.ranker(this.resolveMethod(choice.method))).note;
  }

  /** The methods this pack offers, and the one used when none is chosen. */
  methods(): { available: ResponseMethodId[]; preferred: ResponseMethodId } {
    const parts = { heads: this.heads !== null, clipMap: this.clipMap() !== null, chat: this.chatPool !== null, contexts: this.chatPool?.contexts != null };
    const available = RESPONSE_METHOD_IDS.filter((id) => methodAvailable(id, parts));
    // The hybrid is the default where the pack has its parts: its texts come from the conversational
    // encoder trained on real conversations, fused with BM25 and context match, and its images from
    // DE++ (docs/response-selection.md). Without the encoder, the trained DE++ system; a map trained
    // in the worker keeps epoch 0 (clip-sim) unless training beat it on valid, so it is never worse than clip-sim there.
    const preferred = available.includes('hybrid') ? 'hybrid' : this.chatPool ? 'chat-encoder' : this.heads ? 'depp' : this.local ? 'clip-map' : 'clip-sim';
    return { available, preferred };
  }

  private clipMap(): ClipMapParams | null {
    return this.heads?.clipMap ?? this.local?.clipMap ?? null;
  }

  /** Switches to clip-map and the intent head trained in the worker; the next reply uses them. */
  setLocalHeads(local: LocalHeads | null): void {
    this.local = local;
    this.rankers.clear();
  }

  /**
   * Trains clip-map and the intent head on this pool's train split, early-stopped on `valid` (never
   * test): what a pack without Python heads can have (localHeads.ts). Texts not in the pool are
   * encoded in batches first. Hands control back between slices through `yieldControl`.
   */
  async learnLocalHeads(valid: readonly DialogueRecord[], options: LocalHeadsOptions): Promise<LocalHeads> {
    const pool = this.requirePool();
    await this.untilRowsComplete(MODALITIES); // the maps and the head read every CLIP row
    const toSession = (elements: DialogueTurn['elements']) =>
      elements.map((e): SessionElement => (e.kind === 'text' ? { kind: 'text', text: e.text } : { kind: 'poolImage', key: e.key }));
    return learnLocalHeads(
      {
        pool,
        train: (await this.trainRecords()) ?? [],
        majority: await this.intentModel('majority'),
        knowsText: (text) => this.textRow.has(text) || this.elements.has(`t:${text}`),
        embedTexts: (texts) => this.embedTexts(texts),
        turnElements: (elements) => this.contextTurn(pool, { elements: toSession(elements) }),
        textEmbedding: (text) => this.textElement(pool, text).embedding,
        imageEmbedding: (key) => (this.imageRow.has(key) ? this.poolImage(pool, key).embedding : null),
      },
      valid,
      options,
    );
  }

  /** The pool in use (for describing replies); throws while there is none. */
  requirePool(): CandidatePool {
    if (!this.pool) throw new EngineError('not-loaded', 'The candidate pool is still loading. Wait for "Ready" and send again.');
    return this.pool;
  }

  /** Row of a pool image, or undefined when the image is not in the pool in use. */
  poolImageRow(key: string): number | undefined {
    return this.imageRow.get(key);
  }

  /**
   * One step of warming (WARM_UP_STEPS): what a visit's first turns would otherwise pay for, done while
   * nobody waits. Each is small, so a visitor's turn that arrives meanwhile waits for one step at most.
   * `method`: the method the page uses (null: the preferred one). `signal` (a visitor's turn came)
   * stops a step between its model calls; what it built so far is kept, and the step runs again later.
   */
  async warmUp(step: WarmUpStep, method: ResponseMethodId | null = null, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const pool = this.requirePool();
    const photo = warmUpPhoto();
    // A method that derives keys from every CLIP row waits for them (minutes after Ready): a step never does.
    const rankerWaits = this.rankerWaits(this.resolveMethod(method));
    switch (step) {
      case 'reply-models':
        await this.prepareFirstReply({ method });
        return;
      case 'text-turn':
        if (rankerWaits) return;
        // The conversational encoder, the text tower, the intent head and the text ranking, each run once.
        await this.compose([{ elements: [{ kind: 'text', text: WARM_UP_TEXT }] }], { method });
        return;
      case 'image-ranking': {
        if (rankerWaits) return;
        // The image step of a reply: the pool's DE++ image keys and the other image parts, built once.
        const ranker = await this.ranker(this.resolveMethod(method));
        signal?.throwIfAborted();
        await this.embedTexts([WARM_UP_TEXT]);
        signal?.throwIfAborted();
        await ranker.topK({ turns: [{ speaker: 0, elements: [this.textElement(pool, WARM_UP_TEXT)] }], partial: [] }, 'image', 1, new Set());
        return;
      }
      case 'detector':
        await this.analyzer.detector?.detect(photo);
        return;
      case 'image-tower':
        await this.analyzer.encoder.encodeImages([photo], [{ caption: null, score: 0 }]);
        return;
      case 'photo-check':
        await this.options.photoCheck?.check(photo);
        return;
      case 'captioner':
        await this.options.captioner?.caption(photo);
        return;
      case 'caption-bank':
        // Read only for photos the detector did not describe: without a detector, every photo.
        if (!this.analyzer.detector) await this.captionBank();
        return;
      default: {
        const unknown: never = step;
        throw new EngineError('invalid-input', `Unknown warm-up step ${String(unknown)}.`);
      }
    }
  }

  /**
   * Makes the photo path's sessions and runs each once (PHOTO_PATH_STEPS), at most once per session:
   * the page asks when a visitor opens the photo picker, drags a file over the page or attaches one, so
   * that the photo's turn does not pay for making them (about a second on WASM; issue 38). A failure
   * lets the next call try again; the photo's own turn then reports what fails.
   */
  preparePhotoPath(): Promise<void> {
    this.photoPathPrepared ??= (async () => {
      for (const step of PHOTO_PATH_STEPS) await this.warmUp(step);
    })().catch((error: unknown) => {
      this.photoPathPrepared = null;
      throw error;
    });
    return this.photoPathPrepared;
  }

  private photoPathPrepared: Promise<void> | null = null;

  /**
   * Checks and analyses (detector, grounded caption, image tower) a photo the visitor has attached but
   * not sent yet, so that its turn finds that work done: a visitor takes a moment to type or press
   * Send, and the photo's reply then takes only the ranking. Nothing fails here: a step that fails is
   * done again by the turn, which reports it as it always did. The same photo is prepared once.
   */
  preparePhoto(imageId: string, pixels: RgbaImage): Promise<void> {
    const known = this.preparedPhotos.get(imageId);
    if (known || this.elements.has(`u:${imageId}`)) return known?.then(() => undefined) ?? Promise.resolve();
    const prepared = (async (): Promise<PreparedPhoto> => {
      const checker = this.options.photoCheck;
      const unfit = checker
        ? await checker.check(pixels).then(
            (c) => c.unfit,
            () => null,
          )
        : null;
      if (unfit === true) return { unfit, analyzed: null };
      const analyzer = this.analyzer;
      const analyzed = await analyzer.analyze([pixels]).then(
        ({ photos }) => ({ photo: photos[0]!, analyzer }),
        () => null,
      );
      return { unfit, analyzed };
    })();
    this.preparedPhotos.set(imageId, prepared);
    for (const oldest of this.preparedPhotos.keys()) {
      if (this.preparedPhotos.size <= MAX_PREPARED_PHOTOS) break;
      this.preparedPhotos.delete(oldest);
    }
    return prepared.then(() => undefined);
  }

  /** A prepared photo's analysis, when it was made by the analyzer in use (a detector that failed since is not used again). */
  private async preparedAnalysis(imageId: string): Promise<AnalyzedPhoto | null> {
    const prepared = await this.preparedPhotos.get(imageId);
    this.preparedPhotos.delete(imageId);
    return prepared?.analyzed && prepared.analyzed.analyzer === this.analyzer ? prepared.analyzed.photo : null;
  }

  /**
   * Composes a reply to the conversation so far; its last turn is the one replied to, a visitor's.
   * That turn is screened first: a flagged one is answered with a line written for the demo, and
   * nothing is ranked. An earlier flagged turn, and the line that answered it, are left out of the
   * context, so a later reply is not drawn towards what was screened.
   */
  async compose(history: readonly SessionTurn[], choice: ReplyChoice = {}): Promise<SessionReply> {
    const pool = this.requirePool();
    const start = nowMs();
    const { signal } = choice;
    signal?.throwIfAborted();
    const lastSaid = new Map(history.flatMap((turn, i) => turnTexts(turn).map((text) => [text, i] as const)));
    const screened = (category: VisitorScreenCategory) => ({ category, line: screenReplyLine(category, (l) => lastSaid.get(l) ?? -1) });
    const screen = screenVisitorMessage(turnTexts(history[history.length - 1]));
    if (screen.category) return this.writtenReply(choice, start, { screened: screened(screen.category) });
    if (choice.video) {
      const text = turnTexts(history[history.length - 1]).join('\n');
      if (answeredAsUnfit(text, choice.video.turn)) return this.writtenReply(choice, start, { screened: screened('video') });
      const answered = await answerVideoTurn(text, choice.video.turn, choice.video.rankers, signal);
      if (answered) return this.writtenReply(choice, start, { video: answered });
    }
    // Each photo is decoded once: for the check, then for the reply.
    const decoded = withDecodedOnce(history);
    const photoChecks = await this.checkPhotos(decoded[decoded.length - 1]);
    signal?.throwIfAborted();
    if (photoChecks.some((c) => c.verdict === 'unfit')) return { ...this.writtenReply(choice, start, { screened: screened('photo') }), photoChecks };
    const withoutScreened = withoutScreenedTurns(decoded, (turn) => turn.elements.some((e) => e.kind === 'image' && this.unfitPhotos.has(e.imageId)));
    const { reply } = await this.composeWithModels(pool, withoutScreened, choice);
    return photoChecks.length > 0 ? { ...reply, photoChecks } : reply;
  }

  /** Photos the check called unfit in this session: the turns that shared them are left out of later contexts. */
  private readonly unfitPhotos = new Set<string>();

  /** The photo check's verdict on each photo of a turn not seen before; a check that fails says 'unchecked', and the reply goes on. */
  private async checkPhotos(turn: SessionTurn | undefined): Promise<{ imageId: string; verdict: PhotoCheckVerdict }[]> {
    const checker = this.options.photoCheck;
    const photos = (turn?.elements ?? []).flatMap((e) => (e.kind === 'image' && e.decode && !this.elements.has(`u:${e.imageId}`) ? [e] : []));
    if (!checker) return photos.map((p) => ({ imageId: p.imageId, verdict: 'unchecked' as const }));
    const checks: { imageId: string; verdict: PhotoCheckVerdict }[] = [];
    for (const photo of photos) {
      try {
        const ahead = (await this.preparedPhotos.get(photo.imageId))?.unfit ?? null;
        const unfit = ahead ?? (await checker.check(await photo.decode!())).unfit;
        if (unfit) this.unfitPhotos.add(photo.imageId);
        checks.push({ imageId: photo.imageId, verdict: unfit ? 'unfit' : 'fit' });
      } catch (error) {
        console.warn(`The photo check failed on a photo, so it is shown unchecked: ${errorMessage(error)}`);
        checks.push({ imageId: photo.imageId, verdict: 'unchecked' });
      }
    }
    return checks;
  }

  /**
   * A reply with nothing ranked from the pool: the line to a flagged message, or the answer about a
   * video; the photos shared with it are not analysed.
   */
  private writtenReply(choice: ReplyChoice, start: number, written: Pick<SessionReply, 'screened'> | Pick<SessionReply, 'video'>): SessionReply {
    const totalMs = nowMs() - start;
    return {
      method: this.resolveMethod(choice.method),
      intentModel: this.heads || this.local ? 'head' : 'majority',
      composed: { elements: [], steps: [], timings: { intentMs: 0, rankMs: 0, totalMs } },
      elements: [],
      captions: [],
      coherence: { invites: false, showsImage: false },
      relevance: 0,
      timings: { decodeMs: 0, detectMs: 0, encodeMs: 0, captionMs: 0, intentMs: 0, rankMs: 0, totalMs },
      ...written,
    };
  }

  /**
   * Replays one response turn of a reference dialogue: composes a reply to the turns before it and
   * scores it against it (scoreResponse: MM-Relevance, Intent F1, and each reference element ranked
   * among the record's first `negatives` negatives).
   */
  async replayTurn(
    record: DialogueRecord,
    turn: number,
    choice: ReplyChoice = {},
    negatives = REFERENCE_NEGATIVES,
  ): Promise<{ reply: SessionReply; score: ResponseScore }> {
    const pool = this.requirePool();
    if (!Number.isInteger(turn) || turn < 1 || turn >= record.turns.length)
      throw new EngineError('invalid-input', `Dialogue ${record.id} has no response turn ${turn}: it has turns 1 to ${record.turns.length - 1}.`);
    this.requireRecordImages(record);
    const history: SessionTurn[] = record.turns.map((t) => ({
      elements: t.elements.map((e): SessionElement => (e.kind === 'text' ? { kind: 'text', text: e.text } : { kind: 'poolImage', key: e.key })),
    }));
    const { reply, turns, intent, ranker } = await this.composeWithModels(pool, history.slice(0, turn), choice);
    const negativeTexts = record.negativeTexts?.slice(0, negatives) ?? [];
    await this.embedTexts([...history[turn]!.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])), ...negativeTexts]);
    const score = await scoreResponse(turns, reply.elements, this.contextTurn(pool, history[turn]!), {
      intent,
      ranker,
      negatives: { text: record.negativeTexts, image: record.negativeMediaKeys },
      limit: negatives,
      negative: (modality, value) => (modality === 'text' ? this.textElement(pool, value) : this.poolImage(pool, value)),
    });
    return { reply, score };
  }

  /**
   * Where pool texts would rank in the first text step of the reply to this history, among the rows the
   * page could offer (the rules' exclusions and skips applied, as composeResponse asks past them, to the
   * rows scored above it; a tie counts half, whatever the per-row rules would say of it; a text the rules
   * would drop is a miss), and the reply itself: `bench -- pool-select` ranks each true response,
   * appended to the pool as a held-out row.
   */
  async rankTextRows(
    history: readonly SessionTurn[],
    rows: readonly number[],
    choice: ReplyChoice = {},
  ): Promise<{ reply: SessionReply; ranks: TargetRank[] }> {
    const pool = this.requirePool();
    const { reply, turns, ranker, exclude, skip } = await this.composeWithModels(pool, history, choice);
    if (!('poolScores' in ranker))
      throw new EngineError('invalid-input', `The method ${ranker.id} does not score every pool row, so it cannot rank the whole pool.`);
    const state = { turns: turns.filter((t) => t.elements.length > 0), partial: [] };
    const scores = await (ranker as PoolScoringRanker).poolScores(state, 'text');
    const excluded = exclude.text ?? new Set<number>();
    const offered = (r: number) => !excluded.has(r) && !(skip?.text?.(r) ?? false);
    const ranks = rows.map((row): TargetRank => {
      // A text the rules would never let through (an echo, a line said before) is a miss, wherever it scores.
      if ((excluded.has(row) && !this.heldOutTexts.has(row)) || (skip?.text?.(row) ?? false)) return { higher: 0, ties: 0, miss: true };
      const target = scores[row]!;
      let higher = 0;
      let ties = 0;
      for (let r = 0; r < scores.length; r++) {
        if (r === row || scores[r]! < target) continue;
        if (scores[r]! > target) {
          if (offered(r)) higher++;
        } else if (!excluded.has(r)) ties++; // a tie counts half (the expected rank): not worth the per-row rules, and a lookup ties with most of the pool
      }
      return { higher, ties };
    });
    return { reply, ranks };
  }

  /** Scores a reply against another answer (a visitor's own): MM-Relevance and Intent F1, no negatives so no Recall. */
  async scoreReference(reply: readonly SessionElement[], reference: readonly SessionElement[]): Promise<{ score: ResponseScore; captions: PhotoCaption[] }> {
    const pool = this.requirePool();
    const { turns, captions } = await this.embedHistory(pool, [{ elements: reply }, { elements: reference }]);
    return { score: await scoreResponse([], turns[0]!.elements, turns[1]!.elements), captions };
  }

  /** Every media key of the record must name an image of the pool in use. */
  requireRecordImages(record: DialogueRecord): void {
    for (const t of record.turns) {
      for (const e of t.elements) {
        if (e.kind === 'media' && !this.imageRow.has(e.key))
          throw new EngineError(
            'invalid-input',
            `Dialogue ${record.id} shows the image "${e.key}", which is not in the pool in use. Replay needs the pool its dialogues were written for: choose it under "Reply from".`,
          );
      }
    }
  }

  private resolveMethod(requested: ResponseMethodId | null | undefined): ResponseMethodId {
    const { available, preferred } = this.methods();
    return requested && available.includes(requested) ? requested : preferred;
  }

  private trainRecords(): Promise<readonly DialogueRecord[] | null> {
    this.train ??= this.readTrain();
    return this.train;
  }

  private intentModel(choice: IntentModel['id'] | undefined): Promise<IntentModel> {
    if (choice === 'head' && !this.heads && !this.local)
      throw new EngineError('invalid-input', 'The trained intent head needs trained heads, which this pack does not have.');
    if (this.heads && choice !== 'majority') return Promise.resolve(this.heads.intent);
    if (this.local && choice !== 'majority') return Promise.resolve(this.local.intent);
    this.majority ??= this.trainRecords().then((train) => {
      const responses = (train ?? []).flatMap((r) => r.turns.slice(1).map((t) => t.elements.map((e): Modality => (e.kind === 'text' ? 'text' : 'image'))));
      return responses.length > 0 ? MajorityIntent.fromResponses(responses) : ONE_TEXT_THEN_STOP;
    });
    return this.majority;
  }

  /** The phrases that promise an image, from this pool's train split; none without one. */
  private imageInvitations(): Promise<ImageInvitations> {
    this.invitations ??= Promise.all([this.trainRecords(), this.readShippedInvitations().catch(() => null)]).then(([train, shipped]) => {
      if (!train || train.length === 0) return ImageInvitations.none();
      const responses = trainResponses(train);
      return invitationsFromFile(shipped, responses) ?? ImageInvitations.learn(responses);
    });
    return this.invitations;
  }

  /** The pool's pending CLIP rows of these modalities, saying first that something now waits for them. */
  private async untilRowsComplete(kinds: readonly Modality[]): Promise<void> {
    if (kinds.some((kind) => !this.rowsDone[kind])) this.rowsWanted();
    await Promise.all(kinds.map((kind) => this.rowsComplete[kind]));
  }

  /** The modalities whose every CLIP row this method's ranker reads when it is built. */
  private completeRowsNeeded(method: ResponseMethodId): Modality[] {
    return MODALITIES.filter((kind) => RESPONSE_METHODS[method].needs.clipRows[kind] === 'complete');
  }

  /** Whether this method's ranker would wait for rows still being computed. */
  private rankerWaits(method: ResponseMethodId): boolean {
    return this.completeRowsNeeded(method).some((kind) => !this.rowsDone[kind]);
  }

  /** Rows a 'live' method must not offer: those still being computed (zero until then). */
  private notYetEmbedded(method: ResponseMethodId): Partial<Record<Modality, ReadonlySet<number>>> {
    const live = RESPONSE_METHODS[method].needs.clipRows;
    return Object.fromEntries(MODALITIES.filter((kind) => live[kind] === 'live' && this.pending[kind].size > 0).map((kind) => [kind, this.pending[kind]]));
  }

  private ranker(method: ResponseMethodId): Promise<Ranker> {
    let ranker = this.rankers.get(method);
    if (!ranker) {
      const pool = this.requirePool();
      // Document frequencies are counted over the collection ranked, the pool's own texts, as BM25 defines them.
      const dfCorpus = RESPONSE_METHODS[method].needs.train ? pool.texts : [];
      const ready = this.untilRowsComplete(this.completeRowsNeeded(method));
      ranker = (async () => {
        await ready;
        return createRanker(method, {
          pool,
          heads: this.heads,
          clipMap: this.clipMap(),
          dfCorpus,
          chat: this.chatPool,
          hybridWeights: this.options.chat?.hybridWeights ?? null,
        });
      })();
      this.rankers.set(method, ranker);
    }
    return ranker;
  }

  /**
   * What this reply may not say and what it should do, from the conversation: no text already said in
   * it (by either side, in any re-typing) nor one that echoes a line said (replyPolicy.echoes), no request for photos when the system asked before or the
   * visitor just sent one, no word about "your photo" when none was just sent, a picture when the
   * visitor asks for one, and a text that names what the visitor's photo shows when one of the best does.
   */
  private async replyPlan(
    pool: CandidatePool,
    history: readonly SessionTurn[],
    turns: readonly ContextTurn[],
    invitations: ImageInvitations,
  ): Promise<Pick<ComposeOptions, 'exclude' | 'skip' | 'preferText' | 'request' | 'answer'>> {
    const said = new Set<number>();
    const textsOf = (turn: SessionTurn | undefined) => (turn?.elements ?? []).flatMap((e) => (e.kind === 'text' ? [e.text] : []));
    const lines = history.flatMap(textsOf);
    for (const text of lines) for (const row of rowsOfKey(this.marks, pool.texts, textKey(text))) said.add(row);
    const latest = history[history.length - 1];
    // The turns the system said: every other one back from the one it replies to.
    const systemTurns = history.filter((_, i) => (history.length - 1 - i) % 2 === 1);
    const ownLines = systemTurns.flatMap(textsOf);
    const systemAsked = ownLines.some(asksForPhotos);
    const sharedPhoto = (latest?.elements ?? []).some((e) => e.kind !== 'text');
    const shownBefore = (systemTurns[systemTurns.length - 1]?.elements ?? []).some((e) => e.kind !== 'text');
    // The demo's own lines (about itself, introducing a picture) are said only where their rule says.
    const exclude = new Set([
      ...said,
      ...(systemAsked || sharedPhoto ? this.marks.photoAsks : []),
      ...(sharedPhoto ? [] : this.marks.photoTalk),
      ...this.aboutTheDemoRows.values(),
      ...this.pictureIntroRows,
    ]);
    const latestText = textsOf(latest).join(' ');
    const entry = aboutTheDemoEntry(latestText, sharedPhoto || shownBefore) ?? (!sharedPhoto && this.readsNothingIn(latestText) ? NOT_UNDERSTOOD : null);
    const answerRow = entry?.lines.map((line) => this.aboutTheDemoRows.get(line)).find((row) => row !== undefined && !said.has(row));
    if (answerRow !== undefined) return { exclude: { text: exclude }, answer: { row: answerRow } };
    const asked = pictureRequest(latestText);
    const topics = asked ? requestTopics(asked) : null;
    const request =
      asked && topics
        ? {
            images: await this.requestedImages(pool, asked),
            // A line that invites the picture and names what was asked; else one written to introduce it.
            textRows: (row: number) => invitations.invites(pool.texts[row]!) && namesTopic(pool.texts[row]!, topics),
            depth: REQUEST_TEXT_DEPTH,
            fallbackRows: this.pictureIntroRows.filter((row) => !said.has(row)),
          }
        : undefined;
    const mainObject = turns[turns.length - 1]?.elements.find((e) => e.kind === 'image' && e.mainObject)?.mainObject;
    const preferText = mainObject ? { names: (row: number) => namesObject(pool.texts[row]!, mainObject), depth: PHOTO_OBJECT_DEPTH } : undefined;
    // The echo guard (a line too close to one said, in its words or in the encoder's key space), and no
    // claim about itself that contradicts its own earlier lines.
    const guard = this.keyEchoGuard;
    const lineKeys = guard ? await guard.keysOf(lines) : [];
    const echoesSaid = echoGuard(lines);
    const contradictsOwn = contradictionGuard(ownLines);
    const skip = {
      text: (row: number) => echoesSaid(pool.texts[row]!) || (guard?.echoes(row, lineKeys) ?? false) || contradictsOwn(pool.texts[row]!),
    };
    return { exclude: { text: exclude }, skip, ...(preferText ? { preferText } : {}), ...(request ? { request } : {}) };
  }

  /**
   * Whether the demo can read nothing in a line: no word of it (emoji, punctuation, keyboard mash,
   * another language) is a word of any pool text. The pool's words are gathered when first needed.
   */
  private readsNothingIn(text: string): boolean {
    const words = tokenize(text);
    if (words.length === 0) return true;
    // The shipped BM25 counts list every word of the pool's texts: tokenizing 65k texts cost the first reply 0.3 s.
    const pool = this.requirePool();
    this.poolWords ??= new Set(pool.textCounts?.terms ?? pool.texts.flatMap(tokenize));
    const known = this.poolWords;
    return !words.some((w) => known.has(w));
  }

  /**
   * The pool's images for a picture request ("a cat"): BM25 over each image's label and keywords and the
   * CLIP cosine of "a photo of a cat" to each image, standardised and counted alike (fusion.ts), so a
   * label that says it wins and the image tower decides among the rest.
   */
  private async requestedImages(pool: CandidatePool, thing: string): Promise<ScoredIndex[]> {
    if (pool.imageKeys.length === 0) return [];
    const words = this.images.map((i) => [i.label, ...i.keywords].join(' '));
    this.imageWords ??= LexicalIndex.build('bm25', words, corpusStats(words));
    const lexical = this.imageWords.score(thing);
    await this.embedTexts([`a photo of ${thing}`]);
    const query = this.textElement(pool, `a photo of ${thing}`).embedding;
    const m = pool.imageMatrix;
    const clip = Float64Array.from({ length: m.rows }, (_, r) => dot(query, m.data.subarray(r * m.dim, (r + 1) * m.dim)));
    // An image whose row is still being computed has no CLIP score yet, so it is not offered.
    return topKOfScores(fuseScores([lexical, clip], [0.5, 0.5]), 10, this.pending.image);
  }

  /** Embeds the conversation (new texts and photos only) and composes the reply with the chosen method and intent. */
  private async composeWithModels(pool: CandidatePool, history: readonly SessionTurn[], choice: ReplyChoice) {
    const method = this.resolveMethod(choice.method);
    const start = nowMs();
    const { turns, captions, decodeMs, detectMs, encodeMs, captionMs } = await this.embedHistory(pool, history);
    choice.signal?.throwIfAborted();
    const [intent, ranker, invitations] = await Promise.all([this.intentModel(choice.intent), this.ranker(method), this.imageInvitations()]);
    choice.signal?.throwIfAborted();
    const plan = choice.rules === false ? {} : await this.replyPlan(pool, history, turns, invitations);
    const exclude = withRows(withRows(withRows(plan.exclude, this.notYetEmbedded(method)), { text: this.heldOutTexts }), {
      text: choice.strict ? this.borderline(pool) : new Set(),
    });
    const element = (kind: Modality, index: number) => this.rowElement(pool, kind, index);
    const composed = await composeResponse(
      turns.filter((t) => t.elements.length > 0),
      pool,
      intent,
      ranker,
      { invitations, ...plan, exclude, element },
    );
    const elements = await Promise.all(composed.elements.map((e) => element(e.kind, e.index)));
    const latest = contextVector({ turns, partial: [] }); // the latest turn, as clip-sim sees it
    const reply: SessionReply = {
      method,
      intentModel: intent.id,
      composed,
      elements,
      captions,
      coherence: replyCoherence(elements, invitations),
      relevance: elements[0] ? dot(latest, elements[0].embedding) : 0,
      timings: { decodeMs, detectMs, encodeMs, captionMs, intentMs: composed.timings.intentMs, rankMs: composed.timings.rankMs, totalMs: nowMs() - start },
    };
    return { reply, turns, intent, ranker, exclude, skip: plan.skip };
  }

  /** The pool rows booth strictness leaves out: the pool's own marks, or every text the strict lists flag (a stored dataset's pool). */
  private borderline(pool: CandidatePool): ReadonlySet<number> {
    this.borderlineTexts ??= new Set(pool.texts.flatMap((text, row) => (screenCategoryOf(text, { reader: 'pool', strict: true }) ? [row] : [])));
    return this.borderlineTexts;
  }

  /** The caption bank of the pool in use, embedded on first use (and cached like the pool). */
  private captionBank(): Promise<{ bank: string[]; matrix: EmbeddingMatrix }> {
    this.captions ??= (async () => {
      const bank = captionBank(this.images);
      const texts = bank.map((text, i) => ({ id: String(i), text }));
      const embedded = await embedPool({
        encoder: this.analyzer.encoder,
        texts,
        images: [],
        imageKeys: [],
        loadImage: () => Promise.reject(new Error('no images')),
        cache: this.options.cache,
        batchSize: 128,
      });
      return { bank, matrix: embedded.textMatrix };
    })();
    return this.captions;
  }

  /**
   * Every element of the history as a unit embedding: photos not seen before are decoded, analyzed
   * (objects detected, grounded caption, image embedding) and captioned; texts are encoded once, in
   * one batch (a pool text uses its pool row).
   */
  private async embedHistory(pool: CandidatePool, history: readonly SessionTurn[]) {
    const start = nowMs();
    const newImages: { id: string; decode: () => Promise<RgbaImage> }[] = [];
    // Memoised: a photo analysed now is decoded once, for the analysis and then for the captioner.
    for (const turn of withDecodedOnce(history)) {
      for (const e of turn.elements) {
        if (e.kind === 'image' && !this.elements.has(`u:${e.imageId}`) && e.decode) newImages.push({ id: e.imageId, decode: e.decode });
      }
    }
    // Photos prepared while the visitor composed (preparePhoto) are neither decoded nor analysed again; their time is not this reply's.
    const prepared = await Promise.all(newImages.map((i) => this.preparedAnalysis(i.id)));
    const toAnalyze: RgbaImage[] = [];
    for (const [i, img] of newImages.entries()) if (!prepared[i]) toAnalyze.push(await img.decode());
    const decoded = nowMs();
    const texts = history.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])));
    const [, analyzedNow] = await Promise.all([this.embedTexts(texts), this.analyzePhotos(toAnalyze)]);
    let next = 0;
    const analyzed = { photos: prepared.map((photo) => photo ?? analyzedNow.photos[next++]!), timings: analyzedNow.timings };
    const encoded = nowMs();
    // Each new photo gets a one-sentence caption: shown under the photo, and its text for the text-only methods.
    const captions: PhotoCaption[] = [];
    const captionedPhotos: CaptionedPhoto[] = [];
    if (newImages.length > 0) {
      const bank = analyzed.photos.some((p) => p.description === null) ? await this.captionBank() : null;
      newImages.forEach((img, i) => {
        const photo = analyzed.photos[i]!;
        const embedding = l2Normalize(photo.embedding);
        captionedPhotos.push(photo.description ? groundedPhotoCaption(img.id, photo.description) : imageEncoderCaption(img.id, embedding, bank!));
      });
      for (const [i, img] of newImages.entries()) {
        const captioned = await this.modelCaption(captionedPhotos[i]!, img.decode);
        captions.push(captioned.caption);
        const mainObject = steeringObject(analyzed.photos[i]!);
        this.elements.set(`u:${img.id}`, {
          kind: 'image',
          text: captioned.retrievalText,
          embedding: l2Normalize(analyzed.photos[i]!.embedding),
          ...(mainObject ? { mainObject } : {}),
        });
      }
    }
    const captioned = nowMs();
    const { detectMs, captionMs: groundedCaptionMs } = analyzed.timings;
    const turns: ContextTurn[] = history.map((turn, i) => ({ speaker: (i % 2) as 0 | 1, elements: this.contextTurn(pool, turn) }));
    return {
      turns,
      captions,
      decodeMs: decoded - start,
      detectMs,
      // Texts are encoded beside the photos: what the analysis did not spend on detection and grounded captions.
      encodeMs: Math.max(0, encoded - decoded - detectMs - groundedCaptionMs),
      captionMs: groundedCaptionMs + (captioned - encoded),
    };
  }

  /** The captioner's sentence in place of the grounded caption; on failure the grounded one stays, now and later. */
  private async modelCaption(captioned: CaptionedPhoto, decode: () => Promise<RgbaImage>): Promise<CaptionedPhoto> {
    const captioner = this.options.captioner;
    if (!captioner) return captioned;
    try {
      return modelPhotoCaption(captioned, (await captioner.caption(await decode())).text);
    } catch (error) {
      this.options.captioner = null;
      this.options.onCaptionerFailed?.(errorMessage(error));
      return captioned;
    }
  }

  /**
   * The analyzer's pass over new photos. If it fails with the detector and succeeds without it, the
   * detector is what failed: this and every later photo are described by the image encoder alone,
   * and the caller is told, so the status area can say so. An encoder failure still fails the reply.
   */
  private async analyzePhotos(images: readonly RgbaImage[]): Promise<{ photos: AnalyzedPhoto[]; timings: PhotoTimings }> {
    if (images.length === 0) return { photos: [], timings: { detectMs: 0, captionMs: 0, encodeMs: 0 } };
    const analyzer = this.analyzer;
    try {
      return await analyzer.analyze(images);
    } catch (error) {
      if (!analyzer.detector) throw error;
      const withoutDetector = new PhotoAnalyzer(analyzer.encoder, null);
      const analyzed = await withoutDetector.analyze(images);
      if (this.analyzer === analyzer) this.analyzer = withoutDetector;
      this.options.onDetectorFailed?.(errorMessage(error));
      return analyzed;
    }
  }

  /** A turn's elements, once embedded; a photo that could not be read and an image of another pool are left out. */
  private contextTurn(pool: CandidatePool, turn: SessionTurn): ContextElement[] {
    return turn.elements.flatMap((e): ContextElement[] => {
      if (e.kind === 'text') return [this.textElement(pool, e.text)];
      if (e.kind === 'image') return this.elements.has(`u:${e.imageId}`) ? [this.elements.get(`u:${e.imageId}`)!] : [];
      const row = this.imageRow.get(e.key);
      return row === undefined ? [] : [poolElement(pool, 'image', row)];
    });
  }

  /** The pool row of a text whose CLIP row is there (not still pending), or undefined. */
  private readyTextRow(text: string): number | undefined {
    const row = this.textRow.get(text);
    return row === undefined || this.pending.text.has(row) ? undefined : row;
  }

  /** A pool row as a context element; a text row still pending is encoded on its own (and kept). */
  private async rowElement(pool: CandidatePool, kind: Modality, index: number): Promise<ContextElement> {
    if (kind === 'image' || !this.pending.text.has(index)) return poolElement(pool, kind, index);
    await this.embedTexts([pool.texts[index]!]);
    return this.elements.get(`t:${pool.texts[index]!}`)!;
  }

  /** Encodes the texts that are neither ready in the pool nor encoded before, in one batch. */
  private async embedTexts(texts: readonly string[]): Promise<void> {
    const fresh = [...new Set(texts.filter((t) => this.readyTextRow(t) === undefined && !this.elements.has(`t:${t}`)))];
    if (fresh.length === 0) return;
    const embeddings = await this.analyzer.encoder.encodeTexts(fresh);
    fresh.forEach((text, i) => this.elements.set(`t:${text}`, { kind: 'text', text, embedding: l2Normalize(embeddings[i]!) }));
  }

  private textElement(pool: CandidatePool, text: string): ContextElement {
    const row = this.readyTextRow(text);
    return row === undefined ? this.elements.get(`t:${text}`)! : poolElement(pool, 'text', row);
  }

  private poolImage(pool: CandidatePool, key: string): ContextElement {
    const row = this.imageRow.get(key);
    if (row === undefined) throw new EngineError('invalid-input', `The image "${key}" is not in the pool in use.`);
    return poolElement(pool, 'image', row);
  }
}

/**
 * Replays every response turn of the records through one session, in order, and pools the figures
 * (evaluateDialogs): the dialog benchmark's run of one method. Time per response is the session's
 * own (embedding what it has not seen, intent and ranking). `onTurn` sees each turn's reply and score.
 */
export async function evaluateSession(
  session: ReplySession,
  records: readonly DialogueRecord[],
  choice: ReplyChoice,
  options: { negatives?: number; onTurn?: (record: DialogueRecord, turn: number, replayed: { reply: SessionReply; score: ResponseScore }) => void } = {},
): Promise<DialogEvalResult> {
  await session.prepare(choice);
  return evaluateDialogs(records, async (record, turn) => {
    const replayed = await session.replayTurn(record, turn, choice, options.negatives);
    options.onTurn?.(record, turn, replayed);
    return { score: replayed.score, ms: replayed.reply.timings.totalMs, coherence: replayed.reply.coherence };
  });
}
