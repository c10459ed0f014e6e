import { describe, expect, it } from 'vitest';
import { serializeDeppImageKeys, shippedDeppImageKeys } from '../pool/deppKeys';
import type { ResponseHeads } from '../response/heads';
import type { EmbeddingMatrix } from '../retrieval/vectors';

/** Heads whose candidate model doubles a row and appends its sum and difference: keys of 4 values for rows of 2. */
function fakeHeads(twist = 1): ResponseHeads & { computed: number } {
  const heads = {
    computed: 0,
    keyDim: 4,
    async keys(m: EmbeddingMatrix): Promise<EmbeddingMatrix> {
      heads.computed += m.rows;
      const data = new Float32Array(m.rows * 4);
      for (let r = 0; r < m.rows; r++) {
        const [a, b] = [m.data[r * 2]!, m.data[r * 2 + 1]!];
        data.set([2 * a * twist, 2 * b, a + b, a - b], r * 4);
      }
      return { data, rows: m.rows, dim: 4 };
    },
  };
  return heads as unknown as ResponseHeads & { computed: number };
}

const imageMatrix: EmbeddingMatrix = { data: Float32Array.from([1, 0, 0, 1, 0.6, 0.8, 0.8, 0.6, -1, 0, 0, -1]), rows: 6, dim: 2 };
const imageKeys = ['i:a', 'i:b', 'i:c', 'i:d', 'i:e', 'i:f'];

describe('shipped DE++ image keys', () => {
  it('are used when they fit the pool, the pack and the heads, as int8 within a code step of the computed keys', async () => {
    const heads = fakeHeads();
    const computed = await heads.keys(imageMatrix, 'image');
    const file = serializeDeppImageKeys('p', 'clip-1', computed, imageKeys);
    const shipped = await shippedDeppImageKeys(file, { clipFingerprint: 'clip-1', imageKeys, imageMatrix, heads });
    expect(shipped.keys?.rows).toBe(6);
    for (let i = 0; i < computed.data.length; i++) expect(Math.abs(shipped.keys!.data[i]! - computed.data[i]!)).toBeLessThanOrEqual(2 / 127);
    // The check computes the first four rows only, not the pool.
    expect(heads.computed).toBe(6 + 4);
  });

  it('are refused, with the reason, for another pack, other images, or heads that give other keys', async () => {
    const file = serializeDeppImageKeys('p', 'clip-1', await fakeHeads().keys(imageMatrix, 'image'), imageKeys);
    const check = (over: Partial<Parameters<typeof shippedDeppImageKeys>[1]>) =>
      shippedDeppImageKeys(file, { clipFingerprint: 'clip-1', imageKeys, imageMatrix, heads: fakeHeads(), ...over });
    expect(await check({ clipFingerprint: 'clip-2' })).toEqual({ keys: null, reason: 'it was made for another version of the pack' });
    expect(await check({ imageKeys: [...imageKeys.slice(0, 5), 'i:z'] })).toEqual({ keys: null, reason: "its images are not the pool's" });
    // Row 0's keys point apart (cosine -1/3, a little off through int8).
    expect(await check({ heads: fakeHeads(-1) })).toEqual({ keys: null, reason: 'the heads give other keys for its images (cosine -0.330 for row 0)' });
  });
});
