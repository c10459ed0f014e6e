/**
 * The one message protocol between the UI and the model worker. Each request carries an id and
 * resolves with exactly one `result` or `error` for that id; `progress` belongs to a request,
 * `backend` is announced whenever the execution provider changes.
 */
import type { BackendState, ImageGrounding } from '../engine/clip/clipEncoder';
import type { EngineErrorCode } from '../engine/errors';
import type { LoadStep } from '../engine/loadSteps';
import type { SessionsState } from '../engine/onnx/modelSessions';
import type { ImageFormat } from '../engine/image/imageFormat';
import type { FileProgress } from '../engine/pack/fileSource';
import type { DetectedObject, PhotoCaption, PhotoDetections } from '../engine/perception/photoCaptions';
import type { PoolBuildStats } from '../engine/pool/poolEmbeddings';
import type { ResponseScore } from '../engine/response/evaluate';
import type { LocalHeadsFigures } from '../engine/response/localHeads';
import type { ResponseMethodId } from '../engine/response/methods';
import type { WarmUpStep } from '../engine/response/warmUpSteps';
import type { VisitorScreenCategory } from '../engine/safety/visitorScreen';
import type { PhotoCheckVerdict } from '../engine/perception/photoCheck';
import type { ClevrModelId, ClevrOnnxModelId } from '../engine/clevr/clevrModels';
import type { SceneObject } from '../engine/clevr/scene';
import type { QuestionLabel } from '../engine/clevr/templates';
import type { AvsdModelId } from '../engine/video/avsdModels';
import type { ShownInVideo } from '../engine/video/shownInVideo';
import type { TurnVideo } from '../engine/video/videoTurn';

export type { BackendState, DetectedObject, FileProgress, PhotoCaption, PhotoDetections, ResponseMethodId, ResponseScore };

/**
 * For a pack without Python heads: clip-map and the intent head trained in the worker on the pool's
 * train split (or read from this browser's cache), announced as it goes; replies stay zero-shot until 'trained'.
 */
export type LocalHeadsStatus =
  | { state: 'training'; phase: string; done: number; total: number }
  | { state: 'trained'; figures: LocalHeadsFigures; fromCache: boolean; methods: ResponseMethods }
  | { state: 'unavailable'; reason: string };

/**
 * The pool's CLIP rows computed in the worker after Ready, most used first: the demo pool ships
 * without its text rows (to keep the offline install small), and a downloaded pack has none. clip-sim
 * answers from the rows there so far; clip-map and DE++ wait for them all; the other methods read
 * none. `done === total` for each when they all are.
 */
export interface PoolRowsStatus {
  poolId: string;
  texts: { done: number; total: number };
  images: { done: number; total: number };
}

interface PackRef {
  id: string;
  /** URL of the pack folder, ending in '/' (served packs). */
  baseUrl: string;
  files: string[];
  /** Downloaded in Settings and kept in this browser's storage: read from there, never from the network. */
  stored?: boolean;
}

/** The object detector's folder (models/detector/) as /models/index.json lists it. */
export interface DetectorRef {
  /** URL of the folder, ending in '/'. */
  baseUrl: string;
  files: string[];
}

/** A captioning pack (Transformers.js VisionEncoderDecoder layout) as /models/index.json lists it under "captioners". */
export interface CaptionerRef {
  id: string;
  /** URL of the folder, ending in '/' (served captioners). */
  baseUrl: string;
  files: string[];
  /** Downloaded in Settings and kept in this browser's storage: read from there, never from the network. */
  stored?: boolean;
}

/**
 * Whether a captioning model writes the captions of shared photos. Unavailable never stops the pack: the
 * grounded captions stay, and `reason` says what happened and what to do. 'none': no captioner pack.
 */
export type CaptionerStatus =
  | { state: 'ready'; id: string; provider: 'webgpu' | 'wasm'; dtype: 'fp32' | 'fp16' | 'q8'; loadMs: number }
  | { state: 'unavailable'; reason: string }
  | { state: 'none' };

