import { describe, expect, it } from 'vitest';
import { hashBytes, hashText } from '../pool/contentHash';
import { type EmbeddingCache, type PoolEncoder, embedPool, imageContentKey, parsePoolEmbeddings, serializePoolEmbeddings } from '../pool/poolEmbeddings';
import { flattenOnWhite } from '../image/rgbaImage';
import type { RgbaImage } from '../image/rgbaImage';

/** A deterministic encoder: a text's vector comes from its characters, an image's from its first pixel; it counts what it encodes. */
function fakeEncoder(fingerprint: string) {
  const calls = { texts: 0, images: 0 };
  const encoder: PoolEncoder = {
    fingerprint,
    async encodeTexts(texts) {
      calls.texts += texts.length;
      return texts.map((t) => new Float32Array([t.length, t.charCodeAt(0), 1]));
    },
    async encodeImages(images) {
      calls.images += images.length;
      return images.map((img) => new Float32Array([img.data[0]!, img.data[1]!, 2]));
    },
  };
  return { encoder, calls };
}

const texts = ['hello there', 'what a view!', 'pizza tonight?', 'look at this dog', 'see you soon'].map((text, i) => ({ id: `t${i}`, text }));
const images = [10, 20, 30].map((v) => ({ key: `img${v}`, sha256: `${v}`.padEnd(64, 'a') }));
const pixels = (item: { key: string }): Promise<RgbaImage> => Promise.resolve({ width: 1, height: 1, data: new Uint8Array([Number(item.key.slice(3)), 5, 5, 255]) });
const keysOf = (items: typeof images) => items.map((m) => imageContentKey(m));

class MapCache implements EmbeddingCache {
  readonly rows = new Map<string, Float32Array>();
  async get(keys: readonly string[]) {
    return keys.map((k) => this.rows.get(k));
  }
  async put(entries: readonly (readonly [string, Float32Array])[]) {
    for (const [k, v] of entries) this.rows.set(k, v);
  }
}

