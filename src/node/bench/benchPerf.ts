import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { echoes } from '../../engine/response/replyPolicy';
import { errorMessage } from '../../engine/errors';
import type { RgbaImage } from '../../engine/image/rgbaImage';
import { PhotoAnalyzer } from '../../engine/perception/photoAnalyzer';
import { parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { l2Normalize, topKByDot } from '../../engine/retrieval/vectors';
import { captionBank, captionImage } from '../../engine/response/captioner';
import { ScoreMatrix } from '../../engine/retrieval/scoreMatrix';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { ResponseHeads } from '../../engine/response/heads';
import { seededRandom } from '../../engine/random';
import { ReplySession, type SessionChat, type SessionPool, type SessionReply, sessionChat } from '../../engine/response/session';
import { ChatEncoder, loadChatFusion } from '../../engine/response/chatEncoder';
import { type ManifestFile, offlineInjectManifestOptions } from '../tools/offlineManifest';
import { chatPoolOf } from './replyParts';
import { contextMatchQuery, nearestContexts } from '../../engine/ranking/chatRanking';
import { LexicalIndex, corpusStats } from '../../engine/ranking/lexical';
import { integerOption, parseCommandLine } from '../tools/cliArgs';
import { VARIANT_OPTIONS, VARIANT_USAGE, loadWasmPhotoAnalyzer, releasePhotoAnalyzer, variantChoice } from './benchAnalyzer';
import { type PhotoTurnStats, type PhotoTurnTiming, addedByDetection, photoTurnStats } from './benchParts';
import { loadPoolCatalogue, readLexicalCountsFile, readPoolEmbeddingsFile } from '../data/poolFiles';
import { embedPool, imageContentKey } from '../../engine/pool/poolEmbeddings';
import { ProgressLine } from '../tools/progressLine';
import { scaleBench } from './benchScale';

export const PERF_USAGE = `npm run bench -- perf [--pack mini-clip] [--turns 200] [--photo-turns 40] [--candidates 100000] [--scale-rows 1000000] ${VARIANT_USAGE}`;

/**
 * npm run bench -- perf [--pack mini-clip] [--turns 200] [--photo-turns 40] [--candidates 100000] [--scale-rows 1000000]
 * (1) A text turn to a composed reply over the whole demo pool, through the page's reply session:
 *     encoding, intent and ranking.
 * (2) A photo turn to a composed reply through the reply session, with the app's PhotoAnalyzer
 *     (detection, grounded caption, image tower) and without the detector, and what detection adds.
 * (3) Ranking 100,000 synthetic candidates: one matrix product and a partial top-k, with the WASM SIMD
 *     kernel the app uses and with the JS fallback, next to the naive way (a copy of each candidate's
 *     vector and a sort of the whole pool).
 * (4) Ranking a million candidates with the int8 matrix, its memory and its top-10 against f32
 *     (benchScale.ts); --scale-rows 0 leaves it out.
 */
function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
}

/** The project's own photos: the detector's fixture and the e2e upload files (an unreadable one is left out and named). */
async function projectPhotos(): Promise<{ name: string; pixels: RgbaImage }[]> {
  const photos: { name: string; pixels: RgbaImage }[] = [];
  for (const dir of [join('models', 'detector', 'fixture'), join('e2e', 'assets')]) {
    let names: string[] = [];
    try {
      names = readdirSync(dir)
        .filter((n) => /\.(jpe?g|png|webp)$/i.test(n))
        .sort();
    } catch {
      console.log(`(${dir} is missing; its photos are left out)`);
    }
    for (const name of names) {
      try {
        photos.push({ name, pixels: await decodeAnyImageFile(join(dir, name)) });
      } catch (error) {
        console.log(`(${join(dir, name)} is left out: ${errorMessage(error)})`);
      }
    }
  }
  return photos;
}

/** A photo turn through the reply session, as the worker runs it: a new photo each turn (new id), no text. */
async function photoTurn(session: ReplySession, pixels: RgbaImage, imageId: string): Promise<PhotoTurnTiming> {
  // Decoded beforehand: Node's JPEG decoder is not the browser's createImageBitmap.
  const reply = await session.compose([{ elements: [{ kind: 'image', imageId, decode: async () => pixels }] }]);
  const t = reply.timings;
  return { detectMs: t.detectMs, captionMs: t.captionMs, encodeMs: t.encodeMs, composeMs: t.intentMs + t.rankMs, totalMs: t.totalMs };
}