/** Where the object detector runs: its one model's provider and dtype, and why. */
type DetectorBackend = SessionsState<'detector'>;

/**
 * Whether shared photos go through the object detector. Unavailable never stops the pack: photos are
 * then described by the image encoder alone, and `reason` says what happened and what to do.
 */
export type DetectorStatus = { state: 'ready'; backend: DetectorBackend; loadMs: number } | { state: 'unavailable'; reason: string };

export interface ImagePayload {
  name: string;
  blob: Blob;
}

interface CheckedImage {
  format: ImageFormat;
  width: number;
  height: number;
}

/** The candidate pool to rank from: the demo pool shipped with the app, or a dataset the person loaded. */
export type PoolRef = { kind: 'demo'; baseUrl: string } | { kind: 'dataset'; datasetId: string };

export interface PoolLoaded {
  poolId: string;
  name: string;
  texts: number;
  images: number;
  /** Where the embedding rows came from: the precomputed file, this browser's cache, or computed now. */
  embeddings: PoolBuildStats;
}

interface PackLoaded {
  packId: string;
  methods: ResponseMethods;
  backend: BackendState;
  loadMs: number;
  /** Where loadMs went, step by step (the presenter view's Ready line shows them on hover). */
  steps: LoadStep[];
  projectionDim: number;
  pool: PoolLoaded;
  /** The object detector, loaded after the pack on the same execution plan; its failure never stops the pack. */
  detector: DetectorStatus;
  /** The captioning model, loaded after the detector; its failure never stops the pack. */
  captioner: CaptionerStatus;
}

/** One file of a folder (or of a zip) the person chose, with its path inside the folder. */
export interface DatasetFile {
  path: string;
  blob: Blob;
}

export interface DatasetImported {
  datasetId: string;
  name: string;
  images: number;
  texts: number;
  dialogues: number;
  /** Files left out and why, to show the person. */
  problems: string[];
  /** A stored dataset of the name chosen but other content (a corrected copy): kept, and the new one named apart. */
  keptBeside?: { name: string; createdAt: number };
}

/** An element of an earlier turn, as the page stored it; user photos travel as Blobs (cheap to post). */
export type HistoryElement = { kind: 'text'; text: string } | { kind: 'image'; imageId: string; blob?: Blob } | { kind: 'poolImage'; key: string };

export interface HistoryTurn {
  elements: HistoryElement[];
}

/** Which response methods the loaded pack offers, and the one used when the person has not chosen. */
export interface ResponseMethods {
  available: ResponseMethodId[];
  preferred: ResponseMethodId;
  /** Why trained heads are or are not in use, in a sentence. */
  note: string;
}

type ReplyElement = { kind: 'text'; text: string; score: number } | { kind: 'poolImage'; key: string; alt: string; url: string | null; score: number };

export interface ReplyCandidate {
  kind: 'text' | 'poolImage';
  label: string;
  key?: string;
  /** For a pool image: its URL (null for a stored dataset's image, read from IndexedDB) and alt text. */
  url?: string | null;
  alt?: string;
  score: number;
}

export interface ReplyStep {
  /** Intent probabilities before this step: text, image, stop (MMDialog eq. 4). */
  probabilities: [number, number, number];
  intent: 'text' | 'image' | 'stop';
  /** Set when the intent module was overruled: the reply's own text invited an image, the visitor asked for a picture, or about the demo itself. */
  forcedBy?: 'invitation' | 'request' | 'about-the-demo';
  /** Set when the element taken is not the ranker's first but the first that names what the visitor's photo shows. */
  preferred?: 'names-photo-object';
  candidates: ReplyCandidate[];
}

