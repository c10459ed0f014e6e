import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERSATION_CORPUS_IDS } from '../engine/conversations/corpora';
import { type DialogueElement, parseConversationsBytes } from '../engine/datasets/mmdialog';
import { formatCount } from '../engine/datasets/validation';
import { corpusStats } from '../engine/ranking/lexical';
import { CHAT_FUSION_FILE, type ChatFusion } from '../engine/response/chatEncoder';
import { type ChatPool, ChatEncoderRanker, type ContextMatchSettings, DEFAULT_CONTEXT_MATCH } from '../engine/response/chatRanking';
import { type FusionFit, type FusionQuery, fitFusionWeights } from '../engine/response/fusion';
import { HYBRID_PARTS, LexicalRanker, type PoolScoringRanker } from '../engine/response/rankers';
import { sessionChat } from '../engine/response/session';
import type { CandidatePool, ContextElement, ContextTurn, ResponseState } from '../engine/response/types';
import { l2Normalize } from '../engine/retrieval/vectors';
import { type RankingGroup, conversationOneOfHundred } from '../engine/selection/protocols';
import { ChatKeyCache, type SelectionScorer, chatEncoderScorer, contextMatchScorer, fusionQueries, lexicalScorer, rankGroups } from '../engine/selection/scorers';
import { summarizeRanks } from '../engine/metrics/dialogMetrics';
import { parseCommandLine, requireOptions, runCommand } from './cliArgs';
import { SHARED_DATA_DIR, readCorpora } from './conversationFiles';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';
import { embedPool, imageContentKey } from '../engine/pool/poolEmbeddings';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { chatPoolOf, loadReplyParts, releaseReplyParts } from './replyParts';

/**
 * npm run chat:fuse -- --pack <id> [--pool public/pool] [--data ../shared/data]
 * Learns what is built on the conversational encoder, on data none of its parts was trained on, and
 * writes it to the pack's chat/fusion.json, which the page and `bench -- select` read:
 *  - context match's neighbours and temperature, and the hybrid's text weights (BM25, encoder, context
 *    match; fusion.ts), on the valid parts of DailyDialog and Topical-Chat (carved out of train by
 *    conversationPart: the encoder was chosen on them, never trained on them), as 1-of-100 batches
 *    ranked as `bench -- select` ranks the test parts; one set of weights per kind of context;
 *  - the hybrid's image weights (BM25 over labels, DE++, the encoder over labels) on the demo's valid
 *    dialogues (DE++ was trained on the demo's train split): every image of a valid response among its
 *    record's 999 negative images, the context encoded as the page encodes it.
 */
const USAGE = 'npm run chat:fuse -- --pack ID [--pool public/pool] [--data ../shared/data]';
const CONTEXTS = [
  { label: 'immediate', turns: 1 },
  { label: 'history', turns: Infinity },
] as const;
const NEIGHBOURS = [4, 8, 16, 32, 64, 128];
const TEMPERATURES = [0.01, 0.02, 0.05, 0.1, 0.2];

async function mrrOf(groups: readonly RankingGroup[], scorer: SelectionScorer): Promise<number> {
  return summarizeRanks(await rankGroups(groups, scorer), [1]).mrr;
}

const fit3 = (queries: FusionQuery[]): FusionFit => fitFusionWeights(queries, 3);
const weightsText = (names: readonly string[], f: FusionFit) => names.map((n, i) => `${n} ${f.weights[i]!.toFixed(2)}`).join(' + ');

