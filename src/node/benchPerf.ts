import { join } from 'node:path';
import { nowMs } from '../engine/clock';
import { l2Normalize, topKByDot } from '../engine/retrieval/vectors';
import { MajorityIntent, composeResponse } from '../engine/response/compose';
import { captionBank, captionImage } from '../engine/response/captioner';
import { ScoreMatrix } from '../engine/retrieval/scoreMatrix';
import { decodeAnyImageFile } from './decodeImageFile';
import { ResponseHeads } from '../engine/response/heads';
import { ClipSimRanker, seededRandom } from '../engine/response/rankers';
import type { CandidatePool, ContextTurn } from '../engine/response/types';
import { loadPoolCatalogue, loadWasmPack, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run bench -- perf [--pack mini-clip] [--turns 200] [--candidates 100000]
 * (1) A text turn to a composed reply over the whole demo pool: encoding, intent and ranking.
 * (2) Ranking 100,000 synthetic candidates: one matrix product and a partial top-k, with the WASM SIMD
 *     kernel the app uses and with the JS fallback, next to the naive way (a copy of each candidate's
 *     vector and a sort of the whole pool).
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
  const bankMatrix = ScoreMatrix.fromRows(bankRows); // as the app's worker holds it
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
  const simd = ScoreMatrix.of(matrix); // what the app builds: SIMD where the runtime validates the kernel
  const query = l2Normalize(Float32Array.from({ length: dim }, () => rand() - 0.5));
  const fast: number[] = [];
  const js: number[] = [];
  const naive: number[] = [];
  let sameTop = true;
  for (let i = 0; i < 30; i++) {
    t = nowMs();
    const top = simd.topK(query, 10);
    fast.push(nowMs() - t);
    t = nowMs();
    const jsTop = topKByDot(matrix, query, 10);
    js.push(nowMs() - t);
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
    if (scored[0]!.index !== jsTop[0]!.index) throw new Error('The naive ranking disagrees with the JS one.');
    sameTop &&= top.every((x, j) => x.index === jsTop[j]!.index);
  }
  const f = stats(fast), j = stats(js), s = stats(naive);
  const row = (label: string, r: { median: number; p95: number }, note = '') => `  ${label.padEnd(56)} median ${r.median.toFixed(2).padStart(7)} ms   p95 ${r.p95.toFixed(2).padStart(7)} ms${note}`;
  const which = simd.kernel === 'wasm-simd' ? 'WebAssembly SIMD (the kernel validates in this runtime)' : 'the JS scan (WebAssembly SIMD did not validate here)';
  console.log(`rank ${n} candidates x ${dim}, top-10, 30 runs; the app's ScoreMatrix uses ${which}`);
  if (simd.kernel === 'wasm-simd') console.log(row('WASM SIMD: matrix product + partial top-k', f, `   (top-10 ${sameTop ? 'the same as' : 'NOT the same as'} the JS scan's)`));
  console.log(row('JS (topKByDot, the fallback): one pass + partial top-k', j, simd.kernel === 'wasm-simd' ? `   (${(j.median / f.median).toFixed(1)}x the SIMD time)` : ''));
  const best = simd.kernel === 'wasm-simd' ? f : j;
  console.log(row('naive (copy per candidate + full sort)', s, `   (${(s.median / best.median).toFixed(1)}x slower than ${simd.kernel === 'wasm-simd' ? 'SIMD' : 'JS'}, ${(s.median / j.median).toFixed(1)}x than JS)`));
  await heads?.release();
  await encoder.release();
}