export interface ReplyResult {
  elements: ReplyElement[];
  steps: ReplyStep[];
  method: ResponseMethodId;
  intentModel: 'majority' | 'head';
  /** Cosine between the latest turn and the reply's first element: context relevance, not MM-Relevance. */
  relevance: number;
  /** Whether the reply's text invites an image (phrases learned from the train split), and whether it shows one. */
  coherence: { invites: boolean; showsImage: boolean };
  /** Captions of the photos of this turn: grounded in the detector's boxes, or from the caption bank without a detector. */
  captions: PhotoCaption[];
  /** In the worker: decode the photos, detect objects in them, encode (CLIP), caption, intent, rank, and all of it. */
  timings: { decodeMs: number; detectMs: number; encodeMs: number; captionMs: number; intentMs: number; rankMs: number; totalMs: number };
  backend: BackendState;
  /** Set when the visitor's message was screened: the reply is one line written for the demo, and nothing was ranked. Only the category, never the text. */
  screened?: VisitorScreenCategory;
  /** What the photo check said of each photo of this turn: the page blurs an unfit one, or hides it in kiosk mode. */
  photoChecks?: { imageId: string; verdict: PhotoCheckVerdict }[];
  /** Set when the turn was about a video: the reply's one text is the answer, found this way. */
  video?: VideoReply;
}

/** The splits with reference dialogues whose records carry negatives, so R@1 can be measured. */
export type ReferenceSplit = 'test' | 'valid';
export const REFERENCE_SPLITS: readonly ReferenceSplit[] = ['test', 'valid'];

export interface ReferenceDialogueSummary {
  id: string;
  turns: number;
  /** The start of the first turn's text, for the chooser. */
  preview: string;
}

/** An element of a reference dialogue as the page shows it: a text, or an image of the pool. */
export type ReferenceElement = { kind: 'text'; text: string } | { kind: 'poolImage'; key: string; alt: string; url: string | null };

export interface ReferenceDialogue {
  split: ReferenceSplit;
  id: string;
  turns: { elements: ReferenceElement[] }[];
}

/** The engine's reply to the turns before a reference turn, and how it scores against that turn. */
export interface ReplayTurnResult {
  reply: ReplyResult;
  score: ResponseScore;
}

/** The CLEVR-Dialog answerers' folder (models/clevr/) as /models/index.json lists it. */
export interface ClevrRef {
  baseUrl: string;
  files: string[];
}

/** What the CLEVR-Dialog view can answer with: the ONNX models found (none when models/clevr is missing or broken, with why). */
export interface ClevrLoaded {
  models: ClevrOnnxModelId[];
  /** The model that did best on the val split when trained; null without models. */
  defaultModel: ClevrOnnxModelId | null;
  provider: 'webgpu' | 'wasm' | null;
  /** Why there are no models, or which backend runs them and why. */
  note: string;
}

/** One CLEVR-Dialog question for the worker's model: the scene, what was said before, and the question. */
export interface ClevrQuestionParams {
  model: ClevrModelId;
  objects: SceneObject[];
  caption: string;
  earlier: { question: string; answer: string }[];
  question: string;
  template: QuestionLabel;
}

/** How far the CLEVR scene-file reader (clevrSceneFile.worker.ts) has got: bytes read, then JSON parsed, then scenes checked. */
export type ClevrSceneFileProgress =
  { stage: 'reading'; done: number; total: number } | { stage: 'parsing' } | { stage: 'checking'; done: number; total: number };

/** The scene-file reader's one request: a file to read, off the page's thread and off the model worker's. */
export interface ClevrSceneFileRequest {
  type: 'read';
  file: Blob;
  name: string;
}

/** What the scene-file reader posts: progress, then the checked scenes (each as its JSON, a cheap copy to the page) or why not. */
export type ClevrSceneFileEvent =
  { type: 'progress'; progress: ClevrSceneFileProgress } | { type: 'scenes'; scenes: string[] } | { type: 'error'; message: string };

/** The video models' folder (models/avsd/) as /models/index.json lists it. */
export interface AvsdRef {
  baseUrl: string;
  files: string[];
}

/** A shared video as the page decoded it: frames sampled evenly (RGBA) and its sound at 16 kHz mono (null: no sound track). */
export interface VideoPayload {
  seconds: number;
  frames: { time: number; width: number; height: number; pixels: Uint8ClampedArray }[];
  audio: Float32Array | null;
  /** The id its sound was sent ahead under (hearVideo), so the worker reuses what it heard then. */
  soundId?: string;
}

