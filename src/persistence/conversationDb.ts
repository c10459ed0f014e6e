import { createStore, promisifyRequest } from 'idb-keyval';
import { videoContainer } from '../engine/video/videoContainer';
import { provenImage } from './provenImage';
import { type StoredMessage, readStoredMessages } from './storedMessages';
import { tabChannel } from './tabChannel';

/**
 * The conversation in IndexedDB, safe with several tabs open on the page.
 *
 * Each message is its own record, `msg:<conversation>:<message id>`, and each photo's Blob is
 * `image:<id>`, written in the same transaction as the message that shows it. A tab writes only the
 * messages it adds or changes, so two tabs can never overwrite each other's turns. Which conversation
 * a slot shows is a pointer (`current:<slot>`): "New conversation" moves the pointer and keeps the
 * old records for Undo (`previous:<slot>`) until the next new conversation, so a turn another tab
 * writes at that moment lands in a conversation that still exists. Tabs tell each other about writes
 * on a BroadcastChannel and read the records again.
 *
 * Slots: the page's own conversation ('main') and kiosk mode's ('kiosk'), so a kiosk reset never
 * touches a conversation made outside kiosk mode.
 */
export type ConversationSlot = 'main' | 'kiosk';

const store = createStore('mmdialog', 'conversation');
/** Versions before per-message records kept the whole list under this key; read once, then moved. */
const LEGACY_MESSAGES_KEY = 'messages';

const currentKey = (slot: ConversationSlot) => `current:${slot}`;
const previousKey = (slot: ConversationSlot) => `previous:${slot}`;
const messageKey = (conversationId: string, messageId: string) => `msg:${conversationId}:${messageId}`;
const imageKey = (imageId: string) => `image:${imageId}`;
const messagesOf = (conversationId: string) => IDBKeyRange.bound(`msg:${conversationId}:`, `msg:${conversationId}:\uffff`);
const allMessages = () => IDBKeyRange.bound('msg:', 'msg:\uffff');
const allImages = () => IDBKeyRange.bound('image:', 'image:\uffff');

/** `M`: the messages as the chat wrote them (ChatMessage); persistence reads only what StoredMessage declares. */
export interface LoadedConversation<M extends StoredMessage> {
  conversationId: string;
  messages: M[];
}

/** What changed, as other tabs hear it. */
export interface ConversationChange {
  slot: ConversationSlot;
  kind: 'messages' | 'new-conversation' | 'restored';
}

const otherTabs = tabChannel<ConversationChange>('mmdialog-conversation');
const broadcast = (change: ConversationChange) => otherTabs.post(change);

/**
 * Calls onChange when another tab of this page writes the conversation; returns the unsubscribe. A
 * load the callback starts queues behind this tab's own writes, so it never misses one of them.
 */
export const onOtherTabChange = (onChange: (change: ConversationChange) => void): (() => void) => otherTabs.listen(onChange);

/** Images of this session, so a photo shows at once, before (and whether or not) it is stored. */
const sessionImages = new Map<string, Blob>();

/** This tab's writes run one after another, in the order they were asked for. */
let writes: Promise<unknown> = Promise.resolve();
function enqueue<T>(write: () => Promise<T>): Promise<T> {
  const next = writes.then(write);
  writes = next.catch(() => undefined);
  return next;
}

const sortByTime = <M extends StoredMessage>(messages: M[]) => messages.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The slot's conversation id, made (and the legacy list moved under it) on first use. */
async function currentConversation(s: IDBObjectStore, slot: ConversationSlot): Promise<string> {
  const existing = await promisifyRequest<unknown>(s.get(currentKey(slot)));
  const id = typeof existing === 'string' ? existing : crypto.randomUUID();
  if (id !== existing) s.put(id, currentKey(slot));
  if (slot === 'main') {
    const legacy = await promisifyRequest<unknown>(s.get(LEGACY_MESSAGES_KEY));
    if (legacy !== undefined) {
      for (const m of readStoredMessages(legacy)) s.put(m, messageKey(id, m.id));
      s.delete(LEGACY_MESSAGES_KEY);
    }
  }
  return id;
}

/** Runs body in one transaction and resolves once that transaction has committed. */
function inTransaction<T>(mode: IDBTransactionMode, body: (s: IDBObjectStore) => Promise<T>): Promise<T> {
  return store(mode, async (s) => {
    const committed = promisifyRequest(s.transaction);
    committed.catch(() => undefined);
    let result: T;
    try {
      result = await body(s);
    } catch (error) {
      // All or nothing: a write that failed half-way must not leave a message without its photo.
      try {
        s.transaction.abort();
      } catch {
        // already finished or aborted
      }
      throw error;
    }
    await committed;
    return result;
  });
}

export function loadConversation<M extends StoredMessage>(slot: ConversationSlot): Promise<LoadedConversation<M>> {
  return enqueue(() =>
    inTransaction('readwrite', async (s) => {
      const conversationId = await currentConversation(s, slot);
      const records = await promisifyRequest(s.getAll(messagesOf(conversationId)));
      return { conversationId, messages: sortByTime(readStoredMessages<M>(records)) };
    }),
  );
}

/**
 * Adds or replaces these messages (by id) and stores their new photos, in one transaction. They go
 * into `conversationId` when given (a reply joins the conversation its turn was sent in, even if
 * another tab has started a new one since), else into the slot's current conversation, whose id is
 * returned.
 */