export async function perfBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string', default: 'mini-clip' },
      turns: { type: 'string', default: '200' },
      'photo-turns': { type: 'string', default: '40' },
      candidates: { type: 'string', default: '100000' },
      'scale-rows': { type: 'string', default: '1000000' },
      ...VARIANT_OPTIONS,
    },
    PERF_USAGE,
  );
  const packId = values.pack;
  const turns = integerOption(values.turns, 'turns', PERF_USAGE);
  const photoTurns = integerOption(values['photo-turns'], 'photo-turns', PERF_USAGE);
  const n = integerOption(values.candidates, 'candidates', PERF_USAGE, 10);
  const scaleRows = integerOption(values['scale-rows'], 'scale-rows', PERF_USAGE, 0);

  const loadStart = nowMs();
  const loaded = await loadWasmPhotoAnalyzer(packId, { variants: variantChoice(values, PERF_USAGE) });
  const { encoder, source, files } = loaded;
  const heads = await ResponseHeads.load(source, new Set(files), encoder.fingerprint);
  const chatEncoder = await ChatEncoder.load(source, new Set(files), encoder.tokenizer);
  const chat = chatEncoder ? sessionChat(chatEncoder, await loadChatFusion(source, new Set(files))) : null;
  const loadMs = nowMs() - loadStart;
  const { texts, media } = loadPoolCatalogue(join('public', 'pool'));
  const pre = readPoolEmbeddingsFile(join('public', 'pool'), packId);
  if (!pre) throw new Error(`No pool embeddings for ${packId}: run npm run pool:build -- --pack ${packId}`);
  if (pre.meta.packFingerprint !== loaded.analyzer.fingerprint)
    console.log(
      `(public/pool/embeddings/${packId} was made by another pack, detector or captioner (fingerprint ${pre.meta.packFingerprint}, the app's is ${loaded.analyzer.fingerprint}): the app would recompute it; the timings below do not depend on it. Run npm run pool:build -- --pack ${packId}.)`,
    );
  // As the worker fills the pool: rows from the file, the rest computed (the demo's file holds no CLIP
  // text rows; the page computes them after Ready, and these timings are of the page once it has).
  const progress = new ProgressLine();
  const embedded = await embedPool({
    encoder: loaded.analyzer,
    texts,
    images: media,
    imageKeys: media.map((m) => imageContentKey(m)),
    loadImage: () => Promise.reject(new Error(`an image row is missing from public/pool/embeddings/${packId}: run npm run pool:build -- --pack ${packId}`)),
    precomputed: pre,
    onProgress: ({ phase, done, total }) => progress.update(`embedding the pool: ${phase} ${done}/${total}`, done, total, phase),
  });
  progress.end();
  const dim = embedded.imageMatrix.dim;
  const images = media.map((m) => ({ key: m.key, label: m.label ?? m.alt, alt: m.alt, kind: m.kind, keywords: m.keywords }));
  const pool: SessionPool = {
    texts: texts.map((t) => t.text),
    textMatrix: embedded.textMatrix,
    images,
    imageMatrix: embedded.imageMatrix,
    // The pool's shipped BM25 counts, as the worker reads them (pool:index).
    ...(() => {
      const counts = readLexicalCountsFile(
        join('public', 'pool'),
        texts.map((t) => t.text),
      );
      return counts ? { textCounts: counts } : {};
    })(),
    train: async () =>
      parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', 'train', 'conversations.json'))), {
        file: 'dialogues/train/conversations.json',
      }),
    // The encoder's precomputed keys and stored contexts, as the worker reads them (chat:keys).
    chat: chat
      ? await chatPoolOf(
          chat,
          join('public', 'pool'),
          packId,
          texts.map((t) => t.text),
          images.map((i) => i.label),
        )
      : null,
  };
  // The page's reply session with the page's default method, built before the clock starts.
  const session = new ReplySession(loaded.analyzer, heads, { chat });
  session.setPool(pool);
  await session.prepare();
  const prompts = [
    'we just landed in Lisbon!',
    'look at my new puppy',
    'what should I cook tonight?',
    'the concert was amazing',
    'happy birthday!!',
    'it is snowing here',
  ];
  const ms: number[] = [];
  let last: SessionReply | null = null;
  for (let i = 0; i < turns; i++) {
    const text = `${prompts[i % prompts.length]} (${i})`; // a new text each turn, so nothing is cached
    const start = nowMs();
    last = await session.compose([{ elements: [{ kind: 'text', text }] }]);
    ms.push(nowMs() - start);
  }
  const turn = stats(ms);
  console.log(
    `pack ${packId} · WASM (${encoder.backend.dtypes.text_model}, 1 thread) · Node ${process.version} · method ${last?.method} with ${last?.intentModel} intent (the page's default) · pool ${pool.texts.length} texts + ${pool.images.length} images`,
  );
  console.log(`load: the pack's towers, tokenizer, trained heads, conversational encoder and the object detector   ${loadMs.toFixed(0)} ms`);
  if (pool.chat)
    console.log(
      `  the conversational encoder's keys: ${pool.chat.textKeys.rows} texts + ${pool.chat.imageKeys.rows} images, int8 (${pool.chat.textKeys.kernel}); stored contexts: ${pool.chat.contexts?.vectors.rows ?? 0}`,
    );
  console.log(
    `text turn -> composed reply through the reply session (encode + intent + rank)   median ${turn.median.toFixed(2)} ms   p95 ${turn.p95.toFixed(2)} ms   (n=${turns})`,
  );
  if (chat && pool.chat) await textTurnParts(chat, pool.chat, pool.texts, prompts, turns);
  // Lines a booth visitor types that carry no words, or far too many: each still gets a reply, never an echo of itself.
  const oddLines: [string, (i: number) => string][] = [
    ['nothing after normalisation', (i) => '?!.'.repeat(1 + (i % 7))],
    ['emoji only', (i) => '🍕🙂🎉'.repeat(1 + (i % 5))],
    [
      '5,000 characters',
      (i) =>
        Array.from({ length: 1000 }, (_, w) => ['well', 'so', 'the', 'trip', `day${(w * 7 + i) % 97}`][w % 5])
          .join(' ')
          .slice(0, 5000),
    ],
  ];
  for (const [what, line] of oddLines) {
    const oddMs: number[] = [];
    let empty = 0,
      echoed = 0;
    for (let i = 0; i < Math.min(turns, 40); i++) {
      const text = line(i);
      const start = nowMs();
      const reply = await session.compose([{ elements: [{ kind: 'text', text }] }]);
      oddMs.push(nowMs() - start);
      if (reply.elements.length === 0) empty++;
      if (reply.elements.some((e) => e.kind === 'text' && echoes(e.text, [text]))) echoed++;
    }
    const odd = stats(oddMs);
    console.log(
      `  a line of ${what.padEnd(28)} median ${odd.median.toFixed(2)} ms   p95 ${odd.p95.toFixed(2)} ms   (n=${oddMs.length}; ${empty} empty replies, ${echoed} echoes of the line)`,
    );
  }

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
  console.log(
    `retrieval caption of a 400x300 photo, the app before the detector (decode + image tower + nearest of ${bank.length} sentences)   median ${c.median.toFixed(1)} ms   p95 ${c.p95.toFixed(1)} ms   ("${caption}"; the bank is embedded once, ${bankMs.toFixed(0)} ms)`,
  );

  await photoTurnPerf(loaded.analyzer, heads, chat, pool, photoTurns);

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
  const f = stats(fast),
    j = stats(js),
    s = stats(naive);
  const row = (label: string, r: { median: number; p95: number }, note = '') =>
    `  ${label.padEnd(56)} median ${r.median.toFixed(2).padStart(7)} ms   p95 ${r.p95.toFixed(2).padStart(7)} ms${note}`;
  const which =
    simd.kernel === 'wasm-simd' ? 'WebAssembly SIMD (the kernel validates in this runtime)' : 'the JS scan (WebAssembly SIMD did not validate here)';
  console.log(`rank ${n} candidates x ${dim}, top-10, 30 runs; the app's ScoreMatrix uses ${which}`);
  if (simd.kernel === 'wasm-simd')
    console.log(row('WASM SIMD: matrix product + partial top-k', f, `   (top-10 ${sameTop ? 'the same as' : 'NOT the same as'} the JS scan's)`));
  console.log(
    row(
      'JS (topKByDot, the fallback): one pass + partial top-k',
      j,
      simd.kernel === 'wasm-simd' ? `   (${(j.median / f.median).toFixed(1)}x the SIMD time)` : '',
    ),
  );
  const best = simd.kernel === 'wasm-simd' ? f : j;
  console.log(
    row(
      'naive (copy per candidate + full sort)',
      s,
      `   (${(s.median / best.median).toFixed(1)}x slower than ${simd.kernel === 'wasm-simd' ? 'SIMD' : 'JS'}, ${(s.median / j.median).toFixed(1)}x than JS)`,
    ),
  );
  await heads?.release();
  await chatEncoder?.release();
  await releasePhotoAnalyzer(loaded);
  await installSize();
  if (scaleRows > 0) await scaleBench(pre.data, texts.length + media.length, dim, scaleRows);
}

