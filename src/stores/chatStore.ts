import { create } from 'zustand';

export type MessageElement =
  | { kind: 'text'; text: string }
  | { kind: 'image'; imageId: string; name: string; width: number; height: number };

export interface ReplyMeta {
  score: number;
  candidates: { text: string; score: number }[];
  totalMs: number;
  provider: 'webgpu' | 'wasm';
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  elements: MessageElement[];
  createdAt: number;
  reply?: ReplyMeta;
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
}

interface ChatState {
  messages: ChatMessage[];
  /** False until the saved conversation has been read back from IndexedDB. */
  hydrated: boolean;
  draftImages: DraftImage[];
  /** Images still being checked, so the composer can show it is busy. */
  checkingImages: number;
  awaitingReply: boolean;
  notices: Notice[];
}

let nextNoticeId = 1;

export const useChatStore = create<ChatState>()(() => ({
  messages: [],
  hydrated: false,
  draftImages: [],
  checkingImages: 0,
  awaitingReply: false,
  notices: [],
}));

export const chatActions = {
  hydrate(messages: ChatMessage[]) {
    useChatStore.setState({ messages, hydrated: true });
  },
  appendMessage(message: ChatMessage) {
    useChatStore.setState((s) => ({ messages: [...s.messages, message] }));
  },
  clearConversation() {
    useChatStore.setState({ messages: [], draftImages: [] });
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
  notify(tone: Notice['tone'], text: string) {
    const notice = { id: nextNoticeId++, tone, text };
    useChatStore.setState((s) => ({ notices: [...s.notices.slice(-3), notice] }));
    return notice.id;
  },
  dismissNotice(id: number) {
    useChatStore.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
};
