import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClipEncoder } from '../clip/clipEncoder';
import { chooseExecutionPlan } from '../onnx/executionPlan';
import { PhotoAnalyzer } from '../perception/photoAnalyzer';
import type { DialogueRecord } from '../datasets/mmdialog';
import { type EmbeddingCache, type PoolBuildProgress, completeDeferredRows, embedPool } from '../pool/poolEmbeddings';
import { rowsByUse } from '../pool/rowsByUse';
import { ReplySession } from '../response/session';
import { MODELS_DIR, folderSource, maxAbsDiff, readPng } from './fixture';

/**
 * What a freshly downloaded real CLIP meets: no precomputed rows, so the pool is embedded in
 * batches, cached batch by batch, and an interrupted build resumes; replies are zero-shot (no heads).
 * Runs the real-CLIP-shaped fixture on WASM (its q8 files).
 */
const REPO_DIR = join(MODELS_DIR, 'hub-fixtures', 'Xenova', 'clip-vit-base-patch32');
const REF_DIR = `${REPO_DIR}.reference`;
const TEXTS = Array.from({ length: 20 }, (_, i) => ({
  id: `t${i}`,
  text: [`I love the beach ${i}`, `look at my dog number ${i}`, `pasta tonight? ${i}`][i % 3]!,
}));
const IMAGES = [0, 1, 2].map((i) => ({ key: `img${i}`, file: ['landscape.png', 'portrait.png', 'landscape.png'][i]!, sha256: `${i}`.repeat(32) }));

function memoryCache(): EmbeddingCache & { puts: number[] } {
  const rows = new Map<string, Float32Array>();
  const puts: number[] = [];
  return {
    puts,
    get: async (keys) => keys.map((k) => rows.get(k)),
    put: async (entries) => {
      puts.push(entries.length);
      for (const [k, v] of entries) rows.set(k, v);
    },
  };
}

