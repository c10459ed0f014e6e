import { errorMessage } from '../../engine/errors';
import {
  type ConversationChange,
  type ConversationSlot,
  bytesToStore,
  forgetSessionImages,
  loadConversation,
  onOtherTabChange,
  rememberSessionImages,
  removeMessages,
  restorePreviousConversation,
  startConversation,
} from '../../persistence/conversationDb';
import { fullStorageAdvice, isQuotaError } from '../../persistence/storageSpace';
import { keepUnsavedTurns, readUnsavedTurns } from '../../persistence/unsavedTurns';
import type { ChatMessage } from '../../shared/conversation';
import { noticeActions } from '../../shared/stores/noticeStore';
import { chatActions, useChatStore } from './chatStore';
import { saveMessages, storable } from './storedConversation';

interface PendingSave {
  message: ChatMessage;
  conversationId: string | null;
}

/** While a failed save leaves turns unsaved, a retry every RETRY_MS: they go in the next write that succeeds, with no one pressing Retry. */
const RETRY_MS = 30_000;

/**
 * Keeps the chat's messages in IndexedDB: which conversation this tab shows (its slot and id), saves
 * that never lose a turn (a failed one stays on screen, queued, with a Retry), and other tabs' writes
 * shown here as they happen. Its state is its own: the page uses one (`conversationKeeper`), and a
 * test can make another.
 */
export class ConversationKeeper {
  private slot: ConversationSlot = 'main';
  private conversationId: string | null = null;
  /** Messages whose save failed, by id: kept on screen and written again by Retry or the next save. */
  private readonly unsaved = new Map<string, PendingSave>();
  private readonly unsavedImages = new Map<string, { imageId: string; blob: Blob }>();
  private failureNotice: number | null = null;
  private keptTurnsTaken = false;
  /** Whether this tab's sessionStorage may hold turns: only then does a change of the queue rewrite it. */
  private sessionHoldsTurns = false;
  private keeping: Promise<unknown> = Promise.resolve();
  private flushing: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setInterval> | null = null;

  currentConversationId(): string | null {
    return this.conversationId;
  }

  /** Whether the conversation shown is kiosk mode's own: booth strictness is always on there. */
  inKioskConversation(): boolean {
    return this.slot === 'kiosk';
  }

  async restoreConversation(nextSlot: ConversationSlot = this.slot): Promise<void> {
    this.slot = nextSlot;
    chatActions.setKiosk(this.slot === 'kiosk');
    const keptOverReload = this.takeBackKeptTurns();
    try {
      const loaded = await loadConversation<ChatMessage>(this.slot);
      this.conversationId = loaded.conversationId;
      chatActions.hydrate(this.withUnsaved(loaded.messages));
    } catch (error) {
      chatActions.hydrate([...this.unsaved.values()].map((p) => p.message));
      noticeActions.notify('error', `The saved conversation could not be read (${errorMessage(error)}); starting a new one.`);
    }
    if (keptOverReload > 0) {
      noticeActions.notify(
        'info',
        `${keptOverReload === 1 ? 'A message' : `${keptOverReload} messages`} that could not be saved before the page was reloaded ${keptOverReload === 1 ? 'is' : 'are'} back on screen: this tab kept ${keptOverReload === 1 ? 'it' : 'them'} in its session storage. Saving again now.`,
      );
      void this.flush();
    }
  }

  /**
   * Once per page: the turns an earlier page of this tab could not save (kept in sessionStorage) join
   * the queue again, with their photos; returns how many came back.
   */
  private takeBackKeptTurns(): number {
    if (this.keptTurnsTaken) return 0;
    this.keptTurnsTaken = true;
    const kept = readUnsavedTurns<ChatMessage>(this.slot);
    for (const t of kept.turns) if (!this.unsaved.has(t.message.id)) this.unsaved.set(t.message.id, { message: t.message, conversationId: t.conversationId });
    for (const image of kept.images) this.unsavedImages.set(image.imageId, image);
    rememberSessionImages(kept.images);
    this.sessionHoldsTurns = kept.turns.length > 0;
    return kept.turns.length;
  }

