import { createStore, del, get, keys, set, setMany } from 'idb-keyval';
import type { ChatMessage } from '../stores/chatStore';

/**
 * The conversation in IndexedDB: the message list under one key, each image Blob under its own
 * key, so saving a new turn never rewrites the images already stored.
 */
const store = createStore('mmdialog', 'conversation');
const MESSAGES_KEY = 'messages';

export async function loadMessages(): Promise<ChatMessage[]> {
  const saved = await get<unknown>(MESSAGES_KEY, store);
  return Array.isArray(saved) ? (saved as ChatMessage[]) : [];
}

export async function saveTurn(messages: ChatMessage[], images: { imageId: string; blob: Blob }[]): Promise<void> {
  // Images first: a message list never points at an image that was not written.
  if (images.length > 0) await setMany(images.map((i) => [`image:${i.imageId}`, i.blob] as [string, Blob]), store);
  await set(MESSAGES_KEY, messages, store);
}

export async function loadImage(imageId: string): Promise<Blob | undefined> {
  return get<Blob>(`image:${imageId}`, store);
}

export async function clearConversationDb(): Promise<void> {
  const all = await keys(store);
  await Promise.all(all.map((k) => del(k, store)));
}
