import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_CHARS, type TextStorage, UNSAVED_TURNS_KEY, keepUnsavedTurns, readUnsavedTurns } from './unsavedTurns';

function memoryStorage(limitChars = Infinity): TextStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      if (v.length > limitChars) throw new DOMException('full', 'QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
}

const turn = (id: string, text: string) => ({
  slot: 'main' as const,
  conversationId: 'c1',
  message: { id, role: 'user' as const, createdAt: 1, elements: [{ kind: 'text' as const, text }] },
});
const photo = { kind: 'image' as const, imageId: 'p1', name: 'meadow.jpg', width: 4, height: 3 };

describe('turns kept in sessionStorage until they are saved', () => {
  it('gives back the turns and their photo, byte for byte, for the slot they were written in', async () => {
    const storage = memoryStorage();
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0, 1, 2, 250]);
    const withPhoto = {
      ...turn('m1', 'will this be kept?'),
      message: { ...turn('m1', '').message, elements: [photo, { kind: 'text' as const, text: 'will this be kept?' }] },
    };
    expect(await keepUnsavedTurns([withPhoto, turn('m2', 'a reply')], [{ imageId: 'p1', blob: new Blob([bytes], { type: 'image/jpeg' }) }], storage)).toEqual({
      imagesLeftOut: [],
    });
    const back = readUnsavedTurns('main', storage);
    expect(back.turns.map((t) => t.message)).toEqual([withPhoto.message, turn('m2', 'a reply').message]);
    expect(back.turns[0]!.conversationId).toBe('c1');
    expect(back.images).toHaveLength(1);
    expect(back.images[0]!.blob.type).toBe('image/jpeg');
    expect(new Uint8Array(await back.images[0]!.blob.arrayBuffer())).toEqual(bytes);
    expect(readUnsavedTurns('kiosk', storage).turns).toEqual([]);
  });

  it('an empty queue clears the key', async () => {
    const storage = memoryStorage();
    await keepUnsavedTurns([turn('m1', 'x')], [], storage);
    await keepUnsavedTurns([], [], storage);
    expect(storage.map.has(UNSAVED_TURNS_KEY)).toBe(false);
  });

  it('keeps the words when the photos do not fit, and names the photos left out', async () => {
    const big = new Blob([new Uint8Array((MAX_IMAGE_CHARS * 3) / 4 + 3)]);
    expect(await keepUnsavedTurns([turn('m1', 'x')], [{ imageId: 'big', blob: big }], memoryStorage())).toEqual({ imagesLeftOut: ['big'] });
    // A storage smaller than the photo: the second write, texts alone, goes in.
    const small = memoryStorage(10_000);
    expect(await keepUnsavedTurns([turn('m1', 'x')], [{ imageId: 'p', blob: new Blob([new Uint8Array(20_000)]) }], small)).toEqual({ imagesLeftOut: ['p'] });
    expect(readUnsavedTurns('main', small).turns).toHaveLength(1);
    expect(await keepUnsavedTurns([turn('m1', 'x'.repeat(20_000))], [], small)).toBeNull();
  });

  it('a damaged entry reads as nothing kept', () => {
    const storage = memoryStorage();
    storage.setItem(UNSAVED_TURNS_KEY, '{"turns": [');
    expect(readUnsavedTurns('main', storage)).toEqual({ turns: [], images: [] });
    storage.setItem(UNSAVED_TURNS_KEY, JSON.stringify({ turns: [{ slot: 'main', conversationId: 5, message: {} }, null], images: [{ imageId: 1 }] }));
    expect(readUnsavedTurns('main', storage)).toEqual({ turns: [], images: [] });
  });
});