/** What the worker says about a shared video; stored with the conversation, so it can be asked about after a reload. */
export interface VideoAnalyzed {
  description: string;
  /** Drawn shapes or a real scene, and for a real scene the answer to "what is in it" (shownInVideo.ts). */
  shown: ShownInVideo;
  /** What the answer rankers read (videoFeatures.ts, audioFeatures.ts). */
  features: { video: number[]; audio: number[] };
  /** Per sampled frame: the detector's boxes (null without a detector) and the coloured shapes found. */
  frames: { time: number; detections: PhotoDetections | null; shapes: { label: string; x: number; y: number }[] }[];
  /** Loudness (dBFS) and Silero VAD's speech probability per 32 ms; null when there is no sound track. */
  timeline: { frameSeconds: number; loudnessDb: number[]; speech: number[] } | null;
  speechChecked: boolean;
  detectorUsed: boolean;
  /** Models that could not be loaded, in sentences. */
  problems: string[];
  timings: { detectMs: number; encodeMs: number; audioMs: number; totalMs: number; analysedFrames: number };
  /**
   * The photo check of its sampled frames (checkVideoFrames). An unfit video is not watched: its
   * description is empty and it has no frames, features or sound. Absent in analyses saved before it.
   */
  check?: PhotoCheckVerdict;
}

/**
 * How a reply about a video was found (engine/video/videoTurn.ts): acknowledged, said from the
 * frames, or the best of the ranker's candidates, of which the best KEPT_VIDEO_CANDIDATES are kept.
 */
export type VideoReply = { videoId: string } & (
  | { answeredFrom: 'watched' }
  | { answeredFrom: 'frames'; question: string }
  | { answeredFrom: 'ranker'; question: string; model: AvsdModelId; candidates: { text: string; score: number }[]; candidateCount: number }
);

/** How many of a video answer's 100 ranked candidates a reply carries, for the Inspector. */
export const KEPT_VIDEO_CANDIDATES = 20;

/** How the worker schedules a method: see WORKER_METHODS. */
type MethodScheduling = 'queue' | 'background' | 'idle';

/** One method of WORKER_METHODS: its scheduling at run time; its params and result in the type alone. */
interface MethodSpec<Params, Result> {
  readonly scheduling: MethodScheduling;
  /** Never set: carries the types, so that one entry binds a method's name, params, result and scheduling. */
  readonly types?: { params: Params; result: Result };
}

const method = <Params, Result>(scheduling: MethodScheduling): MethodSpec<Params, Result> => ({ scheduling });

/**
 * Every call the worker answers, the one list of methods: its parameters, its result and how the
 * worker schedules it, bound together by name. WorkerMethods (the types), the handler table
 * (WorkerApi), the client's `call` and the request handler's scheduling all derive from it.
 * 'queue': one at a time in arrival order, so a reply never races a pack load; 'background': beside
 * that queue, for long work (a dataset embedded, a CLEVR scene drawn in slices of a frame's budget) so
 * the chat keeps answering; 'idle': work nobody waits for (warm-up steps), run only when nothing else
 * is queued or running, so a visitor's turn goes ahead of every such request not yet started, and
 * pre-empts the one running: its signal fires, and it runs again afterwards.
 */
