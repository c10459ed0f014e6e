import { type ConversationSlot, loadConversation as loadStored, putMessages } from '../../persistence/conversationDb';
import type { StoredElement, StoredMessage, StoredPhoto, StoredReply, StoredText, StoredVideo } from '../../persistence/storedMessages';
import type { AvsdModelId } from '../../worker/protocol';
import type { ChatMessage, MessageElement, PhotoElement, ReplyMeta, VideoElement, VisitorReference } from '../../shared/conversation';
import type { ResponseMethodId } from '../../worker/protocol';

/**
 * The chat's messages to and from the stored shape that persistence owns, field by field: what is on
 * disk changes only where this file and persistence/storedMessages.ts say so.
 */

/** Leaves out keys whose value is undefined, so records keep their shape (a missing caption stays missing). */
function compact<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

function photoToStored(p: PhotoElement): StoredPhoto {
  return compact({
    kind: 'image',
    imageId: p.imageId,
    name: p.name,
    width: p.width,
    height: p.height,
    caption: p.caption,
    captionSource: p.captionSource,
    captionConfident: p.captionConfident,
    captionHedged: p.captionHedged,
    groundedCaption: p.groundedCaption,
    detections: p.detections,
    check: p.check,
  });
}

function photoFromStored(p: StoredPhoto): PhotoElement {
  return compact({
    kind: 'image',
    imageId: p.imageId,
    name: p.name,
    width: p.width,
    height: p.height,
    caption: p.caption,
    captionSource: p.captionSource,
    captionConfident: p.captionConfident,
    captionHedged: p.captionHedged,
    groundedCaption: p.groundedCaption,
    detections: p.detections,
    check: p.check,
  });
}

function videoToStored(v: VideoElement): StoredVideo {
  return compact({
    kind: 'video',
    videoId: v.videoId,
    posterId: v.posterId,
    sheetId: v.sheetId,
    name: v.name,
    width: v.width,
    height: v.height,
    seconds: v.seconds,
    hasAudio: v.hasAudio,
    description: v.description,
    analysis: v.analysis,
  });
}

function videoFromStored(v: StoredVideo): VideoElement {
  return compact({
    kind: 'video',
    videoId: v.videoId,
    posterId: v.posterId,
    sheetId: v.sheetId,
    name: v.name,
    width: v.width,
    height: v.height,
    seconds: v.seconds,
    hasAudio: v.hasAudio,
    description: v.description,
    analysis: v.analysis,
  });
}

function elementToStored(e: MessageElement): StoredElement {
  if (e.kind === 'text') return { kind: 'text', text: e.text };
  if (e.kind === 'image') return photoToStored(e);
  if (e.kind === 'video') return videoToStored(e);
  return { kind: 'poolImage', key: e.key, alt: e.alt, url: e.url, poolId: e.poolId };
}

function elementFromStored(e: StoredElement): MessageElement {
  if (e.kind === 'text') return { kind: 'text', text: e.text };
  if (e.kind === 'image') return photoFromStored(e);
  if (e.kind === 'video') return videoFromStored(e);
  return { kind: 'poolImage', key: e.key, alt: e.alt, url: e.url, poolId: e.poolId };
}

function replyToStored(r: ReplyMeta): StoredReply {
  return compact({
    method: r.method,
    intentModel: r.intentModel,
    relevance: r.relevance,
    steps: r.steps,
    timings: r.timings,
    provider: r.provider,
    backend: r.backend,
    packName: r.packName,
    poolId: r.poolId,
    poolName: r.poolName,
    screened: r.screened,
  });
}

function replyFromStored(r: StoredReply): ReplyMeta {
  // A method id that this version no longer offers is shown by its id (see MessageList).
  return compact({
    method: r.method as ResponseMethodId,
    intentModel: r.intentModel,
    relevance: r.relevance,
    steps: r.steps,
    timings: r.timings,
    provider: r.provider,
    backend: r.backend,
    packName: r.packName,
    poolId: r.poolId,
    poolName: r.poolName,
    screened: r.screened,
  });
}

function referenceElementToStored(e: VisitorReference['elements'][number]): StoredText | StoredPhoto {
  return e.kind === 'text' ? { kind: 'text', text: e.text } : photoToStored(e);
}

function referenceElementFromStored(e: StoredText | StoredPhoto): VisitorReference['elements'][number] {
  return e.kind === 'text' ? { kind: 'text', text: e.text } : photoFromStored(e);
}

export function messageToStored(m: ChatMessage): StoredMessage {
  return compact({
    id: m.id,
    role: m.role,
    elements: m.elements.map(elementToStored),
    createdAt: m.createdAt,
    reply: m.reply && replyToStored(m.reply),
    reference: m.reference && { elements: m.reference.elements.map(referenceElementToStored), score: m.reference.score },
    videoAnswer: m.videoAnswer,
  });
}

export function messageFromStored(m: StoredMessage): ChatMessage {
  return compact({
    id: m.id,
    role: m.role,
    elements: m.elements.map(elementFromStored),
    createdAt: m.createdAt,
    reply: m.reply && replyFromStored(m.reply),
    reference: m.reference && { elements: m.reference.elements.map(referenceElementFromStored), score: m.reference.score },
    videoAnswer: m.videoAnswer && (m.videoAnswer.answeredFrom === 'frames' ? m.videoAnswer : { ...m.videoAnswer, model: m.videoAnswer.model as AvsdModelId }),
  });
}

export async function loadConversation(slot: ConversationSlot): Promise<{ conversationId: string; messages: ChatMessage[] }> {
  const { conversationId, messages } = await loadStored(slot);
  return { conversationId, messages: messages.map(messageFromStored) };
}

/** Stores these messages (new or changed) and the Blobs of photos new to them; see conversationDb.putMessages. */
export function saveMessages(
  slot: ConversationSlot,
  messages: readonly ChatMessage[],
  images: readonly { imageId: string; blob: Blob }[],
  conversationId?: string,
): Promise<string> {
  return putMessages(slot, messages.map(messageToStored), images, conversationId);
}