describe('embedding a pool that has no precomputed rows', () => {
  it('shows progress per batch, resumes from the cache after a cancel, and then replies zero-shot', async () => {
    const source = folderSource(REPO_DIR);
    const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: false });
    const encoder = await ClipEncoder.load(source, await source.listFiles(), plan);
    expect(encoder.backend.dtypes.text_model).toBe('q8');
    const cache = memoryCache();
    const base = {
      encoder,
      texts: TEXTS,
      images: IMAGES,
      imageKeys: IMAGES.map((m) => `i:${m.sha256}`),
      cache,
      batchSize: 8,
      imageBatchSize: 2,
      precomputed: null,
      loadImage: async (m: (typeof IMAGES)[number]) => readPng(m.file, REF_DIR),
    };

    // A reload after the second batch of texts: the run stops between batches.
    const first: PoolBuildProgress[] = [];
    await expect(embedPool({ ...base, onProgress: (p) => first.push(p), cancelled: () => (first.at(-1)?.done ?? 0) >= 16 })).rejects.toThrow('cancelled');
    expect(first.map((p) => `${p.phase} ${p.done}/${p.total}`)).toEqual(['texts 0/20', 'texts 8/20', 'texts 16/20']);
    expect(cache.puts).toEqual([8, 8]);

    const second: PoolBuildProgress[] = [];
    const pool = await embedPool({ ...base, onProgress: (p) => second.push(p) });
    expect(second.map((p) => `${p.phase} ${p.done}/${p.total}`)).toEqual(['texts 16/20', 'texts 20/20', 'images 0/3', 'images 2/3', 'images 3/3']);
    expect(pool.stats).toMatchObject({ fromFile: 0, fromCache: 16, computed: 7 });
    expect(cache.puts).toEqual([8, 8, 4, 2, 1]);

    // Rows from the cache are the rows a single uninterrupted build computes.
    const fresh = await embedPool({ ...base, cache: undefined });
    expect(maxAbsDiff(pool.textMatrix.data, fresh.textMatrix.data)).toBeLessThan(1e-5);
    expect(maxAbsDiff(pool.imageMatrix.data, fresh.imageMatrix.data)).toBeLessThan(1e-5);

    // No heads: "best available" is a zero-shot method with the train split's majority intent (here, none: one text).
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null);
    session.setPool({
      texts: TEXTS.map((t) => t.text),
      textMatrix: pool.textMatrix,
      images: IMAGES.map((m) => ({ key: m.key, label: m.file, alt: m.file, kind: 'photo', keywords: [] })),
      imageMatrix: pool.imageMatrix,
      train: async () => null,
    });
    const reply = await session.compose([{ elements: [{ kind: 'text', text: 'do you like dogs?' }] }], {});
    expect(reply.intentModel).toBe('majority');
    expect(['clip-sim', 'bm25', 'tfidf']).toContain(reply.method);
    expect(reply.elements).toHaveLength(1);
    const element = reply.elements[0]!;
    expect(element.kind === 'text' && TEXTS.some((t) => t.text === element.text)).toBe(true);
    await encoder.release();
  });

  it('answers before the whole pool is embedded: the most used rows first, the rest in the background, clip-sim never offering a row not there yet', async () => {
    const source = folderSource(REPO_DIR);
    const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: false });
    const encoder = await ClipEncoder.load(source, await source.listFiles(), plan);
    const cache = memoryCache();
    // The train split answers with texts 19 and 4 (19 twice) and image 2: those are embedded first.
    const say = (...elements: DialogueRecord['turns'][number]['elements']) => ({ elements });
    const train: DialogueRecord[] = [
      { id: 'a', turns: [say({ kind: 'text', text: 'hi' }), say({ kind: 'text', text: TEXTS[19]!.text }, { kind: 'media', key: 'img2' })] },
      { id: 'b', turns: [say({ kind: 'text', text: 'hey' }), say({ kind: 'text', text: TEXTS[19]!.text }), say({ kind: 'text', text: TEXTS[4]!.text })] },
    ];
    const byUse = rowsByUse(
      train,
      TEXTS.map((t) => t.text),
      IMAGES.map((m) => m.key),
    );
    expect(byUse.texts.slice(0, 3)).toEqual([19, 4, 0]);
    expect(byUse.images).toEqual([2, 0, 1]);
    const base = {
      encoder,
      texts: TEXTS,
      images: IMAGES,
      imageKeys: IMAGES.map((m) => `i:${m.sha256}`),
      cache,
      precomputed: null,
      loadImage: async (m: (typeof IMAGES)[number]) => readPng(m.file, REF_DIR),
    };
    const pool = await embedPool({ ...base, deferTexts: { order: byUse.texts }, deferImages: { order: byUse.images } });
    // Only the first row of each is computed (it tells the dimension): the most used.
    expect(pool.stats).toMatchObject({ computed: 2, deferred: 21 });
    expect([...pool.pendingTexts].slice(0, 3)).toEqual([4, 0, 1]);
    // The starter (the page's POOL_STARTER_MS, here four steps): the pending rows looked up in the cache
    // (texts, then images; none there yet), then two batches, texts and images in turn, then Ready.
    let batches = 0;
    await completeDeferredRows(pool, encoder, {
      cache,
      textBatchSize: 4,
      imageBatchSize: 1,
      loadImage: base.loadImage,
      yieldControl: async () => void batches++,
      stopWhen: () => batches >= 4,
    });
    expect([pool.pendingTexts.size, pool.pendingImages.size]).toEqual([15, 1]);
    const session = new ReplySession(new PhotoAnalyzer(encoder, null), null);
    let finishTexts = () => undefined as void;
    let finishImages = () => undefined as void;
    session.setPool({
      texts: TEXTS.map((t) => t.text),
      textMatrix: pool.textMatrix,
      images: IMAGES.map((m) => ({ key: m.key, label: m.file, alt: m.file, kind: 'photo', keywords: [] })),
      imageMatrix: pool.imageMatrix,
      train: async () => train,
      pendingTexts: pool.pendingTexts,
      pendingImages: pool.pendingImages,
      textsComplete: new Promise<void>((resolve) => (finishTexts = resolve)),
      imagesComplete: new Promise<void>((resolve) => (finishImages = resolve)),
    });
    // No heads: clip-sim is the default, and it answers now, from a row that is there.
    expect(session.methods().preferred).toBe('clip-sim');
    const early = await session.compose([{ elements: [{ kind: 'text', text: 'do you like dogs?' }] }], {});
    expect(early.method).toBe('clip-sim');
    const offered = early.composed.steps.flatMap((step) => (step.intent === 'text' ? step.candidates.map((c) => c.index) : []));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((row) => !pool.pendingTexts.has(row))).toBe(true);
    // The rest in the background; the rows end as a single uninterrupted build makes them.
    await completeDeferredRows(pool, encoder, { cache, loadImage: base.loadImage });
    finishTexts();
    finishImages();
    const fresh = await embedPool({ ...base, cache: undefined });
    expect(maxAbsDiff(pool.textMatrix.data, fresh.textMatrix.data)).toBeLessThan(1e-5);
    expect(maxAbsDiff(pool.imageMatrix.data, fresh.imageMatrix.data)).toBeLessThan(1e-5);
    expect(cache.puts.reduce((a, b) => a + b, 0)).toBe(23);
    await encoder.release();
  });
});