describe('pool embeddings', () => {
  it('computes every row once, normalized, and a precomputed file of the same pack supplies them all', async () => {
    const { encoder, calls } = fakeEncoder('pack-A');
    const first = await embedPool({ encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, batchSize: 2 });
    expect(first.stats).toMatchObject({ fromFile: 0, fromCache: 0, computed: 8 });
    expect(calls).toEqual({ texts: 5, images: 3 });
    const row0 = first.textMatrix.data.subarray(0, 3);
    expect(Math.hypot(...row0)).toBeCloseTo(1, 6);
    expect(row0[0]! / row0[2]!).toBeCloseTo(11, 5); // 'hello there' has 11 characters; the third component is 1

    const file = serializePoolEmbeddings('pack-A', 'pack-A', first);
    const bytes = new Uint8Array(file.data.buffer);
    const parsed = parsePoolEmbeddings(JSON.parse(JSON.stringify(file.meta)), bytes, 'pack-A.json');
    const again = fakeEncoder('pack-A');
    const second = await embedPool({ encoder: again.encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, precomputed: parsed });
    expect(second.stats).toMatchObject({ fromFile: 8, computed: 0 });
    expect(again.calls).toEqual({ texts: 0, images: 0 });
    expect([...second.textMatrix.data]).toEqual([...first.textMatrix.data]);
    expect([...second.imageMatrix.data]).toEqual([...first.imageMatrix.data]);
  });

  it('recomputes exactly the rows whose text or image changed, and everything for another pack', async () => {
    const { encoder } = fakeEncoder('pack-A');
    const base = await embedPool({ encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    const file = serializePoolEmbeddings('pack-A', 'pack-A', base);
    const changedTexts = [...texts.slice(0, 4), { id: 't9', text: 'a brand new line' }];
    const changedImages = [...images.slice(1), { key: 'img40', sha256: '40'.padEnd(64, 'b') }].reverse();
    const next = fakeEncoder('pack-A');
    const updated = await embedPool({ encoder: next.encoder, texts: changedTexts, images: changedImages, imageKeys: keysOf(changedImages), loadImage: pixels, precomputed: file });
    expect(next.calls).toEqual({ texts: 1, images: 1 });
    expect(updated.stats).toMatchObject({ fromFile: 6, computed: 2 });
    // Rows follow the new order, found by content rather than position.
    expect([...updated.imageMatrix.data.subarray(3, 6)]).toEqual([...base.imageMatrix.data.subarray(6, 9)]);

    const other = fakeEncoder('pack-B');
    const otherPack = await embedPool({ encoder: other.encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, precomputed: file });
    expect(otherPack.stats).toMatchObject({ fromFile: 0, computed: 8 });
  });

  it('resumes an interrupted build from the cache, batch by batch, with identical rows', async () => {
    const cache = new MapCache();
    const { encoder } = fakeEncoder('pack-A');
    let batches = 0;
    await expect(
      embedPool({ encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, cache, batchSize: 2, onProgress: () => batches++, cancelled: () => batches > 2 }),
    ).rejects.toThrow('cancelled');
    expect(cache.rows.size).toBe(4); // two batches of two texts were stored before the interruption
    const resumed = fakeEncoder('pack-A');
    const done = await embedPool({ encoder: resumed.encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, cache, batchSize: 2 });
    expect(done.stats).toMatchObject({ fromCache: 4, computed: 4 });
    expect(resumed.calls).toEqual({ texts: 1, images: 3 });
    const fresh = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    expect([...done.textMatrix.data]).toEqual([...fresh.textMatrix.data]);
  });

  it('rejects a precomputed file whose size does not match its rows, saying how to rebuild it', () => {
    const meta = { version: 1, packId: 'p', packFingerprint: 'f', dim: 4, textKeys: ['t:1'], imageKeys: ['i:2'] };
    expect(() => parsePoolEmbeddings(meta, new Uint8Array(31), 'p.json')).toThrow('p.json: holds 31 bytes, but 2 rows of 4 float32 need 32. Rebuild it with "npm run pool:build".');
    expect(parsePoolEmbeddings(meta, new Uint8Array(32), 'p.json').data.length).toBe(8);
    expect(() => parsePoolEmbeddings({ ...meta, version: 2 }, new Uint8Array(32), 'p.json')).toThrow('version 2');
  });
});

describe('content hashes', () => {
  it('are 16 hex digits, stable, and differ for different content', () => {
    expect(hashText('a photo of a cat')).toMatch(/^[0-9a-f]{16}$/);
    expect(hashText('a photo of a cat')).toBe(hashText('a photo of a cat'));
    expect(hashText('a photo of a cat')).not.toBe(hashText('a photo of a cat.'));
    expect(hashText('')).not.toBe(hashText('\u0000'));
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6, 7]);
    expect(hashBytes(bytes)).not.toBe(hashBytes(bytes.subarray(0, 6)));
    expect(hashBytes(bytes.subarray(1))).toBe(hashBytes(new Uint8Array([2, 3, 4, 5, 6, 7]))); // unaligned views hash their own bytes
  });
});

describe('flattenOnWhite', () => {
  it('composites transparent pixels onto white and leaves opaque images untouched', () => {
    const opaque = { width: 1, height: 1, data: new Uint8Array([9, 8, 7, 255]) };
    expect(flattenOnWhite(opaque)).toBe(opaque);
    const sticker = { width: 3, height: 1, data: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 128, 200, 100, 50, 255]) };
    // (0*128 + 255*127 + 127) / 255 = 127.5 -> 127; fully transparent -> white; opaque pixel unchanged.
    expect([...flattenOnWhite(sticker).data]).toEqual([255, 255, 255, 255, 127, 127, 127, 255, 200, 100, 50, 255]);
  });
});
