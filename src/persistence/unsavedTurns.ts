import type { ConversationSlot } from './conversationDb';
import { type StoredMessage, readStoredMessages } from './storedMessages';

/**
 * Messages whose save to IndexedDB failed (a full disk), kept in this tab's sessionStorage until they
 * are saved, so a reload before Retry does not lose them. sessionStorage has a quota of its own (about
 * 5 MB), apart from the one IndexedDB ran out of; photos go in as base64 while they fit in
 * MAX_IMAGE_CHARS, and the ones that do not are named when the turns come back.
 */
export const UNSAVED_TURNS_KEY = 'mmdialog-unsaved-turns';
/** Base64 characters of photos kept at most: leaves room under sessionStorage's quota for the texts. */
export const MAX_IMAGE_CHARS = 3_000_000;

export interface UnsavedTurn<M extends StoredMessage = StoredMessage> {
  slot: ConversationSlot;
  conversationId: string | null;
  message: M;
}

interface UnsavedImage {
  imageId: string;
  type: string;
  base64: string;
}

interface KeptTurns {
  turns: UnsavedTurn[];
  images: UnsavedImage[];
}

/** Minimal storage (sessionStorage in the page, a Map in tests). */
export interface TextStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function sessionStore(): TextStorage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage disabled for this page
  }
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Writes what is not saved yet; an empty list clears the key. Photos that do not fit are left out and
 * returned by id. Returns null when even the texts could not be kept (sessionStorage full or off).
 */
export async function keepUnsavedTurns(
  turns: readonly UnsavedTurn[],
  images: readonly { imageId: string; blob: Blob }[],
  storage: TextStorage | null = sessionStore(),
): Promise<{ imagesLeftOut: string[] } | null> {
  if (!storage) return null;
  if (turns.length === 0) {
    storage.removeItem(UNSAVED_TURNS_KEY);
    return { imagesLeftOut: [] };
  }
  const kept: UnsavedImage[] = [];
  const imagesLeftOut: string[] = [];
  let chars = 0;
  for (const image of images) {
    const base64 = chars + (image.blob.size * 4) / 3 <= MAX_IMAGE_CHARS ? bytesToBase64(new Uint8Array(await image.blob.arrayBuffer())) : null;
    if (base64 === null || chars + base64.length > MAX_IMAGE_CHARS) {
      imagesLeftOut.push(image.imageId);
      continue;
    }
    chars += base64.length;
    kept.push({ imageId: image.imageId, type: image.blob.type, base64 });
  }
  const value: KeptTurns = { turns: [...turns], images: kept };
  try {
    storage.setItem(UNSAVED_TURNS_KEY, JSON.stringify(value));
    return { imagesLeftOut };
  } catch {
    // Too much for sessionStorage with the photos: keep the words at least.
    try {
      storage.setItem(UNSAVED_TURNS_KEY, JSON.stringify({ turns: [...turns], images: [] } satisfies KeptTurns));
      return { imagesLeftOut: images.map((i) => i.imageId) };
    } catch {
      return null;
    }
  }
}

/** The turns a reload found kept for this slot, with their photos as Blobs; a damaged entry reads as none. */
export function readUnsavedTurns<M extends StoredMessage>(
  slot: ConversationSlot,
  storage: TextStorage | null = sessionStore(),
): { turns: UnsavedTurn<M>[]; images: { imageId: string; blob: Blob }[] } {
  const raw = storage?.getItem(UNSAVED_TURNS_KEY);
  if (!raw) return { turns: [], images: [] };
  try {
    const kept = JSON.parse(raw) as Partial<KeptTurns>;
    const turns = (Array.isArray(kept.turns) ? kept.turns : []).filter(
      (t): t is UnsavedTurn<M> =>
        typeof t === 'object' &&
        t !== null &&
        t.slot === slot &&
        (typeof t.conversationId === 'string' || t.conversationId === null) &&
        typeof t.message?.id === 'string' &&
        Array.isArray(t.message.elements),
    );
    const messages = readStoredMessages<M>(turns.map((t) => t.message));
    const images = (Array.isArray(kept.images) ? kept.images : []).flatMap((i) =>
      typeof i?.imageId === 'string' && typeof i.base64 === 'string'
        ? [{ imageId: i.imageId, blob: new Blob([base64ToBytes(i.base64)], { type: typeof i.type === 'string' ? i.type : '' }) }]
        : [],
    );
    return { turns: turns.map((t, k) => ({ ...t, message: messages[k]! })), images };
  } catch {
    return { turns: [], images: [] };
  }
}
