import { errorMessage } from '../../engine/errors';
import {
  type ConversationChange,
  type ConversationSlot,
  bytesToStore,
  forgetSessionImages,
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
import { loadConversation, messageFromStored, messageToStored, saveMessages } from './storedConversation';

/**
 * Keeps the chat's messages in IndexedDB: which conversation this tab shows (its slot and id), saves
 * that never lose a turn (a failed one stays on screen, queued, with a Retry), and other tabs' writes
 * shown here as they happen.
 */
let slot: ConversationSlot = 'main';
let conversationId: string | null = null;

interface PendingSave {
  message: ChatMessage;
  conversationId: string | null;
}
/** Messages whose save failed, by id: kept on screen and written again by Retry or the next save. */
const unsaved = new Map<string, PendingSave>();
const unsavedImages = new Map<string, { imageId: string; blob: Blob }>();
let failureNotice: number | null = null;

export const currentConversationId = () => conversationId;

/** Whether the conversation shown is kiosk mode's own: booth strictness is always on there. */
export function inKioskConversation(): boolean {
  return slot === 'kiosk';
}

export async function restoreConversation(nextSlot: ConversationSlot = slot): Promise<void> {
  slot = nextSlot;
  chatActions.setKiosk(slot === 'kiosk');
  const keptOverReload = takeBackKeptTurns();
  try {
    const loaded = await loadConversation(slot);
    conversationId = loaded.conversationId;
    chatActions.hydrate(withUnsaved(loaded.messages));
  } catch (error) {
    chatActions.hydrate([...unsaved.values()].map((p) => p.message));
    noticeActions.notify('error', `The saved conversation could not be read (${errorMessage(error)}); starting a new one.`);
  }
  if (keptOverReload > 0) {
    noticeActions.notify(
      'info',
      `${keptOverReload === 1 ? 'A message' : `${keptOverReload} messages`} that could not be saved before the page was reloaded ${keptOverReload === 1 ? 'is' : 'are'} back on screen: this tab kept ${keptOverReload === 1 ? 'it' : 'them'} in its session storage. Saving again now.`,
    );
    void flush();
  }
}

/**
 * Once per page: the turns an earlier page of this tab could not save (kept in sessionStorage) join
 * the queue again, with their photos; returns how many came back.
 */
let keptTurnsTaken = false;
function takeBackKeptTurns(): number {
  if (keptTurnsTaken) return 0;
  keptTurnsTaken = true;
  const kept = readUnsavedTurns(slot);
  for (const t of kept.turns)
    if (!unsaved.has(t.message.id)) unsaved.set(t.message.id, { message: messageFromStored(t.message), conversationId: t.conversationId });
  for (const image of kept.images) unsavedImages.set(image.imageId, image);
  rememberSessionImages(kept.images);
  sessionHoldsTurns = kept.turns.length > 0;
  return kept.turns.length;
}

/** Whether this tab's sessionStorage may hold turns: only then does a change of the queue rewrite it. */
let sessionHoldsTurns = false;
/** Mirrors the save queue into this tab's sessionStorage (or clears it once empty); in order, one write at a time. */
let keeping: Promise<unknown> = Promise.resolve();
function keepQueueOverReload(): Promise<Awaited<ReturnType<typeof keepUnsavedTurns>>> {
  const next = keeping.then(() => {
    sessionHoldsTurns = unsaved.size > 0;
    return keepUnsavedTurns(
      [...unsaved.values()].map((p) => ({ slot, conversationId: p.conversationId, message: messageToStored(p.message) })),
      [...unsavedImages.values()],
    );
  });
  keeping = next.catch(() => undefined);
  return next.catch(() => null);
}

/** Stored messages with the ones this tab could not save yet, in time order. */
function withUnsaved(stored: ChatMessage[]): ChatMessage[] {
  const ids = new Set(stored.map((m) => m.id));
  const mine = [...unsaved.values()].filter((p) => p.conversationId === conversationId && !ids.has(p.message.id)).map((p) => p.message);
  return [...stored, ...mine].sort((a, b) => a.createdAt - b.createdAt);
}

/**
 * Saves new or changed messages; `into` names the conversation they belong to (a reply goes where its
 * turn went). Resolves to that conversation's id; a failure is reported here and retried later.
 */
export async function saveChanged(
  messages: readonly ChatMessage[],
  images: readonly { imageId: string; blob: Blob }[],
  into: string | null = conversationId,
): Promise<void> {
  for (const message of messages) unsaved.set(message.id, { message, conversationId: into });
  for (const image of images) unsavedImages.set(image.imageId, image);
  rememberSessionImages(images);
  await flush();
}

let flushing: Promise<void> | null = null;
/** Writes everything not yet saved, grouped by conversation; one notice says what failed and what to do. */
function flush(): Promise<void> {
  flushing = (flushing ?? Promise.resolve()).then(async () => {
    const batch = [...unsaved.values()];
    if (batch.length === 0) return;
    const images = [...unsavedImages.values()];
    const groups = new Map<string | null, ChatMessage[]>();
    for (const p of batch) groups.set(p.conversationId, [...(groups.get(p.conversationId) ?? []), p.message]);
    try {
      let first = true;
      for (const [target, messages] of groups) {
        const written = await saveMessages(slot, messages, first ? images : [], target ?? undefined);
        first = false;
        if (target === null && conversationId === null) conversationId = written;
      }
      for (const p of batch) if (unsaved.get(p.message.id) === p) unsaved.delete(p.message.id);
      for (const i of images) unsavedImages.delete(i.imageId);
      if (sessionHoldsTurns) void keepQueueOverReload();
      if (failureNotice !== null) {
        noticeActions.dismiss(failureNotice);
        failureNotice = null;
        noticeActions.notify('info', 'Saved: every turn on screen is stored again.');
      }
    } catch (error) {
      await reportSaveFailure(
        error,
        batch.map((p) => p.message),
        images,
      );
    }
  });
  return flushing;
}

async function reportSaveFailure(error: unknown, messages: ChatMessage[], images: { blob: Blob }[]): Promise<void> {
  const turns = messages.length === 1 ? 'This turn is' : `${messages.length} messages are`;
  const kept = await keepQueueOverReload();
  const photosLeftOut = kept?.imagesLeftOut.length ?? 0;
  const overReload =
    kept === null
      ? ' This tab could not keep them for a reload either: do not reload before they are saved, or export the conversation (Conversation tools) first.'
      : ` Until then this tab keeps them in its session storage, so a reload does not lose them${photosLeftOut > 0 ? ` (except ${photosLeftOut === 1 ? 'a photo' : `${photosLeftOut} photos`}, too large to keep there)` : ''}.`;
  const why = isQuotaError(error)
    ? `the browser's storage for this page is full. ${await fullStorageAdvice(bytesToStore(messages.map(messageToStored), images))}${overReload}`
    : `${errorMessage(error)}. Press Retry; if it keeps failing, export the conversation (Conversation tools).${overReload}`;
  if (failureNotice !== null) noticeActions.dismiss(failureNotice);
  failureNotice = noticeActions.notify('error', `${turns} on screen but not saved yet: ${why}`, { label: 'Retry', run: () => void flush() });
  retryWhileUnsaved();
}

export async function removeStored(conversation: string, messageIds: readonly string[], imageIds: readonly string[]): Promise<void> {
  for (const id of messageIds) unsaved.delete(id);
  if (sessionHoldsTurns) void keepQueueOverReload();
  await removeMessages(slot, conversation, messageIds, imageIds);
}

/** A new, empty conversation in this tab's slot; the old one is kept for Undo unless a kiosk reset says otherwise. */
export async function startFresh(keepForUndo: boolean): Promise<{ previousId: string; conversationId: string }> {
  // Turns not saved yet stay queued for the conversation they belong to, so Undo brings them back
  // with it; a kiosk reset keeps nothing.
  if (!keepForUndo) {
    for (const [id, p] of unsaved) if (p.conversationId === conversationId) unsaved.delete(id);
    forgetSessionImages();
    if (sessionHoldsTurns) void keepQueueOverReload();
  }
  const ids = await startConversation(slot, keepForUndo);
  conversationId = ids.conversationId;
  return ids;
}

export async function restorePrevious(previousId: string, expectedCurrentId: string): Promise<boolean> {
  const restored = await restorePreviousConversation(slot, previousId, expectedCurrentId);
  if (restored) await restoreConversation();
  return restored;
}

/** Shows what other tabs write: their turns join this list, and a new conversation there shows here. */
/** While a failed save leaves turns unsaved, a retry every RETRY_MS: they go in the next write that succeeds, with no one pressing Retry. */
const RETRY_MS = 30_000;
let retryTimer: ReturnType<typeof setInterval> | null = null;
function retryWhileUnsaved(): void {
  retryTimer ??= setInterval(() => {
    if (failureNotice === null || unsaved.size === 0) {
      clearInterval(retryTimer!);
      retryTimer = null;
      return;
    }
    void flush();
  }, RETRY_MS);
}

/**
 * Asks before the tab is closed while a failed save leaves turns unsaved: session storage keeps them
 * over a reload, but goes with the tab. (A save in flight, a few milliseconds, does not ask.)
 */
export function askBeforeClosingWithUnsavedTurns(): void {
  window.addEventListener('beforeunload', (event) => {
    if (failureNotice === null || unsaved.size === 0) return;
    event.preventDefault();
    // Older Chromium versions ask only when returnValue is set.
    event.returnValue = '';
  });
}

export function followOtherTabs(): () => void {
  return onOtherTabChange((change) => {
    showOtherTabChange(change).catch((error: unknown) =>
      noticeActions.notify(
        'error',
        `Another tab of this page changed the conversation, but this tab could not read it (${errorMessage(error)}). Reload the page to see it; what is stored is kept.`,
      ),
    );
  });
}

async function showOtherTabChange(change: ConversationChange): Promise<void> {
  if (change.slot !== slot) return;
  const before = useChatStore.getState().messages.length;
  const loaded = await loadConversation(slot);
  conversationId = loaded.conversationId;
  chatActions.setMessages(withUnsaved(loaded.messages));
  if (change.kind === 'new-conversation' && before > 0)
    noticeActions.notify('info', 'Another tab of this page started a new conversation, so this tab shows it too. That tab offers Undo.');
  if (change.kind === 'restored') noticeActions.notify('info', 'Another tab took back its new conversation: the earlier conversation is back.');
}
