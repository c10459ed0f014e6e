import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { loadWasmPack } from '../data/poolFiles';
import { cachedTextEmbeddings } from './textEmbeddingCache';

describe('cached text embeddings (select benchmark)', () => {
  let encoder: ClipEncoder;
  beforeAll(async () => {
    encoder = (await loadWasmPack('test-tiny-clip')).encoder;
  });
  afterAll(async () => {
    await encoder.release();
  });

  it('encodes only texts it has not seen for this pack, and keeps the rows it had', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'select-cache-'));
    const first = await cachedTextEmbeddings(encoder, 'test-tiny-clip', ['a dog', 'a cat', 'a dog'], { dir });
    expect([first.computed, first.fromCache]).toEqual([2, 0]);
    const file = join(dir, `embeddings-${encoder.fingerprint}.json`);
    expect(existsSync(file)).toBe(true);

    const second = await cachedTextEmbeddings(encoder, 'test-tiny-clip', ['a cat', 'a bird'], { dir });
    expect([second.computed, second.fromCache]).toEqual([1, 1]);
    expect(second.embedding('a cat')).toEqual(first.embedding('a cat'));
    // The file now holds all three texts: a later run over the first texts computes nothing.
    expect((JSON.parse(readFileSync(file, 'utf8')) as { textKeys: string[] }).textKeys).toHaveLength(3);
    const third = await cachedTextEmbeddings(encoder, 'test-tiny-clip', ['a dog', 'a bird'], { dir });
    expect([third.computed, third.fromCache]).toEqual([0, 2]);
    expect(third.embedding('a dog')).toEqual(first.embedding('a dog'));
    const norm = Math.hypot(...third.embedding('a bird'));
    expect(norm).toBeCloseTo(1, 5);
    expect(() => third.embedding('a fish')).toThrow('No embedding was computed for "a fish".');
  });
});
