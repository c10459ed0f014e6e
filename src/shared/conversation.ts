import type {
  BackendState,
  PhotoCaption,
  PhotoDetections,
  ReplyResult,
  ReplyStep,
  ResponseMethodId,
  ResponseScore,
  VideoAnalyzed,
  VideoReply,
} from '../protocol/protocol';
import type { VisitorScreenCategory } from '../engine/safety/visitorScreen';
import type { PhotoCheckVerdict } from '../engine/perception/photoCheck';

/**
 * The conversation as the page shows it and as IndexedDB keeps it: one shape. Shared because the chat
 * writes it, the inspector and the export read it, and persistence stores it as it is (issue 40),
 * reading only what its StoredMessage declares.
 */

/**
 * A photo the person shared. What the worker said about it arrives with the reply; conversations
 * saved by older versions have the caption alone, or nothing.
 */
export interface PhotoElement {
  kind: 'image';
  imageId: string;
  name: string;
  width: number;
  height: number;
  /** Shown under the photo and used as its alt text. */
  caption?: string;
  /** Where the caption came from: the object detector's boxes, or the image encoder alone (no detector). */
  captionSource?: PhotoCaption['source'];
  /** False when the detector found nothing with confidence and the caption says so. */
  captionConfident?: boolean;
  /** The caption only guesses at a weak detection ("Maybe a dog."), and is shown as a guess. */
  captionHedged?: true;
  /** With a captioning model: the grounded caption its sentence replaced, shown in the Inspector for comparison. */
  groundedCaption?: string;
  /** The detector's boxes (a few hundred bytes), kept so the Inspector can show them after a reload. */
  detections?: PhotoDetections;
  /** What the photo check said: an unfit photo is blurred (hidden in kiosk mode); absent until its reply came. */
  check?: PhotoCheckVerdict;
}

/** Frames per row of a shared video's frame sheet (the page draws it, the Inspector reads it). */
export const VIDEO_SHEET_COLUMNS = 4;

/**
 * A video the person shared. Its file, its poster frame and a contact sheet of its sampled frames are
 * stored as Blobs by id, like photos; what the worker said about it arrives once it has been watched.
 */
export interface VideoElement {
  kind: 'video';
  videoId: string;
  posterId: string;
  /** The sampled frames side by side (VIDEO_SHEET_COLUMNS per row), for the Inspector. */
  sheetId: string;
  name: string;
  width: number;
  height: number;
  seconds: number;
  hasAudio: boolean;
  /** Shown under the video and used as its alt text. */
  description?: string;
  /** `shown` is absent from analyses saved by versions before it: their questions all go to the rankers. */
  analysis?: Omit<VideoAnalyzed, 'problems' | 'timings' | 'shown'> & { shown?: VideoAnalyzed['shown'] };
}

/** On a reply about a video: which video, and how the answer was found (said from the frames, or ranked). */
export type VideoAnswerMeta = VideoReply;

export type MessageElement =
  | { kind: 'text'; text: string }
  | PhotoElement
  | VideoElement
  /** An image of the candidate pool the system replied with; url is null for a stored dataset's image. */
  | { kind: 'poolImage'; key: string; alt: string; url: string | null; poolId: string };

/** A reply of the MMDialog pipeline from the pool, or a line written for the demo to a screened message. */
export interface PoolReplyMeta {
  method: ResponseMethodId;
  intentModel: 'majority' | 'head';
  /** Cosine between the latest turn and the reply's first element (not MM-Relevance). */
  relevance: number;
  steps: ReplyStep[];
  /** detectMs is absent in replies saved before photos went through the object detector. */
  timings: Omit<ReplyResult['timings'], 'detectMs'> & { detectMs?: number };
  provider: 'webgpu' | 'wasm';
  /** Where the reply was made, for the inspector (absent in replies saved by older versions). */
  backend?: BackendState;
  packName?: string;
  poolId?: string;
  poolName?: string;
  /** Set when the visitor's message was screened and answered with a line written for the demo: the category only, never the text. */
  screened?: VisitorScreenCategory;
  video?: undefined;
}

/**
 * A reply to a turn about a video (videoTurn.ts): no pool, method or intent module made it, so it
 * keeps how it was found and the time it took. Replies saved before video turns went through the
 * reply path carried this as the message's `videoAnswer`; persistence reads those into this shape.
 */
export interface VideoReplyMeta {
  video: VideoAnswerMeta;
  totalMs: number;
  provider?: 'webgpu' | 'wasm';
  packName?: string;
  screened?: undefined;
}

/** How a reply was made: one field on every reply, whatever made it. */
export type ReplyMeta = PoolReplyMeta | VideoReplyMeta;

/** What the visitor would have answered instead of a reply: their text first, then their photos, as one response. */
export interface VisitorReference {
  elements: (Extract<MessageElement, { kind: 'text' }> | Extract<MessageElement, { kind: 'image' }>)[];
  /** The reply scored against it by the engine (scoreResponse): MM-Relevance and Intent F1; no Recall without negatives. */
  score: ResponseScore;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  elements: MessageElement[];
  createdAt: number;
  reply?: ReplyMeta;
  /** On a reply: the visitor's own answer, which MM-Relevance is computed against. */
  reference?: VisitorReference;
}
