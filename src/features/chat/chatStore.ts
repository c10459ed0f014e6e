import { create } from 'zustand';
import type { PhotoCheckVerdict } from '../../engine/perception/photoCheck';
import type { ChatMessage, PhotoElement, VideoElement, VisitorReference } from '../../shared/conversation';
import type { DecodedVideo } from './videoDecoder';
import type { PhotoCaption } from '../../protocol/protocol';

/** An image attached to the composer, checked by the worker, not yet sent. */
export interface DraftImage {
  imageId: string;
  name: string;
  blob: Blob;
  width: number;
  height: number;
}

/** A video attached to the composer, decoded in the page, not yet sent. */
export interface DraftVideo {
  videoId: string;
  posterId: string;
  sheetId: string;
  name: string;
  file: Blob;
  decoded: DecodedVideo;
}

interface ChatState {
  messages: ChatMessage[];
  /** False until the saved conversation has been read back from IndexedDB. */
  hydrated: boolean;
  /** The composer's text, here so that undoing a turn can put its text back. */
  draftText: string;
  draftImages: DraftImage[];
  draftVideo: DraftVideo | null;
  /** A video is being decoded, so the composer can show it is busy. */
  decodingVideo: boolean;
  /** An export is being put together: the Export button says so and takes no second one meanwhile. */
  exporting: boolean;
  /** Images still being checked, so the composer can show it is busy. */
  checkingImages: number;
  /** Send was pressed while photos were still being checked: the turn goes once they are. */
  sendingWhenChecked: boolean;
  awaitingReply: boolean;
  /** The conversation shown is kiosk mode's own: photos are shown only once the photo check passed them. */
  kiosk: boolean;
  /** Counts "New conversation" clicks, so a reply still in flight knows its conversation is gone. */
  conversationEpoch: number;
  /** Photos still being checked, each resolving to how many of its files could not be used; Send waits for them. */
  pendingChecks: ReadonlySet<Promise<number>>;
  /** The one change the "Undo" button of a notice can still take back; withdrawn once the conversation changes again. */
  undoOffer: UndoOffer | null;
  /** Stops the video being watched (its Cancel button); null when none is. */
  watchingVideo: AbortController | null;
}

/** A change a notice's Undo can take back: the notice, the messages as the change left them, and how to take it back. */
export interface UndoOffer {
  noticeId: number;
  after: ChatMessage[];
  takeBack: () => Promise<void>;
}

/** A photo with what the worker said about it; a photo it said nothing about is returned as it was. */
export function withCaption(photo: PhotoElement, caption: PhotoCaption | undefined): PhotoElement {
  if (!caption) return photo;
  const { detections: _, ...rest } = photo;
  return {
    ...rest,
    caption: caption.text,
    captionSource: caption.source,
    captionConfident: caption.confident,
    ...(caption.hedged ? { captionHedged: true as const } : {}),
    ...(caption.replaced ? { groundedCaption: caption.replaced.text } : {}),
    ...(caption.detections ? { detections: caption.detections } : {}),
  };
}

export const useChatStore = create<ChatState>()(() => ({
  messages: [],
  hydrated: false,
  draftText: '',
  draftImages: [],
  draftVideo: null,
  decodingVideo: false,
  exporting: false,
  checkingImages: 0,
  sendingWhenChecked: false,
  awaitingReply: false,
  kiosk: false,
  conversationEpoch: 0,
  pendingChecks: new Set(),
  undoOffer: null,
  watchingVideo: null,
}));

export const chatActions = {
  /** A new conversation begins: replies still in flight for the old one are dropped. */
  nextConversationEpoch() {
    useChatStore.setState((s) => ({ conversationEpoch: s.conversationEpoch + 1 }));
  },
  /** Tracks a photo check until it settles; Send waits for those still pending. */
  trackCheck(checking: Promise<number>) {
    useChatStore.setState((s) => ({ pendingChecks: new Set([...s.pendingChecks, checking]) }));
    void checking.finally(() => useChatStore.setState((s) => ({ pendingChecks: new Set([...s.pendingChecks].filter((c) => c !== checking)) })));
  },
  setUndoOffer(undoOffer: UndoOffer | null) {
    useChatStore.setState({ undoOffer });
  },
  /** A video is being watched until `done` is called; its Cancel fires `abort`. */
  watchingVideo(abort: AbortController): () => void {
    useChatStore.setState({ watchingVideo: abort });
    return () => {
      if (useChatStore.getState().watchingVideo === abort) useChatStore.setState({ watchingVideo: null });
    };
  },
  hydrate(messages: ChatMessage[]) {
    useChatStore.setState({ messages, hydrated: true });
  },
  setKiosk(kiosk: boolean) {
    useChatStore.setState({ kiosk });
  },
  /** The photo check's verdict on the photos of a message, by image id. */
  setPhotoChecks(messageId: string, checks: readonly { imageId: string; verdict: PhotoCheckVerdict }[]) {
    if (checks.length === 0) return;
    const byId = new Map(checks.map((c) => [c.imageId, c.verdict]));
    useChatStore.setState((s) => ({
      messages: s.messages.map((m) =>
        m.id !== messageId
          ? m
          : { ...m, elements: m.elements.map((e) => (e.kind === 'image' && byId.has(e.imageId) ? { ...e, check: byId.get(e.imageId)! } : e)) },
      ),
    }));
  },
  /** Adds the worker's captions (and the detector's boxes behind them) to the photos of a message, by image id. */
  setCaptions(messageId: string, captions: readonly PhotoCaption[]) {
    const byId = new Map(captions.map((c) => [c.imageId, c]));
    useChatStore.setState((s) => ({
      messages: s.messages.map((m) =>
        m.id !== messageId ? m : { ...m, elements: m.elements.map((e) => (e.kind === 'image' ? withCaption(e, byId.get(e.imageId)) : e)) },
      ),
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
    useChatStore.setState({ messages: [], draftImages: [], draftVideo: null });
  },
  setDraftVideo(draftVideo: DraftVideo | null) {
    useChatStore.setState({ draftVideo });
  },
  setDecodingVideo(decodingVideo: boolean) {
    useChatStore.setState({ decodingVideo });
  },
  setExporting(exporting: boolean) {
    useChatStore.setState({ exporting });
  },
  /** Replaces a video element of a message (its description and analysis arrived), by video id. */
  updateVideo(messageId: string, video: VideoElement) {
    useChatStore.setState((s) => ({
      messages: s.messages.map((m) =>
        m.id !== messageId ? m : { ...m, elements: m.elements.map((e) => (e.kind === 'video' && e.videoId === video.videoId ? video : e)) },
      ),
    }));
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
  setSendingWhenChecked(sendingWhenChecked: boolean) {
    useChatStore.setState({ sendingWhenChecked });
  },
  setAwaitingReply(awaitingReply: boolean) {
    useChatStore.setState({ awaitingReply });
  },
};

/** Calls onActivity whenever the conversation moves: a message is added, or a reply arrives. Returns the unsubscribe. */
export function onConversationActivity(onActivity: () => void): () => void {
  return useChatStore.subscribe((s, prev) => {
    if (s.messages.length > prev.messages.length || (prev.awaitingReply && !s.awaitingReply)) onActivity();
  });
}