/**
 * What a text turn's ranking parts cost, each on its own, per query: the encoder's context query, the
 * int8 key scan over the pool's texts, context match (the scan of the stored contexts with the same
 * int8 SIMD kernel, then the weighted mean of what followed them) and BM25 over the pool's texts.
 */
async function textTurnParts(
  chat: SessionChat,
  chatPool: NonNullable<SessionPool['chat']>,
  poolTexts: readonly string[],
  prompts: readonly string[],
  turns: number,
): Promise<void> {
  const bm25 = LexicalIndex.build('bm25', poolTexts, corpusStats(poolTexts));
  const times = { encode: [] as number[], keys: [] as number[], nearest: [] as number[], contextMatch: [] as number[], bm25: [] as number[] };
  const timed = async <T>(into: number[], run: () => T | Promise<T>): Promise<T> => {
    const start = nowMs();
    const out = await run();
    into.push(nowMs() - start);
    return out;
  };
  for (let i = 0; i < turns; i++) {
    const text = `${prompts[i % prompts.length]} (${i})`;
    const query = await timed(times.encode, () => chat.encoder.encodeContext([text]));
    await timed(times.keys, () => chatPool.textKeys.scores(query));
    if (chatPool.contexts) {
      const contexts = chatPool.contexts;
      await timed(times.nearest, () => nearestContexts(query, contexts, chat.contextMatch.neighbours));
      await timed(times.contextMatch, () => contextMatchQuery(query, contexts, chatPool.textKeys, chat.contextMatch));
    }
    await timed(times.bm25, () => bm25.score(text));
  }
  const line = (what: string, ms: number[]) => {
    if (ms.length === 0) return;
    const { median, p95 } = stats(ms);
    console.log(`  ${what.padEnd(78)} median ${median.toFixed(2).padStart(7)} ms   p95 ${p95.toFixed(2).padStart(7)} ms`);
  };
  console.log(`  its parts, each per query (n=${turns}):`);
  line("the conversational encoder's context query", times.encode);
  line(`the int8 key scan of ${chatPool.textKeys.rows.toLocaleString('en')} pool texts (${chatPool.textKeys.kernel})`, times.keys);
  line(`the nearest of ${(chatPool.contexts?.vectors.rows ?? 0).toLocaleString('en')} stored contexts (the same int8 kernel)`, times.nearest);
  line(`context match's whole query (the nearest ${chat.contextMatch.neighbours}, then what followed them)`, times.contextMatch);
  line(`BM25 over the pool's ${poolTexts.length.toLocaleString('en')} texts`, times.bm25);
}

