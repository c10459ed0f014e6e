import type { BackendState } from '../engine/clip/clipEncoder';
import type { ResponseScore } from '../engine/response/evaluate';
import type { VisitorScreenCategory } from '../engine/safety/visitorScreen';

/**
 * The conversation as IndexedDB keeps it. Persistence owns this shape: the page maps its messages to
 * and from it (features/chat/storedConversation.ts), so a change in the UI cannot change what is on
 * disk without a change here. Fields added later are optional, so older records still read.
 */
interface StoredDetections {
  width: number;
  height: number;
  objects: { label: string; score: number; box: { x1: number; y1: number; x2: number; y2: number } }[];
}

export interface StoredText {
  kind: 'text';
  text: string;
}

export interface StoredPhoto {
  kind: 'image';
  imageId: string;
  name: string;
  width: number;
  height: number;
  caption?: string;
  captionSource?: 'grounded' | 'image-encoder' | 'captioner';
  captionConfident?: boolean;
  captionHedged?: true;
  /** With a captioner: the grounded caption it replaced. */
  groundedCaption?: string;
  detections?: StoredDetections;
  check?: 'fit' | 'unfit' | 'unchecked';
}

interface StoredPoolImage {
  kind: 'poolImage';
  key: string;
  alt: string;
  /** null for an image of a dataset stored in this browser. */
  url: string | null;
  poolId: string;
}

/** A shared video; its Blobs (file, poster, frame sheet) are stored by id like photos. Written as the chat gives it. */
export interface StoredVideo {
  kind: 'video';
  videoId: string;
  posterId: string;
  sheetId: string;
  name: string;
  width: number;
  height: number;
  seconds: number;
  hasAudio: boolean;
  description?: string;
  analysis?: {
    description: string;
    features: { video: number[]; audio: number[] };
    frames: { time: number; detections: StoredDetections | null; shapes: { label: string; x: number; y: number }[] }[];
    timeline: { frameSeconds: number; loudnessDb: number[]; speech: number[] } | null;
    speechChecked: boolean;
    detectorUsed: boolean;
    shown?: { drawn: boolean; answer: string };
    /** The photo check of its frames; absent in videos watched before it. */
    check?: 'fit' | 'unfit' | 'unchecked';
  };
}

type StoredVideoAnswer = { videoId: string; question: string; totalMs: number } & (
  { answeredFrom: 'frames' } | { answeredFrom?: 'ranker'; model: string; candidates: { text: string; score: number }[]; candidateCount: number }
);

export type StoredElement = StoredText | StoredPhoto | StoredPoolImage | StoredVideo;

interface StoredReplyStep {
  probabilities: [number, number, number];
  intent: 'text' | 'image' | 'stop';
  candidates: { kind: 'text' | 'poolImage'; label: string; key?: string; url?: string | null; alt?: string; score: number }[];
}

export interface StoredReply {
  /** A response method id; one a later version no longer has is still shown by its id. */
  method: string;
  intentModel: 'majority' | 'head';
  relevance: number;
  steps: StoredReplyStep[];
  /** detectMs is absent in replies saved before photos went through the object detector. */
  timings: { decodeMs: number; detectMs?: number; encodeMs: number; captionMs: number; intentMs: number; rankMs: number; totalMs: number };
  provider: 'webgpu' | 'wasm';
  backend?: BackendState;
  packName?: string;
  poolId?: string;
  poolName?: string;
  screened?: VisitorScreenCategory;
}

interface StoredReference {
  elements: (StoredText | StoredPhoto)[];
  score: ResponseScore;
}

export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  elements: StoredElement[];
  createdAt: number;
  reply?: StoredReply;
  reference?: StoredReference;
  videoAnswer?: StoredVideoAnswer;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Boxes as this version stores them; anything else (a damaged record) is not shown rather than drawn wrong. */
function isPhotoDetections(value: unknown): value is StoredDetections {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  if (!finite(d['width']) || !finite(d['height']) || d['width'] <= 0 || d['height'] <= 0 || !Array.isArray(d['objects'])) return false;
  return d['objects'].every((o: unknown) => {
    if (typeof o !== 'object' || o === null) return false;
    const { label, score, box } = o as Record<string, unknown>;
    if (typeof label !== 'string' || !finite(score) || typeof box !== 'object' || box === null) return false;
    const b = box as Record<string, unknown>;
    return finite(b['x1']) && finite(b['y1']) && finite(b['x2']) && finite(b['y2']);
  });
}

function readPhoto(photo: StoredPhoto): StoredPhoto {
  if (photo.detections === undefined || isPhotoDetections(photo.detections)) return photo;
  const { detections: _, ...rest } = photo;
  return rest;
}

function readElement<E extends StoredElement>(element: E): E {
  return element.kind === 'image' ? (readPhoto(element) as E) : element;
}

/**
 * The message list as IndexedDB gave it back. Conversations saved by older versions (photos with no
 * caption source, no boxes; replies with no detect time) load as they are; boxes that are not in the
 * shape this version writes are dropped, so the Inspector never draws a damaged record.
 */
export function readStoredMessages(saved: unknown): StoredMessage[] {
  if (!Array.isArray(saved)) return [];
  return (saved as StoredMessage[]).map((m) => {
    if (!Array.isArray(m.elements)) return m;
    const elements = m.elements.map(readElement);
    const reference = m.reference && Array.isArray(m.reference.elements) ? { ...m.reference, elements: m.reference.elements.map(readElement) } : m.reference;
    return { ...m, elements, ...(reference ? { reference } : {}) };
  });
}
