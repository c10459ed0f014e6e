/**
 * The conversation as IndexedDB keeps it: the chat's own messages (ChatMessage, shared/conversation.ts),
 * one shape on the page and on disk, so a field added there is stored with no edit here (issue 40).
 * Persistence reads only what it needs of a message, declared below; the chat's messages have it and
 * more. Fields added later are optional, so records written by older versions still read; what a
 * version no longer knows (a response method it dropped) is kept and shown by its id.
 */

/** What persistence reads of an element: its kind, and the ids of the Blobs it shows. */
type StoredElement =
  | { kind: 'image'; imageId: string; detections?: unknown }
  | { kind: 'video'; videoId: string; posterId: string; sheetId: string }
  | { kind: 'text' | 'poolImage' };

/** What persistence reads of a message: its id and time, and the Blobs its elements and its reference show. */
export interface StoredMessage {
  id: string;
  createdAt: number;
  elements: readonly StoredElement[];
  reference?: { elements: readonly StoredElement[] };
}

interface StoredDetections {
  width: number;
  height: number;
  objects: { label: string; score: number; box: { x1: number; y1: number; x2: number; y2: number } }[];
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

function readPhoto<P extends Extract<StoredElement, { kind: 'image' }>>(photo: P): P {
  if (photo.detections === undefined || isPhotoDetections(photo.detections)) return photo;
  const { detections: _, ...rest } = photo;
  return rest as P;
}

function readElement<E extends StoredElement>(element: E): E {
  return element.kind === 'image' ? (readPhoto(element) as E) : element;
}

/**
 * A reply about a video as versions before the one turn path stored it: no `reply`, and beside the
 * elements a `videoAnswer` with the time it took. Read into the reply's one shape (`reply.video`, with
 * `totalMs` beside it); the oldest of these had no answeredFrom, and were all ranked.
 */
function readLegacyVideoAnswer<M extends StoredMessage>(message: M): M {
  const record = message as M & { videoAnswer?: { totalMs?: unknown; answeredFrom?: unknown }; reply?: unknown };
  if (typeof record.videoAnswer !== 'object' || record.videoAnswer === null || record.reply !== undefined) return message;
  const { videoAnswer, ...rest } = record;
  const { totalMs, answeredFrom, ...how } = videoAnswer;
  return { ...rest, reply: { video: { ...how, answeredFrom: answeredFrom ?? 'ranker' }, totalMs: finite(totalMs) ? totalMs : 0 } } as unknown as M;
}

/**
 * The message list as IndexedDB gave it back. Conversations saved by older versions (photos with no
 * caption source, no boxes; replies with no detect time) load as they are, apart from their answers
 * about videos (readLegacyVideoAnswer); boxes that are not in the
 * shape this version writes are dropped, so the Inspector never draws a damaged record.
 */
export function readStoredMessages<M extends StoredMessage>(saved: unknown): M[] {
  if (!Array.isArray(saved)) return [];
  return (saved as M[]).map((saved) => {
    const m = readLegacyVideoAnswer(saved);
    if (!Array.isArray(m.elements)) return m;
    const elements = m.elements.map(readElement);
    const reference = m.reference && Array.isArray(m.reference.elements) ? { ...m.reference, elements: m.reference.elements.map(readElement) } : m.reference;
    return { ...m, elements, ...(reference ? { reference } : {}) };
  });
}
