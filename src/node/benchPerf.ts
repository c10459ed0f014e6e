import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { l2Normalize, topKByDot } from '../engine/retrieval/vectors';
import { MajorityIntent, composeResponse } from '../engine/response/compose';
import { captionBank, captionImage } from '../engine/response/captioner';
import { stackRows } from '../engine/retrieval/vectors';
import { decodeAnyImageFile } from './decodeImageFile';
import { ResponseHeads } from '../engine/response/heads';
import { ClipSimRanker, seededRandom } from '../engine/response/rankers';
import type { CandidatePool, ContextTurn } from '../engine/response/types';
import { loadPoolCatalogue, loadWasmPack, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run bench -- perf [--pack mini-clip] [--turns 200] [--candidates 100000]
 * (1) A text turn to a composed reply over the whole demo pool: encoding, intent and ranking.
 * (2) Ranking 100,000 synthetic candidates: one matrix product and a partial top-k, next to the naive
 *     way (a copy of each candidate's vector and a sort of the whole pool).
 */
function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
}

export async function perfBench(args: string[]): Promise<void> {
  const option = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
  };
  const packId = option('pack', 'mini-clip');
  const turns = Number(option('turns', '200'));
  const n = Number(option('candidates', '100000'));

  const { encoder, source, files } = await loadWasmPack(packId);
  const heads = await ResponseHeads.load(source, new Set(files), encoder.fingerprint);
  const { texts, media } = loadPoolCatalogue(join('public', 'pool'));
  const pre = readPoolEmbeddingsFile(join('public', 'pool'), packId);
  if (!pre) throw new Error(`No pool embeddings for ${packId}: run npm run pool:build -- --pack ${packId}`);
  const dim = pre.meta.dim;
  const pool: CandidatePool = {
    texts: texts.map((t) => t.text),
    textMatrix: { data: pre.data.subarray(0, texts.length * dim), rows: texts.length, dim },
    imageKeys: media.map((m) => m.key),
    imageCaptions: media.map((m) => m.label ?? m.alt),
    imageMatrix: { data: pre.data.subarray(texts.length * dim), rows: media.length, dim },
  };
  const intent = heads?.intent ?? new MajorityIntent([[1, 0, 0], [0, 0, 1]]);
  const ranker = heads ? await heads.ranker(pool) : new ClipSimRanker(pool);
  const prompts = ['we just landed in Lisbon!', 'look at my new puppy', 'what should I cook tonight?', 'the concert was amazing', 'happy birthday!!', 'it is snowing here'];
  const ms: number[] = [];
  for (let i = 0; i < turns; i++) {
    const text = `${prompts[i % prompts.length]} (${i})`; // a new text each turn, so nothing is cached
    const start = nowMs();
    const [embedding] = await encoder.encodeTexts([text]);
    const context: ContextTurn[] = [{ speaker: 0, elements: [{ kind: 'text', text, embedding: l2Normalize(embedding!) }] }];
    await composeResponse(context, pool, intent, ranker);
    ms.push(nowMs() - start);
  }
  const turn = stats(ms);
  console.log(`pack ${packId} · WASM (${encoder.backend.dtypes.text_model}, 1 thread) · Node ${process.version} · method ${ranker.id} with ${intent.id} intent · pool ${pool.texts.length} texts + ${pool.imageKeys.length} images`);
  console.log(`text turn -> composed reply (encode + intent + rank)   median ${turn.median.toFixed(2)} ms   p95 ${turn.p95.toFixed(2)} ms   (n=${turns})`);

  // Captioning a photo: decode, CLIP preprocessing and image tower, then the nearest caption-bank sentence.
  let t = nowMs();
  const bank = captionBank(media.map((m) => ({ kind: m.kind, label: m.label, alt: m.alt, keywords: m.keywords })));
  const bankRows: Float32Array[] = [];
  for (let i = 0; i < bank.length; i += 128) bankRows.push(...(await encoder.encodeTexts(bank.slice(i, i + 128))).map(l2Normalize));
  const bankMatrix = stackRows(bankRows);
  const bankMs = nowMs() - t;
  const photo = join('e2e', 'assets', 'meadow.jpg');
  const captionMs: number[] = [];
  let caption = '';
  for (let i = 0; i < 20; i++) {
    t = nowMs();
    const [embedding] = await encoder.encodeImages([await decodeAnyImageFile(photo)]);
    caption = captionImage(l2Normalize(embedding!), bank, bankMatrix).text;
    captionMs.push(nowMs() - t);
  }
  const c = stats(captionMs);
  console.log(`caption a 400x300 photo (decode + image tower + nearest of ${bank.length} sentences)   median ${c.median.toFixed(1)} ms   p95 ${c.p95.toFixed(1)} ms   ("${caption}"; the bank is embedded once, ${bankMs.toFixed(0)} ms)`);

  // Synthetic pool: n unit vectors of the pack's dimension.
  const rand = seededRandom(3);
  const data = new Float32Array(n * dim);
  for (let i = 0; i < data.length; i++) data[i] = rand() - 0.5;
  for (let r = 0; r < n; r++) data.set(l2Normalize(data.subarray(r * dim, (r + 1) * dim)), r * dim);
  const matrix = { data, rows: n, dim };
  const query = l2Normalize(Float32Array.from({ length: dim }, () => rand() - 0.5));
  const fast: number[] = [];
  const naive: number[] = [];
  for (let i = 0; i < 30; i++) {
    t = nowMs();
    const top = topKByDot(matrix, query, 10);
    fast.push(nowMs() - t);
    t = nowMs();
    const scored = [];
    for (let r = 0; r < n; r++) {
      const v = Array.from(data.subarray(r * dim, (r + 1) * dim)); // a copy per candidate
      let s = 0;
      for (let j = 0; j < dim; j++) s += v[j]! * query[j]!;
      scored.push({ index: r, score: s });
    }
    scored.sort((a, b) => b.score - a.score); // a sort of the whole pool
    naive.push(nowMs() - t);
    if (scored[0]!.index !== top[0]!.index) throw new Error('The naive ranking disagrees with the fast one.');
  }
  const f = stats(fast), s = stats(naive);
  console.log(`rank ${n} candidates x ${dim}, top-10: matrix product + partial top-k   median ${f.median.toFixed(2)} ms   p95 ${f.p95.toFixed(2)} ms`);
  console.log(`                      naive (copy per candidate + full sort)      median ${s.median.toFixed(2)} ms   p95 ${s.p95.toFixed(2)} ms   (${(s.median / f.median).toFixed(1)}x slower)`);
  await heads?.release();
  await encoder.release();
}
