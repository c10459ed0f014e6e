import { createStore, del, get, keys, set, setMany } from 'idb-keyval';
import { type StoredMessage, readStoredMessages } from './storedMessages';

/**
 * The conversation in IndexedDB: the message list under one key, each image Blob under its own
 * key, so saving a new turn never rewrites the images already stored.
 */
const store = createStore('mmdialog', 'conversation');
const MESSAGES_KEY = 'messages';

export async function loadMessages(): Promise<StoredMessage[]> {
  return readStoredMessages(await get<unknown>(MESSAGES_KEY, store));
}

/** Images of this session, so a photo shows at once, before (and whether or not) it is stored. */
const sessionImages = new Map<string, Blob>();

/** Writes run one after another, so an older message list can never overwrite a newer one. */
let writes: Promise<unknown> = Promise.resolve();
function enqueue<T>(write: () => Promise<T>): Promise<T> {
  const next = writes.then(write);
  writes = next.catch(() => undefined);
  return next;
}

export function saveTurn(messages: StoredMessage[], images: { imageId: string; blob: Blob }[]): Promise<void> {
  for (const image of images) sessionImages.set(image.imageId, image.blob);
  return enqueue(async () => {
    // Images first: a stored message list never points at an image that was not written.
    if (images.length > 0) await setMany(images.map((i) => [`image:${i.imageId}`, i.blob] as [string, Blob]), store);
    await set(MESSAGES_KEY, messages, store);
  });
}

export async function loadImage(imageId: string): Promise<Blob | undefined> {
  return sessionImages.get(imageId) ?? get<Blob>(`image:${imageId}`, store);
}

/** Forgets the photos of turns that were undone; queued after the message list that no longer names them. */
export function deleteImages(imageIds: readonly string[]): Promise<void> {
  for (const id of imageIds) sessionImages.delete(id);
  return enqueue(async () => {
    await Promise.all(imageIds.map((id) => del(`image:${id}`, store)));
  });
}

export function clearConversationDb(): Promise<void> {
  sessionImages.clear();
  return enqueue(async () => {
    const all = await keys(store);
    await Promise.all(all.map((k) => del(k, store)));
  });
}