  /** Mirrors the save queue into this tab's sessionStorage (or clears it once empty); in order, one write at a time. */
  private keepQueueOverReload(): Promise<Awaited<ReturnType<typeof keepUnsavedTurns>>> {
    const next = this.keeping.then(() => {
      this.sessionHoldsTurns = this.unsaved.size > 0;
      return keepUnsavedTurns(
        [...this.unsaved.values()].map((p) => ({ slot: this.slot, conversationId: p.conversationId, message: storable(p.message) })),
        [...this.unsavedImages.values()],
      );
    });
    this.keeping = next.catch(() => undefined);
    return next.catch(() => null);
  }

  /** Stored messages with the ones this tab could not save yet, in time order. */
  private withUnsaved(stored: ChatMessage[]): ChatMessage[] {
    const ids = new Set(stored.map((m) => m.id));
    const mine = [...this.unsaved.values()].filter((p) => p.conversationId === this.conversationId && !ids.has(p.message.id)).map((p) => p.message);
    return [...stored, ...mine].sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Saves new or changed messages; `into` names the conversation they belong to (a reply goes where its
   * turn went). Resolves to that conversation's id; a failure is reported here and retried later.
   */
  async saveChanged(
    messages: readonly ChatMessage[],
    images: readonly { imageId: string; blob: Blob }[],
    into: string | null = this.conversationId,
  ): Promise<void> {
    for (const message of messages) this.unsaved.set(message.id, { message, conversationId: into });
    for (const image of images) this.unsavedImages.set(image.imageId, image);
    rememberSessionImages(images);
    await this.flush();
  }

  /** Writes everything not yet saved, grouped by conversation; one notice says what failed and what to do. */
  private flush(): Promise<void> {
    this.flushing = (this.flushing ?? Promise.resolve()).then(async () => {
      const batch = [...this.unsaved.values()];
      if (batch.length === 0) return;
      const images = [...this.unsavedImages.values()];
      const groups = new Map<string | null, ChatMessage[]>();
      for (const p of batch) groups.set(p.conversationId, [...(groups.get(p.conversationId) ?? []), p.message]);
      try {
        let first = true;
        for (const [target, messages] of groups) {
          const written = await saveMessages(this.slot, messages, first ? images : [], target ?? undefined);
          first = false;
          if (target === null && this.conversationId === null) this.conversationId = written;
        }
        for (const p of batch) if (this.unsaved.get(p.message.id) === p) this.unsaved.delete(p.message.id);
        for (const i of images) this.unsavedImages.delete(i.imageId);
        if (this.sessionHoldsTurns) void this.keepQueueOverReload();
        if (this.failureNotice !== null) {
          noticeActions.dismiss(this.failureNotice);
          this.failureNotice = null;
          noticeActions.notify('info', 'Saved: every turn on screen is stored again.');
        }
      } catch (error) {
        await this.reportSaveFailure(
          error,
          batch.map((p) => p.message),
          images,
        );
      }
    });
    return this.flushing;
  }

  private async reportSaveFailure(error: unknown, messages: ChatMessage[], images: { blob: Blob }[]): Promise<void> {
    const turns = messages.length === 1 ? 'This turn is' : `${messages.length} messages are`;
    const kept = await this.keepQueueOverReload();
    const photosLeftOut = kept?.imagesLeftOut.length ?? 0;
    const overReload =
      kept === null
        ? ' This tab could not keep them for a reload either: do not reload before they are saved, or export the conversation (Conversation tools) first.'
        : ` Until then this tab keeps them in its session storage, so a reload does not lose them${photosLeftOut > 0 ? ` (except ${photosLeftOut === 1 ? 'a photo' : `${photosLeftOut} photos`}, too large to keep there)` : ''}.`;
    const why = isQuotaError(error)
      ? `the browser's storage for this page is full. ${await fullStorageAdvice(bytesToStore(messages.map(storable), images))}${overReload}`
      : `${errorMessage(error)}. Press Retry; if it keeps failing, export the conversation (Conversation tools).${overReload}`;
    if (this.failureNotice !== null) noticeActions.dismiss(this.failureNotice);
    this.failureNotice = noticeActions.notify('error', `${turns} on screen but not saved yet: ${why}`, { label: 'Retry', run: () => void this.flush() });
    this.retryWhileUnsaved();
  }

  async removeStored(conversation: string, messageIds: readonly string[], imageIds: readonly string[]): Promise<void> {
    for (const id of messageIds) this.unsaved.delete(id);
    if (this.sessionHoldsTurns) void this.keepQueueOverReload();
    await removeMessages(this.slot, conversation, messageIds, imageIds);
  }

  /** A new, empty conversation in this tab's slot; the old one is kept for Undo unless a kiosk reset says otherwise. */
  async startFresh(keepForUndo: boolean): Promise<{ previousId: string; conversationId: string }> {
    // Turns not saved yet stay queued for the conversation they belong to, so Undo brings them back
    // with it; a kiosk reset keeps nothing.
    if (!keepForUndo) {
      for (const [id, p] of this.unsaved) if (p.conversationId === this.conversationId) this.unsaved.delete(id);
      forgetSessionImages();
      if (this.sessionHoldsTurns) void this.keepQueueOverReload();
    }
    const ids = await startConversation(this.slot, keepForUndo);
    this.conversationId = ids.conversationId;
    return ids;
  }

  async restorePrevious(previousId: string, expectedCurrentId: string): Promise<boolean> {
    const restored = await restorePreviousConversation(this.slot, previousId, expectedCurrentId);
    if (restored) await this.restoreConversation();
    return restored;
  }

  private retryWhileUnsaved(): void {
    this.retryTimer ??= setInterval(() => {
      if (this.failureNotice === null || this.unsaved.size === 0) {
        clearInterval(this.retryTimer!);
        this.retryTimer = null;
        return;
      }
      void this.flush();
    }, RETRY_MS);
  }

  /**
   * Whether closing the tab should ask first: a failed save leaves turns unsaved, and session storage
   * keeps them over a reload but goes with the tab. (A save in flight, a few milliseconds, does not ask.)
   */
  holdsUnsavedTurns(): boolean {
    return this.failureNotice !== null && this.unsaved.size > 0;
  }

  /** Shows what other tabs write: their turns join this list, and a new conversation there shows here. */
  followOtherTabs(): () => void {
    return onOtherTabChange((change) => {
      this.showOtherTabChange(change).catch((error: unknown) =>
        noticeActions.notify(
          'error',
          `Another tab of this page changed the conversation, but this tab could not read it (${errorMessage(error)}). Reload the page to see it; what is stored is kept.`,
        ),
      );
    });
  }

  private async showOtherTabChange(change: ConversationChange): Promise<void> {
    if (change.slot !== this.slot) return;
    const before = useChatStore.getState().messages.length;
    const loaded = await loadConversation<ChatMessage>(this.slot);
    this.conversationId = loaded.conversationId;
    chatActions.setMessages(this.withUnsaved(loaded.messages));
    if (change.kind === 'new-conversation' && before > 0)
      noticeActions.notify('info', 'Another tab of this page started a new conversation, so this tab shows it too. That tab offers Undo.');
    if (change.kind === 'restored') noticeActions.notify('info', 'Another tab took back its new conversation: the earlier conversation is back.');
  }
}

/** The page's one keeper; the functions below are its methods, for the chat's controllers. */
const conversationKeeper = new ConversationKeeper();

export const currentConversationId = () => conversationKeeper.currentConversationId();
export const inKioskConversation = () => conversationKeeper.inKioskConversation();
export const restoreConversation = (nextSlot?: ConversationSlot) => conversationKeeper.restoreConversation(nextSlot);
export const saveChanged = (messages: readonly ChatMessage[], images: readonly { imageId: string; blob: Blob }[], into?: string | null) =>
  conversationKeeper.saveChanged(messages, images, into);
export const removeStored = (conversation: string, messageIds: readonly string[], imageIds: readonly string[]) =>
  conversationKeeper.removeStored(conversation, messageIds, imageIds);
export const startFresh = (keepForUndo: boolean) => conversationKeeper.startFresh(keepForUndo);
export const restorePrevious = (previousId: string, expectedCurrentId: string) => conversationKeeper.restorePrevious(previousId, expectedCurrentId);
export const followOtherTabs = () => conversationKeeper.followOtherTabs();

/** Asks before the tab is closed while a failed save leaves turns unsaved (ConversationKeeper.holdsUnsavedTurns). */
export function askBeforeClosingWithUnsavedTurns(): void {
  window.addEventListener('beforeunload', (event) => {
    if (!conversationKeeper.holdsUnsavedTurns()) return;
    event.preventDefault();
    // Older Chromium versions ask only when returnValue is set.
    event.returnValue = '';
  });
}