export const WORKER_METHODS = {
  /** `detector` is null when models/ has none; the result then says the detector is unavailable. */
  loadPack: method<
    {
      pack: PackRef;
      detector: DetectorRef | null;
      captioner?: CaptionerRef | null;
      /** The photo check's folder (models/photo-check); absent or null: photos go unchecked. */
      photoCheck?: { baseUrl: string; files: string[] } | null;
      pool: PoolRef;
      forceWasm: boolean;
    },
    PackLoaded
  >('queue'),
  usePool: method<{ pool: PoolRef }, PoolLoaded>('queue'),
  /** Hands over a folder's files in slices: cloning 10,000 File handles in one message blocks the page for seconds. */
  stageDatasetFiles: method<{ stagingId: string; files: DatasetFile[] }, { staged: number }>('background'),
  importDataset: method<{ name: string; stagingId: string }, DatasetImported>('background'),
  resumeDataset: method<{ datasetId: string }, DatasetImported>('background'),
  checkImage: method<{ image: ImagePayload }, CheckedImage>('queue'),
  reply: method<
    {
      history: HistoryTurn[];
      texts: string[];
      images: (ImagePayload & { imageId: string })[];
      method: ResponseMethodId | null;
      /** Booth strictness (kiosk mode, or the setting): borderline pool texts are left out too. */
      strict?: boolean;
      /**
       * The video the turn is about: shared with it, or the last media shared before it. The turn is
       * answered about it (a question, or a video shared without one), else replied to from the pool.
       */
      video?: { turn: TurnVideo; avsd: AvsdRef | null; forceWasm: boolean };
    },
    ReplyResult
  >('queue'),
  listReferenceDialogues: method<{ split: ReferenceSplit }, { split: ReferenceSplit; dialogues: ReferenceDialogueSummary[] }>('queue'),
  loadReferenceDialogue: method<{ split: ReferenceSplit; dialogueId: string }, ReferenceDialogue>('queue'),
  /** Composes a reply to turns 0..turn-1 of a reference dialogue and scores it against turn `turn`, as the dialog benchmark does. */
  replayTurn: method<{ split: ReferenceSplit; dialogueId: string; turn: number; method: ResponseMethodId | null }, ReplayTurnResult>('queue'),
  /** Scores a reply against what the visitor would have answered: MM-Relevance and Intent F1 only, since there are no negatives to rank among. */
  scoreReference: method<{ reply: HistoryElement[]; reference: HistoryElement[] }, { score: ResponseScore; captions: ReplyResult['captions'] }>('queue'),
  /**
   * Trains clip-map and the intent head for a pack without Python heads (or joins the training under
   * way) and answers when it ends; news comes as 'localHeads' events. Cancelling it stops the training.
   */
  trainHeads: method<Record<string, never>, { started: boolean }>('background'),
  encodeTexts: method<{ texts: string[] }, { embeddings: number[][] }>('queue'),
  /** grounding, when given, is fed to an image tower that takes it instead of the detector's (parity tests compare towers alone). */
  encodeImages: method<{ images: ImagePayload[]; grounding?: ImageGrounding[] }, { embeddings: number[][] }>('queue'),
  /** Loads the CLEVR-Dialog answerers (once; later calls say what was loaded). */
  clevrLoad: method<{ clevr: ClevrRef | null; forceWasm: boolean }, ClevrLoaded>('queue'),
  /** Draws a CLEVR scene (480x320 RGBA), off the page's thread. */
  clevrRender: method<{ objects: SceneObject[] }, { width: number; height: number; pixels: Uint8ClampedArray }>('background'),
  clevrAnswer: method<ClevrQuestionParams, { answer: string; probabilities: number[] }>('queue'),
  /** Understands a shared video: the frames through the pack's photo path, the sound through Silero VAD and the audio features. */
  analyzeVideo: method<{ video: VideoPayload; avsd: AvsdRef | null; forceWasm: boolean }, VideoAnalyzed>('queue'),
  /**
   * A shared video's sound, sent as soon as it is decoded, while the page still seeks the frames: the
   * worker loads the video models and looks for speech then, and analyzeVideo with the same soundId
   * takes what it heard. 'queue', so the analysis that follows always finds it.
   */
  hearVideo: method<{ soundId: string; audio: Float32Array; avsd: AvsdRef | null; forceWasm: boolean }, { ms: number }>('queue'),
  /** One step of warming after Ready (WARM_UP_STEPS), for the method the page uses; an idle method (IDLE_METHODS). */
  warmUp: method<{ step: WarmUpStep; method: ResponseMethodId | null }, { step: WarmUpStep; ms: number }>('idle'),
  /**
   * Makes the photo path's sessions (image tower, detector, photo check) once, asked for when a visitor
   * starts to share a photo. It runs beside the queue ('background'), so the photo's check and its turn
   * never wait behind it: a turn that comes meanwhile shares the sessions being made.
   */
  preparePhotoPath: method<Record<string, never>, { ms: number }>('background'),
  /**
   * Checks and analyses a photo attached to the draft before its turn is sent, so the turn finds it
   * done (session.preparePhoto). In the queue: the photo's turn, queued after it, then finds the work
   * done, and a reply never races it on a model.
   */
  preparePhoto: method<{ imageId: string; image: ImagePayload }, { ms: number }>('queue'),
} as const;

