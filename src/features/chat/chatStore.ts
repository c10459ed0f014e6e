import { create } from 'zustand';
import type { BackendState, PhotoCaption, PhotoDetections, ReplyResult, ReplyStep, ResponseMethodId, ResponseScore } from '../../worker/protocol';

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
  /** The detector's boxes (a few hundred bytes), kept so the Inspector can show them after a reload. */
  detections?: PhotoDetections;
}

export type MessageElement =
  | { kind: 'text'; text: string }
  | PhotoElement
  /** An image of the candidate pool the system replied with; url is null for a stored dataset's image. */
  | { kind: 'poolImage'; key: string; alt: string; url: string | null; poolId: string };

export interface ReplyMeta {
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
}

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

/** An image attached to the composer, checked by the worker, not yet sent. */
export interface DraftImage {
  imageId: string;
  name: string;
  blob: Blob;
  width: number;
  height: number;
}

export interface Notice {
  id: number;
  tone: 'error' | 'info';
  text: string;
  /** A button in the notice, such as "Undo". */
  action?: { label: string; run: () => void };
}

interface ChatState {
  messages: ChatMessage[];
  /** False until the saved conversation has been read back from IndexedDB. */
  hydrated: boolean;
  /** The composer's text, here so that undoing a turn can put its text back. */
  draftText: string;
  draftImages: DraftImage[];
  /** Images still being checked, so the composer can show it is busy. */
  checkingImages: number;
  awaitingReply: boolean;
  notices: Notice[];
}

let nextNoticeId = 1;

/** A photo with what the worker said about it; a photo it said nothing about is returned as it was. */
export function withCaption(photo: PhotoElement, caption: PhotoCaption | undefined): PhotoElement {
  if (!caption) return photo;
  const { detections: _, ...rest } = photo;
  return {
    ...rest,
    caption: caption.text,
    captionSource: caption.source,
    captionConfident: caption.confident,
    ...(caption.detections ? { detections: caption.detections } : {}),
  };
}

export const useChatStore = create<ChatState>()(() => ({
  messages: [],
  hydrated: false,
  draftText: '',
  draftImages: [],
  checkingImages: 0,
  awaitingReply: false,
  notices: [],
}));

export const chatActions = {
  hydrate(messages: ChatMessage[]) {
    useChatStore.setState({ messages, hydrated: true });
  },
  /** Adds the worker's captions (and the detector's boxes behind them) to the photos of a message, by image id. */
  setCaptions(messageId: string, captions: readonly PhotoCaption[]) {
    const byId = new Map(captions.map((c) => [c.imageId, c]));
    useChatStore.setState((s) => ({
      messages: s.messages.map((m) => (m.id !== messageId ? m : { ...m, elements: m.elements.map((e) => (e.kind === 'image' ? withCaption(e, byId.get(e.imageId)) : e)) })),
    }));
  },
  setReference(messageId: string, reference: VisitorReference) {
    useChatStore.setState((s) => ({ messages: s.messages.map((m) => (m.id === messageId ? { ...m, reference } : m)) }));
  },
  appendMessage(message: ChatMessage) {
    useChatStore.setState((s) => ({ messages: [...s.messages, message] }));
  },
  /** Replaces the whole list: undoing a turn, or taking an undo back. */
  setMessages(messages: ChatMessage[]) {
    useChatStore.setState({ messages });
  },
  clearConversation() {
    useChatStore.setState({ messages: [], draftImages: [] });
  },
  setDraftText(draftText: string) {
    useChatStore.setState({ draftText });
  },
  setDraftImages(draftImages: DraftImage[]) {
    useChatStore.setState({ draftImages });
  },
  addDraftImage(image: DraftImage) {
    useChatStore.setState((s) => ({ draftImages: [...s.draftImages, image] }));
  },
  removeDraftImage(imageId: string) {
    useChatStore.setState((s) => ({ draftImages: s.draftImages.filter((d) => d.imageId !== imageId) }));
  },
  clearDraftImages() {
    useChatStore.setState({ draftImages: [] });
  },
  setChecking(delta: number) {
    useChatStore.setState((s) => ({ checkingImages: Math.max(0, s.checkingImages + delta) }));
  },
  setAwaitingReply(awaitingReply: boolean) {
    useChatStore.setState({ awaitingReply });
  },
  notify(tone: Notice['tone'], text: string, action?: Notice['action']) {
    const notice: Notice = { id: nextNoticeId++, tone, text, ...(action ? { action } : {}) };
    useChatStore.setState((s) => ({ notices: [...s.notices.slice(-3), notice] }));
    return notice.id;
  },
  dismissNotice(id: number) {
    useChatStore.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
};
