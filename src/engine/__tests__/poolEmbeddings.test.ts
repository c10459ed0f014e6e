import { describe, expect, it } from 'vitest';
import { hashBytes, hashText } from '../pool/contentHash';
import {
  type EmbeddingCache,
  type PoolEncoder,
  completeDeferredRows,
  embedPool,
  imageContentKey,
  parsePoolEmbeddings,
  serializePoolEmbeddings,
} from '../pool/poolEmbeddings';
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
const pixels = (item: { key: string }): Promise<RgbaImage> =>
  Promise.resolve({ width: 1, height: 1, data: new Uint8Array([Number(item.key.slice(3)), 5, 5, 255]) });
const keysOf = (items: typeof images) => items.map((m) => imageContentKey(m));

class MapCache implements EmbeddingCache {
  readonly rows = new Map<string, Float32Array>();
  /** Keys looked up one by one, over all calls of get. */
  looked = 0;
  async get(keys: readonly string[]) {
    this.looked += keys.length;
    return keys.map((k) => this.rows.get(k));
  }
  async holdsAny(keyPrefix: string) {
    return [...this.rows.keys()].some((k) => k.startsWith(keyPrefix));
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

    const file = serializePoolEmbeddings('pack-A', 'pack-A', first, 'f32');
    const parsed = parsePoolEmbeddings(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'pack-A.json');
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
    const file = serializePoolEmbeddings('pack-A', 'pack-A', base, 'f32');
    const changedTexts = [...texts.slice(0, 4), { id: 't9', text: 'a brand new line' }];
    const changedImages = [...images.slice(1), { key: 'img40', sha256: '40'.padEnd(64, 'b') }].reverse();
    const next = fakeEncoder('pack-A');
    const updated = await embedPool({
      encoder: next.encoder,
      texts: changedTexts,
      images: changedImages,
      imageKeys: keysOf(changedImages),
      loadImage: pixels,
      precomputed: file,
    });
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
      embedPool({
        encoder,
        texts,
        images,
        imageKeys: keysOf(images),
        loadImage: pixels,
        cache,
        batchSize: 2,
        onProgress: () => batches++,
        cancelled: () => batches > 2,
      }),
    ).rejects.toThrow('cancelled');
    expect(cache.rows.size).toBe(4); // two batches of two texts were stored before the interruption
    const resumed = fakeEncoder('pack-A');
    const done = await embedPool({ encoder: resumed.encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, cache, batchSize: 2 });
    expect(done.stats).toMatchObject({ fromCache: 4, computed: 4 });
    expect(resumed.calls).toEqual({ texts: 1, images: 3 });
    const fresh = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    expect([...done.textMatrix.data]).toEqual([...fresh.textMatrix.data]);
  });

  it("stores rows as int8 codes with a scale per row: a quarter of the bytes, each value within half a step of the row's own", async () => {
    const { encoder } = fakeEncoder('pack-A');
    const pool = await embedPool({ encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    const file = serializePoolEmbeddings('pack-A', 'pack-A', pool);
    const rows = texts.length + images.length;
    expect(file.meta).toMatchObject({ version: 2, encoding: 'int8' });
    expect(file.bytes.byteLength).toBe(rows * 3 + rows * 4);
    const parsed = parsePoolEmbeddings(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'pack-A.json');
    expect([...parsed.data]).toEqual([...file.data]);
    const original = [...pool.textMatrix.data, ...pool.imageMatrix.data];
    for (let r = 0; r < rows; r++) {
      const row = original.slice(r * 3, r * 3 + 3);
      const step = Math.max(...row.map(Math.abs)) / 127;
      row.forEach((v, j) => expect(Math.abs(parsed.data[r * 3 + j]! - v)).toBeLessThanOrEqual(step / 2 + 1e-7));
    }
    // Read back into a pool, the rows are the file's.
    const again = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, precomputed: parsed });
    expect(again.stats).toMatchObject({ fromFile: rows, computed: 0 });
  });

  it('defers the text rows the file lacks, and fills them later as the eager way would: from the cache first, then computed and cached, in batches', async () => {
    const eager = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    // The file has two of the five texts, and the images.
    const partial = serializePoolEmbeddings(
      'pack-A',
      'pack-A',
      { ...eager, textMatrix: { data: eager.textMatrix.data.slice(0, 6), rows: 2, dim: 3 }, textKeys: eager.textKeys.slice(0, 2) },
      'f32',
    );
    // Each visit's build: two texts from the file, the other three deferred.
    const deferredBuild = (encoder: ReturnType<typeof fakeEncoder>['encoder'], cache?: EmbeddingCache) =>
      embedPool({ encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels, precomputed: partial, ...(cache ? { cache } : {}), deferTexts: true });
    const cache = new MapCache();
    const { encoder, calls } = fakeEncoder('pack-A');
    const deferred = await deferredBuild(encoder, cache);
    expect(deferred.stats).toMatchObject({ fromFile: 5, computed: 0, deferred: 3 });
    expect(calls).toEqual({ texts: 0, images: 0 });
    expect([...deferred.pendingTexts]).toEqual([2, 3, 4]);
    expect([...deferred.textMatrix.data.subarray(6)]).toEqual(new Array(9).fill(0));
    const progress: number[] = [];
    // Another pack's rows are cached, none of this one's: nothing is looked up, two batches are computed.
    await cache.put([['pack-B|t:other', new Float32Array(3)]]);
    const looked = cache.looked;
    await completeDeferredRows(deferred, encoder, { cache, textBatchSize: 2, onProgress: (left) => progress.push(left.texts) });
    expect(progress).toEqual([1, 0]);
    expect(cache.looked).toBe(looked);
    expect(deferred.pendingTexts.size).toBe(0);
    expect([...deferred.textMatrix.data]).toEqual([...eager.textMatrix.data]);
    expect(cache.rows.size).toBe(4);
    expect(calls.texts).toBe(3);
    // Next visit: the rows are cached, but embedPool still defers them (no cache lookup holds Ready up);
    // the first step fills them all from the cache, and nothing is computed.
    const again = fakeEncoder('pack-A');
    const revisit = await deferredBuild(again.encoder, cache);
    expect(revisit.stats).toMatchObject({ fromFile: 5, fromCache: 0, computed: 0, deferred: 3 });
    const revisitProgress: number[] = [];
    await completeDeferredRows(revisit, again.encoder, { cache, textBatchSize: 2, onProgress: (left) => revisitProgress.push(left.texts) });
    expect(revisitProgress).toEqual([0]);
    expect(cache.looked).toBe(looked + 3);
    expect(again.calls.texts).toBe(0);
    // A cache that cannot tell (no holdsAny) is looked up first, as before: empty, so 3 are left after it.
    const plain = fakeEncoder('pack-A');
    const unknown = await deferredBuild(plain.encoder);
    const plainProgress: number[] = [];
    const cacheOfOld = { get: async (keys: readonly string[]) => keys.map(() => undefined), put: async () => undefined };
    await completeDeferredRows(unknown, plain.encoder, { cache: cacheOfOld, textBatchSize: 2, onProgress: (left) => plainProgress.push(left.texts) });
    expect(plainProgress).toEqual([3, 1, 0]);
    // One whose answer fails is looked up too, and the build goes on.
    const failing = { ...cacheOfOld, holdsAny: () => Promise.reject(new Error('IndexedDB is closed')) };
    const unsure = await deferredBuild(plain.encoder, failing);
    expect(unsure.cacheHeldNone).toBeUndefined();
    expect([...revisit.textMatrix.data]).toEqual([...eager.textMatrix.data]);
    // With nothing to say the dimension, the first text is computed at once and the rest deferred.
    const bare = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images: [], imageKeys: [], loadImage: pixels, deferTexts: true });
    expect([bare.stats.computed, bare.stats.deferred, [...bare.pendingTexts]]).toEqual([1, 4, [1, 2, 3, 4]]);
    let stop = false;
    const cancelled = completeDeferredRows(bare, fakeEncoder('pack-A').encoder, {
      textBatchSize: 1,
      cancelled: () => stop,
      yieldControl: async () => void (stop = true),
    });
    await expect(cancelled).rejects.toMatchObject({ code: 'cancelled', message: "Computing the pool's embeddings was cancelled." });
    expect(bare.pendingTexts.size).toBe(3);
  });

  it('defers image rows too, computes the most used first, takes texts and images in turn, and stops early on a budget', async () => {
    const eager = await embedPool({ encoder: fakeEncoder('pack-A').encoder, texts, images, imageKeys: keysOf(images), loadImage: pixels });
    const cache = new MapCache();
    // A row this pack cached for another pool, on an earlier visit: the deferred rows are looked up first.
    await cache.put([['pack-A|t:a text no longer in the pool', new Float32Array(3)]]);
    const { encoder, calls } = fakeEncoder('pack-A');
    // Most used: text 4, then 1; image 2. Rows not listed follow in pool order.
    const pool = await embedPool({
      encoder,
      texts,
      images,
      imageKeys: keysOf(images),
      loadImage: pixels,
      cache,
      deferTexts: { order: [4, 1, 4, 99] },
      deferImages: { order: [2] },
    });
    // Nothing tells the dimension, so the first row of each, in that order, is computed at once.
    expect([...pool.pendingTexts]).toEqual([1, 0, 2, 3]);
    expect([...pool.pendingImages]).toEqual([0, 1]);
    expect(pool.stats).toMatchObject({ computed: 2, deferred: 6 });
    expect(calls).toEqual({ texts: 1, images: 1 });
    const order: string[] = [];
    const logged = {
      ...encoder,
      encodeTexts: async (t: string[]) => (order.push(...t.map((x) => `t${texts.findIndex((y) => y.text === x)}`)), encoder.encodeTexts(t)),
      encodeImages: async (i: RgbaImage[]) => (order.push(...i.map((x) => `i${x.data[0]! / 10 - 1}`)), encoder.encodeImages(i)),
    };
    // A budget of four steps: the cache looked up for texts, then images (empty), then two batches, the
    // larger share left next (texts 4 of 4 = images 2 of 2, texts first).
    let batches = 0;
    const left: string[] = [];
    await completeDeferredRows(pool, logged, {
      cache,
      loadImage: pixels,
      textBatchSize: 2,
      imageBatchSize: 1,
      stopWhen: () => batches >= 4,
      yieldControl: async () => void batches++,
      onProgress: (l) => left.push(`${l.texts}/${l.images}`),
    });
    expect(order).toEqual(['t1', 't0', 'i0']);
    expect(left).toEqual(['4/2', '4/2', '2/2', '2/1']);
    // A pending row reads zero; a computed one is the eager row.
    expect([...pool.imageMatrix.data.subarray(3, 6)]).toEqual([0, 0, 0]);
    expect([...pool.imageMatrix.data.subarray(0, 3)]).toEqual([...eager.imageMatrix.data.subarray(0, 3)]);
    // The rest later; the matrices end as the eager way makes them, every computed row cached.
    await completeDeferredRows(pool, logged, { cache, loadImage: pixels, textBatchSize: 2, imageBatchSize: 1 });
    expect(order).toEqual(['t1', 't0', 'i0', 't2', 't3', 'i1']);
    expect([pool.pendingTexts.size, pool.pendingImages.size]).toEqual([0, 0]);
    expect([...pool.textMatrix.data]).toEqual([...eager.textMatrix.data]);
    expect([...pool.imageMatrix.data]).toEqual([...eager.imageMatrix.data]);
    expect(cache.rows.size).toBe(9);
    // Image rows pending without a way to read the images is a mistake said plainly.
    const again = await embedPool({
      encoder: fakeEncoder('pack-B').encoder,
      texts: [],
      images,
      imageKeys: keysOf(images),
      loadImage: pixels,
      deferImages: true,
    });
    await expect(completeDeferredRows(again, fakeEncoder('pack-B').encoder)).rejects.toThrow('image rows are pending and no loadImage was given');
  });

  it('rejects a precomputed file whose size does not match its rows, saying how to rebuild it', () => {
    const meta = { version: 1, packId: 'p', packFingerprint: 'f', dim: 4, textKeys: ['t:1'], imageKeys: ['i:2'] };
    expect(() => parsePoolEmbeddings(meta, new Uint8Array(31), 'p.json')).toThrow(
      'p.json: holds 31 bytes, but 2 rows of 4 (f32) need 32. Rebuild it with "npm run pool:build".',
    );
    expect(parsePoolEmbeddings(meta, new Uint8Array(32), 'p.json').data.length).toBe(8);
    expect(() => parsePoolEmbeddings({ ...meta, version: 2, encoding: 'int8' }, new Uint8Array(32), 'p.json')).toThrow(
      'p.json: holds 32 bytes, but 2 rows of 4 (int8) need 16.',
    );
    expect(() => parsePoolEmbeddings({ ...meta, version: 3 }, new Uint8Array(32), 'p.json')).toThrow('has version 3; this app reads versions 1 and 2.');
    expect(() => parsePoolEmbeddings({ ...meta, version: 2, encoding: 'f16' }, new Uint8Array(32), 'p.json')).toThrow('has encoding "f16"');
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
