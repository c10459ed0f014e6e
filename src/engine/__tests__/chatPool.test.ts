import { describe, expect, it } from 'vitest';
import { chatKeysFingerprint, embedChatKeys, parseStoredContexts, resolveStoredContexts, serializeStoredContexts } from '../pool/chatPool';
import { embedPool, parsePoolEmbeddings, serializePoolEmbeddings, textContentKey } from '../pool/poolEmbeddings';
import type { ChatEncoder } from '../response/chatEncoder';
import { contextMatchQuery, nearestContexts } from '../ranking/chatRanking';
import { Int8Matrix } from '../retrieval/int8Matrix';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
};
const encoder = (fingerprint = 'enc-1') => ({ fingerprint, config: { dim: 4 } }) as unknown as ChatEncoder;
const textEncoder = {
  fingerprint: 'chat:enc-1',
  encodeTexts: async (t: readonly string[]) => t.map((x) => unit(x.length, 1, 2, 3)),
  encodeImages: async () => [],
};

describe("the conversational encoder's pool files", () => {
  const texts = ['hi there', 'how are you?', 'fine, thanks'].map((text, i) => ({ id: String(i), text }));

  it('ships the keys without a key per row, and uses them only for the very pool they were made for', async () => {
    const pool = await embedPool({ encoder: textEncoder, texts, images: [], imageKeys: [], loadImage: () => Promise.reject(new Error('none')) });
    const file = serializePoolEmbeddings('mini-clip.chat', 'chat:enc-1', pool, 'int8', { compact: true });
    const meta = JSON.parse(JSON.stringify(file.meta)) as unknown;
    expect(JSON.stringify(meta)).not.toMatch(/"t:[0-9a-f]{16}"/); // no content key listed
    const parsed = parsePoolEmbeddings(meta, file.bytes, 'mini-clip.chat.json');
    const again = await embedPool({
      encoder: textEncoder,
      texts,
      images: [],
      imageKeys: [],
      loadImage: () => Promise.reject(new Error('none')),
      precomputed: parsed,
    });
    expect(again.stats).toMatchObject({ fromFile: 3, computed: 0 });
    // One text changed: the file's hash no longer fits, and every row is computed.
    const changed = await embedPool({
      encoder: textEncoder,
      texts: [...texts.slice(0, 2), { id: '9', text: 'great!' }],
      images: [],
      imageKeys: [],
      loadImage: () => Promise.reject(new Error('none')),
      precomputed: parsed,
    });
    expect(changed.stats).toMatchObject({ fromFile: 0, computed: 3 });
  });

  it("reads a shipped file's int8 codes as the ranking matrices, exactly as re-quantizing its rows would, and only for its pool", async () => {
    let computed = 0;
    const chat = {
      fingerprint: 'enc-1',
      config: { dim: 4 },
      encodeResponses: async (t: readonly string[]) => {
        computed += t.length;
        return { data: Float32Array.from(t.flatMap((x) => [...unit(x.length, 1, -2, x.length % 3)])), rows: t.length, dim: 4 };
      },
    } as unknown as ChatEncoder;
    const poolTexts = texts.map((t) => t.text);
    const labels = ['a dog on a beach'];
    const built = await embedChatKeys({ encoder: chat, texts: poolTexts, imageLabels: labels });
    expect(computed).toBe(4);
    // As chat:keys writes it: compact, int8, the rows of the pool's texts then its labels.
    const file = serializePoolEmbeddings(
      'mini-clip.chat',
      chatKeysFingerprint(chat),
      {
        textMatrix: built.rows,
        imageMatrix: { data: new Float32Array(0), rows: 0, dim: 4 },
        textKeys: [...poolTexts, ...labels].map(textContentKey),
        imageKeys: [],
      },
      'int8',
      { compact: true },
    );
    const parsed = () => parsePoolEmbeddings(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'c.json');
    const shipped = await embedChatKeys({ encoder: chat, texts: poolTexts, imageLabels: labels, precomputed: parsed() });
    expect(computed).toBe(4);
    expect(shipped.stats).toMatchObject({ fromFile: 4, computed: 0 });
    const requantized = Int8Matrix.fromFloat32(parsed().data, 4, 4, { refine: false });
    expect([...shipped.textKeys.scales.subarray(0, 3), ...shipped.imageKeys.scales.subarray(0, 1)]).toEqual([...requantized.scales.subarray(0, 4)]);
    const query = unit(1, 2, 3, 4);
    expect([...shipped.textKeys.scores(query).scores.subarray(0, 3)]).toEqual([...requantized.scores(query).scores.subarray(0, 3)]);
    // Another label: the file is of another pool, and every key is computed.
    const other = await embedChatKeys({ encoder: chat, texts: poolTexts, imageLabels: ['a cat'], precomputed: parsed() });
    expect(other.stats).toMatchObject({ fromFile: 0, computed: 4 });
  });

  it('stores the contexts with their response rows and latest turns, for one encoder and one pool', () => {
    const vectors = Float32Array.from([...unit(1, 0, 0, 0), ...unit(0, 1, 0, 0), ...unit(1, 1, 0, 0)]);
    const file = serializeStoredContexts(
      encoder(),
      vectors,
      [2, 0, 1],
      [1, -1, 0],
      texts.map((t) => t.text),
      'a test',
    );
    expect(file.bytes.byteLength).toBe(3 * 4 + 3 * 4 + 3 * 4 + 3 * 4);
    const parsed = parseStoredContexts(JSON.parse(JSON.stringify(file.meta)), file.bytes, 'c.json');
    const stored = resolveStoredContexts(
      parsed,
      encoder(),
      texts.map((t) => t.text),
    )!;
    expect([...stored.responseRows]).toEqual([2, 0, 1]);
    expect([...stored.latestRows]).toEqual([1, -1, 0]);
    expect(stored.vectors.rows).toBe(3);
    expect(
      resolveStoredContexts(
        parsed,
        encoder('enc-2'),
        texts.map((t) => t.text),
      ),
    ).toBeNull();
    expect(resolveStoredContexts(parsed, encoder(), ['hi there', 'how are you?', 'fine!'])).toBeNull();
    expect(() => parseStoredContexts(file.meta, file.bytes.subarray(1), 'c.json')).toThrow(
      'c.json: holds 47 bytes, but 3 contexts of 4 (int8, with their responses and latest turns) need 48. Rebuild it with "npm run chat:keys".',
    );
    expect(() => parseStoredContexts({ ...file.meta, version: 2 }, file.bytes, 'c.json')).toThrow('has version 2; this app reads version 3.');
  });

  it("matches contexts: the nearest stored ones' responses, weighted by softmax(similarity / temperature), as a unit query", () => {
    const contexts = {
      vectors: Int8Matrix.fromFloat32(Float32Array.from([...unit(1, 0, 0, 0), ...unit(0, 1, 0, 0), ...unit(0, 0, 1, 0)]), 3, 4, { refine: false }),
      responseRows: Int32Array.of(0, 1, 2),
      latestRows: Int32Array.of(-1, -1, -1),
    };
    const keys = Int8Matrix.fromFloat32(Float32Array.from([...unit(0, 0, 0, 1), ...unit(0, 0, 1, 0), ...unit(0, 1, 0, 0)]), 3, 4, { refine: false });
    const query = unit(1, 0.5, 0, 0);
    expect(nearestContexts(query, contexts, 2).map((n) => n.index)).toEqual([0, 1]);
    const temperature = 0.1;
    const s0 = query[0]!,
      s1 = query[1]!;
    const w0 = 1 / (1 + Math.exp((s1 - s0) / temperature)),
      w1 = 1 - w0;
    const expected = unit(0, 0, w1, w0);
    const got = contextMatchQuery(query, contexts, keys, { neighbours: 2, temperature });
    [...expected].forEach((x, i) => expect(got[i]).toBeCloseTo(x, 2));
    // One neighbour: its response's key exactly.
    [...unit(0, 0, 0, 1)].forEach((x, i) => expect(contextMatchQuery(query, contexts, keys, { neighbours: 1, temperature })[i]).toBeCloseTo(x, 2));
  });
});