export function putMessages(
  slot: ConversationSlot,
  messages: readonly StoredMessage[],
  images: readonly { imageId: string; blob: Blob }[],
  conversationId?: string,
): Promise<string> {
  for (const image of images) sessionImages.set(image.imageId, image.blob);
  return enqueue(async () => {
    const id = await inTransaction('readwrite', async (s) => {
      const target = conversationId ?? (await currentConversation(s, slot));
      for (const image of images) s.put(image.blob, imageKey(image.imageId));
      for (const m of messages) s.put(m, messageKey(target, m.id));
      return target;
    });
    broadcast({ slot, kind: 'messages' });
    return id;
  });
}

/** Removes messages (an undone turn) and the photos only they showed. */
export function removeMessages(slot: ConversationSlot, conversationId: string, messageIds: readonly string[], imageIds: readonly string[]): Promise<void> {
  for (const id of imageIds) sessionImages.delete(id);
  return enqueue(async () => {
    await inTransaction('readwrite', async (s) => {
      for (const id of messageIds) s.delete(messageKey(conversationId, id));
      for (const id of imageIds) s.delete(imageKey(id));
    });
    broadcast({ slot, kind: 'messages' });
  });
}

/**
 * Starts a new, empty conversation in the slot. The one it replaces is kept for Undo when
 * `keepForUndo`, else deleted; conversations no slot points at any more are deleted with their photos.
 */
export function startConversation(slot: ConversationSlot, keepForUndo: boolean): Promise<{ conversationId: string; previousId: string }> {
  return enqueue(async () => {
    const ids = await inTransaction('readwrite', async (s) => {
      const previousId = await currentConversation(s, slot);
      const conversationId = crypto.randomUUID();
      s.put(conversationId, currentKey(slot));
      if (keepForUndo) s.put(previousId, previousKey(slot));
      else s.delete(previousKey(slot));
      await deleteUnreferenced(s);
      return { conversationId, previousId };
    });
    broadcast({ slot, kind: 'new-conversation' });
    return ids;
  });
}

/** Undo of a new conversation: points the slot back at the previous one, if the slot is still as it was left. */
export function restorePreviousConversation(slot: ConversationSlot, previousId: string, expectedCurrentId: string): Promise<boolean> {
  return enqueue(async () => {
    const restored = await inTransaction('readwrite', async (s) => {
      if ((await promisifyRequest(s.get(currentKey(slot)))) !== expectedCurrentId) return false;
      if ((await promisifyRequest(s.count(messagesOf(expectedCurrentId)))) > 0) return false;
      s.put(previousId, currentKey(slot));
      s.delete(previousKey(slot));
      return true;
    });
    if (restored) broadcast({ slot, kind: 'restored' });
    return restored;
  });
}

/** Deletes message records of conversations no pointer names, then the photos no remaining message shows. */
async function deleteUnreferenced(s: IDBObjectStore): Promise<void> {
  const pointers = await Promise.all(
    (['main', 'kiosk'] as const).flatMap((slot) => [currentKey(slot), previousKey(slot)]).map((k) => promisifyRequest(s.get(k))),
  );
  const kept = new Set(pointers.filter((p): p is string => typeof p === 'string'));
  const keys = (await promisifyRequest(s.getAllKeys(allMessages()))) as string[];
  const shown = new Set<string>();
  for (const key of keys) {
    const conversationId = key.slice('msg:'.length, key.indexOf(':', 'msg:'.length));
    if (!kept.has(conversationId)) {
      s.delete(key);
      continue;
    }
    const message = (await promisifyRequest(s.get(key))) as StoredMessage | undefined;
    for (const e of message?.elements ?? []) {
      if (e.kind === 'image') shown.add(e.imageId);
      // A video keeps its file, its poster frame and its frame sheet.
      if (e.kind === 'video') for (const id of [e.videoId, e.posterId, e.sheetId]) shown.add(id);
    }
    for (const e of message?.reference?.elements ?? []) if (e.kind === 'image') shown.add(e.imageId);
  }
  for (const key of (await promisifyRequest(s.getAllKeys(allImages()))) as string[]) {
    if (!shown.has(key.slice('image:'.length))) s.delete(key);
  }
}

/** A photo of the conversation, typed by its bytes (see provenImage); undefined when gone or not an image. */
export async function loadImage(imageId: string): Promise<Blob | undefined> {
  return provenImage(
    sessionImages.get(imageId) ?? (await store('readonly', (s) => promisifyRequest(s.get(imageKey(imageId)) as IDBRequest<Blob | undefined>))),
  );
}

/**
 * A shared video's file, typed by its first bytes (MP4/MOV "ftyp", or WebM/Matroska's EBML header);
 * undefined when gone or not a video, so a damaged record is never handed to a <video> element.
 */
export async function loadVideo(videoId: string): Promise<Blob | undefined> {
  const blob = sessionImages.get(videoId) ?? (await store('readonly', (s) => promisifyRequest(s.get(imageKey(videoId)) as IDBRequest<Blob | undefined>)));
  if (!blob) return undefined;
  const container = videoContainer(new Uint8Array(await blob.slice(0, 12).arrayBuffer()));
  return container ? blob.slice(0, blob.size, `video/${container}`) : undefined;
}

/** Photos about to be saved: shown from memory at once, whether or not (or before) the save succeeds. */
export function rememberSessionImages(images: readonly { imageId: string; blob: Blob }[]): void {
  for (const image of images) sessionImages.set(image.imageId, image.blob);
}

/** Forgets a finished session's photos held in memory (a kiosk reset). */
export function forgetSessionImages(): void {
  sessionImages.clear();
}

/** Bytes a save of these messages and photos needs, about: what a full disk must make room for. */
export function bytesToStore(messages: readonly StoredMessage[], images: readonly { blob: Blob }[]): number {
  return images.reduce((sum, i) => sum + i.blob.size, 0) + messages.reduce((sum, m) => sum + JSON.stringify(m).length * 2, 0);
}
