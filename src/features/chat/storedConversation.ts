import { type ConversationSlot, putMessages } from '../../persistence/conversationDb';
import type { ChatMessage } from '../../shared/conversation';

/**
 * A value as IndexedDB should keep it: the same value, without the keys whose value is undefined, at
 * any depth, so a record keeps its shape (a missing caption stays missing, as in records written
 * before). One function for every field: the stored message is the chat's own (issue 40).
 */
export function storable<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => storable(item)) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, field]) => (field === undefined ? [] : [[key, storable(field as unknown)]]))) as T;
}

/** Stores these messages (new or changed) and the Blobs of photos new to them; see conversationDb.putMessages. */
export function saveMessages(
  slot: ConversationSlot,
  messages: readonly ChatMessage[],
  images: readonly { imageId: string; blob: Blob }[],
  conversationId?: string,
): Promise<string> {
  return putMessages(slot, messages.map(storable), images, conversationId);
}