/** The target for what the offline install downloads (issue 26). */
const INSTALL_TARGET_MB = 150;

/**
 * What the offline install downloads, from the production build's own list (the service worker's
 * manifest, made with the build's options by workbox-build): the total and the largest parts.
 */
async function installSize(): Promise<void> {
  if (!existsSync(join('dist', 'index.html'))) {
    console.log('offline install: not measured, there is no production build (npm run build first)');
    return;
  }
  const { getManifest } = await import('workbox-build');
  const { manifestEntries } = await getManifest({ globDirectory: 'dist', ...offlineInjectManifestOptions('models') });
  const kept = (manifestEntries as unknown as ManifestFile[]).filter((e) => e.install);
  const total = kept.reduce((n, e) => n + e.bytes, 0) / 1e6;
  const groups = new Map<string, number>();
  for (const e of kept) {
    const parts = e.url.split('/');
    const group = parts.slice(0, Math.min(parts.length - 1, e.url.startsWith('pool/embeddings') ? 3 : 2)).join('/') || e.url;
    const key = e.url.startsWith('pool/embeddings/') ? e.url.replace(/\.(json|bin)$/, '.*') : group;
    groups.set(key, (groups.get(key) ?? 0) + e.bytes);
  }
  const largest = [...groups]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([k, v]) => `${k} ${(v / 1e6).toFixed(1)}`)
    .join(', ');
  console.log(
    `offline install: ${total.toFixed(1)} MB in ${kept.length} files (target ${INSTALL_TARGET_MB} MB: ${total <= INSTALL_TARGET_MB ? 'met' : 'MISSED'}); largest parts in MB: ${largest}`,
  );
}