/** Each method's params and result, by name (from WORKER_METHODS). */
export type WorkerMethods = {
  [K in keyof typeof WORKER_METHODS]: (typeof WORKER_METHODS)[K] extends MethodSpec<infer Params, infer Result> ? { params: Params; result: Result } : never;
};

export type WorkerMethod = keyof WorkerMethods;

export type WorkerRequest = {
  [K in WorkerMethod]: { type: K; id: number; params: WorkerMethods[K]['params'] };
}[WorkerMethod];

/**
 * Asks the worker to stop request `id`: its handler's AbortSignal fires, and the call ends with a
 * 'cancelled' error (or its result, when it finished first). Any method can be cancelled, so this
 * needs no list of its own; a request still queued never starts.
 */
export interface WorkerCancel {
  type: 'cancel';
  id: number;
}

/** Everything the page posts to the worker: a call of WorkerMethods, or a cancel of one. */
export type WorkerMessage = WorkerRequest | WorkerCancel;

type WorkerResultMessage = {
  [K in WorkerMethod]: { type: 'result'; id: number; method: K; result: WorkerMethods[K]['result'] };
}[WorkerMethod];

/**
 * What the worker announces outside any call's answer, by type: the one table of announcements. The
 * client hands each to the listeners of its type (`onAnnouncement`), and `app/workerHost.ts` maps
 * every type to its store action in a table the compiler checks against this one.
 */
interface WorkerAnnouncements {
  /** The pack's towers moved to another backend after loading (WebGPU failed or was lost: WASM). */
  backend: { backend: BackendState };
  /** The detector's status changed after the pack loaded: it moved to WASM, or failed and photos are now described without it. */
  detector: { detector: DetectorStatus };
  /** The captioner failed on a photo after the pack loaded: photos keep their grounded captions from now on. */
  captioner: { captioner: CaptionerStatus };
  /** In-worker training of clip-map and the intent head, for the pack in use (see LocalHeadsStatus). */
  localHeads: { packId: string; status: LocalHeadsStatus };
  /** The pool's CLIP rows being computed after Ready (see PoolRowsStatus). */
  poolRows: { status: PoolRowsStatus };
}

export type WorkerAnnouncementType = keyof WorkerAnnouncements;

export type WorkerAnnouncement = { [K in WorkerAnnouncementType]: { type: K } & WorkerAnnouncements[K] }[WorkerAnnouncementType];

export type WorkerEvent =
  | WorkerResultMessage
  | { type: 'error'; id: number; code: EngineErrorCode | 'internal'; message: string }
  | { type: 'progress'; id: number; progress: FileProgress }
  | WorkerAnnouncement
  /** The worker is alive (heartbeat.ts); `busy`: it is working, so a long silence may follow. */
  | { type: 'beat'; busy: boolean };

export function isWorkerRequest(value: unknown): value is WorkerRequest {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['id'] === 'number' &&
    typeof v['type'] === 'string' &&
    Object.hasOwn(WORKER_METHODS, v['type']) &&
    typeof v['params'] === 'object' &&
    v['params'] !== null
  );
}

export function isWorkerCancel(value: unknown): value is WorkerCancel {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v['type'] === 'cancel' && typeof v['id'] === 'number';
}
