import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PackFileSource } from '../pack/fileSource';
import { ResponseHeads } from '../response/heads';
import { seededRandom } from '../random';
import { MODELS_DIR, loadWasmTestPack } from './fixture';
import type { CandidatePool, Modality, ResponseState } from '../response/types';
import { l2Normalize } from '../retrieval/vectors';

// The trained heads shipped with mini-clip (models/mini-clip/heads), run as the app runs them.
const PACK_DIR = join(MODELS_DIR, 'mini-clip');
let source: PackFileSource;
let files: Set<string>;
let fingerprint: string;

beforeAll(async () => {
  const pack = await loadWasmTestPack(PACK_DIR);
  source = pack.source;
  files = new Set(pack.files);
  fingerprint = pack.encoder.fingerprint;
  await pack.encoder.release();
}, 60_000);

function withHeadsJson(json: unknown): PackFileSource {
  return {
    location: source.location,
    readBytes: async (path, onProgress) => (path === 'heads/heads.json' ? new TextEncoder().encode(JSON.stringify(json)) : source.readBytes(path, onProgress)),
  };
}

describe('trained response heads', () => {
  it('refuses heads of another format version or trained on another pack', async () => {
    const config = JSON.parse(readFileSync(join(PACK_DIR, 'heads', 'heads.json'), 'utf8')) as Record<string, unknown>;
    await expect(ResponseHeads.load(withHeadsJson({ ...config, version: 1 }), files, fingerprint)).rejects.toThrow(
      'heads/heads.json is version 1, and this app reads version 3',
    );
    await expect(ResponseHeads.load(source, files, 'another-pack')).rejects.toThrow('trained on another version of this pack');
  });

  it('ranks a pool and scores given candidates alike, with cosine scores, from a query anchored on the latest turn', async () => {
    const heads = await ResponseHeads.load(source, files, fingerprint);
    if (!heads) throw new Error('mini-clip ships trained heads');
    const rng = seededRandom(11);
    const unit = () => l2Normalize(Float32Array.from({ length: 256 }, () => rng() - 0.5));
    const rows = (n: number) => Array.from({ length: n }, unit);
    const matrix = (r: Float32Array[]) => {
      const data = new Float32Array(r.length * 256);
      r.forEach((v, i) => data.set(v, i * 256));
      return { data, rows: r.length, dim: 256 };
    };
    const textRows = rows(40),
      imageRows = rows(30);
    const pool: CandidatePool = {
      texts: textRows.map((_, i) => `text ${i}`),
      textMatrix: matrix(textRows),
      imageKeys: imageRows.map((_, i) => `image-${i}`),
      imageCaptions: imageRows.map((_, i) => `caption ${i}`),
      imageMatrix: matrix(imageRows),
    };
    const state = (latest: Float32Array): ResponseState => ({
      turns: [
        { speaker: 0, elements: [{ kind: 'text', embedding: unit(), text: 'hello' }] },
        {
          speaker: 1,
          elements: [
            { kind: 'text', embedding: latest, text: 'look' },
            { kind: 'image', embedding: unit(), text: 'a dog' },
          ],
        },
      ],
      partial: [],
    });
    const ranker = await heads.ranker(pool);
    const s = state(unit());
    for (const [modality, r] of [
      ['text', textRows],
      ['image', imageRows],
    ] as [Modality, Float32Array[]][]) {
      const top = await ranker.topK(s, modality, 5, new Set([3]));
      const all = await ranker.score(
        s,
        modality,
        r.map((embedding, i) => ({ embedding, text: `${i}` })),
      );
      const expected = [...all.keys()]
        .filter((i) => i !== 3)
        .sort((a, b) => all[b]! - all[a]! || a - b)
        .slice(0, 5);
      expect(top.map((t) => t.index)).toEqual(expected);
      for (const t of top) expect(t.score).toBeCloseTo(all[t.index]!, 5);
      for (const score of all) expect(Math.abs(score)).toBeLessThanOrEqual(1 + 1e-5);
    }
    // Another latest turn, same history: another query.
    const other = await ranker.score(
      state(unit()),
      'text',
      textRows.map((embedding, i) => ({ embedding, text: `${i}` })),
    );
    const same = await ranker.score(
      s,
      'text',
      textRows.map((embedding, i) => ({ embedding, text: `${i}` })),
    );
    expect(Array.from(other)).not.toEqual(Array.from(same));
    const p = await heads.intent.predict(s);
    expect(p[0] + p[1] + p[2]).toBeCloseTo(1, 6);
    await heads.release();
  }, 60_000);
});