/**
 * (2) Photo turns through the reply session (src/engine/response/session.ts, the page's reply path):
 * with the app's analyzer (detector, grounded caption, image tower) and without the detector (the
 * image tower, then the caption-bank sentence, as the worker does when it has no detector). The two
 * alternate, so both see the same load. Step times are the session's own (its reply timings).
 */
async function photoTurnPerf(analyzer: PhotoAnalyzer, heads: ResponseHeads | null, chat: SessionChat | null, pool: SessionPool, turns: number): Promise<void> {
  const photos = await projectPhotos();
  if (photos.length === 0) {
    console.log('photo turn: no photos of the project could be read, so it is not measured');
    return;
  }
  const analyzers = analyzer.detector ? [analyzer, new PhotoAnalyzer(analyzer.encoder, null)] : [analyzer];
  let id = 0;
  const sessions: ReplySession[] = [];
  for (const a of analyzers) {
    // One at a time, as the worker has one: the model sessions take one run at a time.
    const session = new ReplySession(a, heads, { chat });
    session.setPool(pool);
    await session.prepare();
    // Warm-up pass, not counted: without the detector, it embeds the caption bank once.
    for (const photo of photos) await photoTurn(session, photo.pixels, `warm-${id++}`);
    sessions.push(session);
  }
  const timings = sessions.map(() => [] as PhotoTurnTiming[]);
  for (let i = 0; i < turns; i++) {
    const photo = photos[i % photos.length]!;
    // Alternate which goes first, so neither always runs right after the other's work.
    const order = i % 2 === 0 ? sessions.map((_, j) => j) : sessions.map((_, j) => sessions.length - 1 - j);
    for (const j of order) timings[j]!.push(await photoTurn(sessions[j]!, photo.pixels, `photo-${id++}`));
  }
  const [first, second] = timings.map(photoTurnStats) as [PhotoTurnStats, PhotoTurnStats | undefined];
  const withDetector = analyzer.detector ? first : null;
  const withoutDetector = analyzer.detector ? second! : first;
  console.log(
    `photo turn -> composed reply, through the reply session (${photos.map((p) => `${p.name} ${p.pixels.width}x${p.pixels.height}`).join(', ')}; decoded beforehand, decoding not counted; one warm-up pass; n=${turns} each, the photos in turn)`,
  );
  if (!withDetector) console.log('  (no object detector, so only the turn without it is measured)');
  const cell = (s: PhotoTurnStats | null, step: keyof PhotoTurnTiming) =>
    s ? `${s.median[step].toFixed(2).padStart(8)} ${s.p95[step].toFixed(2).padStart(8)}` : `${'-'.padStart(8)} ${'-'.padStart(8)}`;
  console.log(`  ${'step (ms)'.padEnd(44)} ${'with detector'.padStart(17)}   ${'without detector'.padStart(17)}`);
  console.log(`  ${''.padEnd(44)} ${'median'.padStart(8)} ${'p95'.padStart(8)}   ${'median'.padStart(8)} ${'p95'.padStart(8)}`);
  const steps: [string, keyof PhotoTurnTiming][] = [
    ['object detection', 'detectMs'],
    ['caption (grounded / caption bank without)', 'captionMs'],
    ['image tower (encoding)', 'encodeMs'],
    ['intent + ranking', 'composeMs'],
    ["whole photo turn (the worker's totalMs)", 'totalMs'],
  ];
  for (const [label, step] of steps) console.log(`  ${label.padEnd(44)} ${cell(withDetector, step)}   ${cell(withoutDetector, step)}`);
  if (withDetector) {
    const added = addedByDetection(withDetector, withoutDetector);
    console.log(
      `  added by detection and caption: ${withDetector.median.detectMs.toFixed(2)} ms detection + ${withDetector.median.captionMs.toFixed(2)} ms grounded caption = ${added.detectAndCaptionMedianMs.toFixed(2)} ms median per photo (measured inside the turn)`,
    );
    console.log(
      `  whole turn with the detector minus without: ${signed(added.turnMedianMs)} ms median, ${signed(added.turnP95Ms)} ms p95 (without the detector the worker looks the caption up in the caption bank instead${analyzer.encoder.takesGrounding ? '; this image tower takes grounding, so its encoding differs too' : ''})`,
    );
  }
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;