async function main(): Promise<void> {
  const values = parseCommandLine(process.argv.slice(2), { pack: { type: 'string' }, pool: { type: 'string', default: join('public', 'pool') }, data: { type: 'string', default: SHARED_DATA_DIR } }, USAGE);
  requireOptions(values, ['pack'], USAGE);
  const packId = values.pack!;
  const started = performance.now();
  const parts = await loadReplyParts(packId, { fusion: false });
  const encoder = parts.chatEncoder;
  if (!encoder) throw new Error(`The pack ${packId} has no conversational encoder (models/${packId}/chat/). Train it first: npm run chat:data && npm run chat:train.`);
  if (!parts.heads) throw new Error(`The pack ${packId} has no trained heads, whose DE++ ranks the hybrid's images. Train them first (npm run heads:train -- --pack ${packId}).`);
  const { texts, media } = loadPoolCatalogue(values.pool);
  const chat = await chatPoolOf(sessionChat(encoder, null), values.pool, packId, texts.map((t) => t.text), media.map((m) => m.label ?? m.alt));
  if (!chat.contexts) throw new Error(`There are no stored contexts for ${packId} in ${values.pool}/embeddings: run npm run chat:keys -- --pack ${packId} first.`);
  const keys = new ChatKeyCache(encoder);

  // The real valid parts, as 1-of-100 batches per corpus; BM25's document frequencies from each part's own utterances.
  const valid = readCorpora(values.data).map(({ corpus, conversations }) => {
    const parts = conversations.filter((c) => c.part === 'valid').map((c) => c.tidyTurns);
    return { corpus, groups: conversationOneOfHundred(parts).groups, stats: corpusStats([...new Set(parts.flat())]) };
  });
  const contexts = valid.reduce((n, v) => n + v.groups.length * 100, 0);
  console.log(`valid: ${valid.map((v) => `${v.corpus} ${formatCount(v.groups.length * 100)} contexts`).join(', ')}`);

  // Context match's settings: the best MRR alone, with the whole history (each query's nearest contexts found once, the most neighbours first).
  let contextMatch: ContextMatchSettings & { mrr: number } = { ...DEFAULT_CONTEXT_MATCH, mrr: -1 };
  const nearest = new Map();
  for (const neighbours of [...NEIGHBOURS].reverse()) {
    for (const temperature of TEMPERATURES) {
      let sum = 0;
      for (const v of valid) sum += (await mrrOf(v.groups, contextMatchScorer(keys, { contexts: chat.contexts, responseKeys: chat.textKeys, settings: { neighbours, temperature }, nearest }, { turns: Infinity }))) * v.groups.length;
      const mrr = sum / (contexts / 100);
      if (mrr > contextMatch.mrr + 1e-12) contextMatch = { neighbours, temperature, mrr };
    }
  }
  console.log(`context match: ${contextMatch.neighbours} neighbours, temperature ${contextMatch.temperature} (valid MRR ${contextMatch.mrr.toFixed(3)})`);

  // The text weights per kind of context, over both corpora's valid batches together.
  const text = {} as ChatFusion['text'];
  // BM25 reads the same turns as the other parts, or only the latest one: a long history drowns its words
  // (Topical-Chat: BM25 alone is far better on the latest turn); which of the two is chosen on valid.
  for (const context of CONTEXTS) {
    const options = { turns: context.turns };
    let best: { fit: FusionFit; bm25Turns: number } | null = null;
    for (const bm25Turns of context.turns === 1 ? [1] : [Infinity, 1]) {
      const queries: FusionQuery[] = [];
      for (const v of valid) {
        queries.push(...(await fusionQueries(v.groups, [lexicalScorer('bm25', v.stats, { turns: bm25Turns }), chatEncoderScorer(keys, options), contextMatchScorer(keys, { contexts: chat.contexts, responseKeys: chat.textKeys, settings: contextMatch }, options)])));
      }
      const f = fit3(queries);
      console.log(`text, ${context.label}, BM25 on ${bm25Turns === 1 ? 'the latest turn' : 'the whole history'}: ${weightsText(HYBRID_PARTS.text, f)} (valid MRR ${f.mrr.toFixed(3)}; alone ${HYBRID_PARTS.text.map((n, i) => `${n} ${f.alone[i]!.toFixed(3)}`).join(', ')}; ${formatCount(f.queries)} contexts)`);
      if (!best || f.mrr > best.fit.mrr + 1e-12) best = { fit: f, bm25Turns };
    }
    text[context.label] = { weights: best!.fit.weights, mrr: best!.fit.mrr, alone: best!.fit.alone, bm25Turns: best!.bm25Turns === 1 ? 1 : null };
  }

  // The image weights on the demo's valid dialogues, every part ranking the pool's images as the page does.
  // The pool's CLIP text rows are not read here (BM25 reads the words, DE++ ranks only images): left deferred.
  // Through the page's photo analyzer, whose fingerprint the pool file carries (the image tower reads the detector's captions).
  const photos = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const embedded = await embedPool({
    encoder: photos.analyzer,
    texts,
    images: media,
    imageKeys: media.map((m) => imageContentKey(m)),
    loadImage: () => Promise.reject(new Error(`an image row is missing from ${values.pool}/embeddings/${packId}: run npm run pool:build -- --pack ${packId} --without-texts first`)),
    precomputed: readPoolEmbeddingsFile(values.pool, packId),
    deferTexts: true,
  });
  const dim = embedded.imageMatrix.dim;
  const pool: CandidatePool = { texts: texts.map((t) => t.text), textMatrix: embedded.textMatrix, imageKeys: media.map((m) => m.key), imageCaptions: media.map((m) => m.label ?? m.alt), imageMatrix: embedded.imageMatrix };
  const row = (r: number) => embedded.imageMatrix.data.subarray(r * dim, (r + 1) * dim);
  const imageRow = new Map(media.map((m, r) => [m.key, r]));
  const validFile = join(values.pool, '..', 'dialogues', 'valid', 'conversations.json');
  const records = parseConversationsBytes(new Uint8Array(readFileSync(validFile)), { file: validFile, hasMedia: (k) => imageRow.has(k) });
  // Texts of the valid dialogues are in no pool: encoded as the page encodes a visitor's words.
  const validTexts = [...new Set(records.flatMap((r) => r.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])))))];
  const validEmbeddings = await parts.encoder.encodeTexts(validTexts);
  const textEmbedding = new Map(validTexts.map((t, i) => [t, l2Normalize(validEmbeddings[i]!)]));
  const contextElement = (e: DialogueElement): ContextElement =>
    e.kind === 'text' ? { kind: 'text', text: e.text, embedding: textEmbedding.get(e.text)! } : { kind: 'image', text: pool.imageCaptions[imageRow.get(e.key)!]!, embedding: row(imageRow.get(e.key)!) };
  const imageQueries: { state: ResponseState; rows: number[] }[] = [];
  for (const record of records) {
    const negatives = (record.negativeMediaKeys ?? []).map((k) => imageRow.get(k)!);
    const turns: ContextTurn[] = record.turns.map((t, i) => ({ speaker: (i % 2) as 0 | 1, elements: t.elements.map(contextElement) }));
    for (let t = 1; t < turns.length; t++) {
      record.turns[t]!.elements.forEach((e, j) => {
        if (e.kind !== 'media') return;
        const target = imageRow.get(e.key)!;
        imageQueries.push({ state: { turns: turns.slice(0, t), partial: turns[t]!.elements.slice(0, j) }, rows: [target, ...negatives.filter((r) => r !== target)] });
      });
    }
  }
  const chatPool: ChatPool = { encoder, ...chat, contextMatch };
  // The hybrid's parts for images, as methods.ts builds them: BM25 over the whole conversation, DE++, the encoder.
  const imageScorers: PoolScoringRanker[] = [new LexicalRanker('bm25', pool, pool.texts, { turns: Infinity }), await parts.heads.ranker(pool), new ChatEncoderRanker(chatPool)];
  const imageFusion: FusionQuery[] = [];
  for (const q of imageQueries) {
    const scores = await Promise.all(imageScorers.map((s) => s.poolScores(q.state, 'image')));
    imageFusion.push({ parts: scores.map((s) => q.rows.map((r) => s[r]!)), target: 0 });
  }
  const image = fit3(imageFusion);
  console.log(`images: ${weightsText(HYBRID_PARTS.image, image)} (demo valid MRR ${image.mrr.toFixed(3)}; alone ${HYBRID_PARTS.image.map((n, i) => `${n} ${image.alone[i]!.toFixed(3)}`).join(', ')}; ${formatCount(image.queries)} images, each among its record's negatives)`);

  const fusion: ChatFusion & { version: 1; contextMatchValidMrr: number } = {
    version: 1,
    contextMatch: { neighbours: contextMatch.neighbours, temperature: contextMatch.temperature },
    contextMatchValidMrr: contextMatch.mrr,
    text,
    image: { weights: image.weights, mrr: image.mrr, alone: image.alone },
    learnedOn: {
      text: `the valid parts of ${CONVERSATION_CORPUS_IDS.join(' and ')} (${formatCount(contexts)} contexts in 1-of-100 batches)`,
      image: `the demo's valid dialogues (${formatCount(image.queries)} images, each among its record's negatives)`,
    },
  };
  const out = join(parts.source.location, CHAT_FUSION_FILE);
  writeFileSync(out, `${JSON.stringify(fusion, null, 1)}\n`);
  console.log(`wrote ${out} · ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await releaseReplyParts(parts);
  await releasePhotoAnalyzer(photos);
}

await runCommand('chat:fuse', main);
