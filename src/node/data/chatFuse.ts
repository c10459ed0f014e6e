import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERSATION_CORPUS_IDS } from '../../engine/conversations/corpora';
import { type DialogueElement, parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { formatCount } from '../../engine/datasets/validation';
import { corpusStats } from '../../engine/ranking/lexical';
import { CHAT_FUSION_FILE, type ChatFusion } from '../../engine/response/chatEncoder';
import { type ChatPool, ChatEncoderRanker, type ContextMatchSettings, DEFAULT_CONTEXT_MATCH } from '../../engine/ranking/chatRanking';
import { type FusionFit, type FusionQuery, fitFusionWeights, scoreSpread, standardise } from '../../engine/ranking/fusion';
import { HYBRID_PARTS, SELECTION_HYBRID_PARTS, hybridTextParts } from '../../engine/ranking/hybridRanker';
import { LexicalRanker } from '../../engine/ranking/lexicalRanker';
import type { PoolScoringRanker } from '../../engine/ranking/ranker';
import type { QuestionAnswerTable } from '../../engine/ranking/questionAnswerRanker';
import { UTTERANCE_KINDS, echoes, utteranceKind } from '../../engine/response/replyPolicy';
import { sessionChat } from '../../engine/response/session';
import type { CandidatePool, ContextElement, ContextTurn, ResponseState } from '../../engine/response/types';
import { dot, l2Normalize } from '../../engine/retrieval/vectors';
import { type RankingGroup, conversationOneOfHundred } from '../../engine/selection/protocols';
import {
  ChatKeyCache,
  type SelectionScorer,
  chatEncoderScorer,
  contextMatchScorer,
  fusionQueries,
  lexicalScorer,
  questionAnswerScorer,
  rankGroups,
} from '../../engine/ranking/scorers';
import { summarizeRanks } from '../../engine/metrics/dialogMetrics';
import { parseCommandLine, requireOptions, runCommand } from '../tools/cliArgs';
import { SHARED_DATA_DIR, readCorpora } from './conversationFiles';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';
import { embedChatKeys } from '../../engine/pool/chatPool';
import { textKey } from '../../engine/pool/textKey';
import { topKOfScores } from '../../engine/retrieval/vectors';
import { type PoolEmbeddingsFile, embedPool, imageContentKey } from '../../engine/pool/poolEmbeddings';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from '../bench/benchAnalyzer';
import { chatPoolOf, loadReplyParts, readChatKeysFile, releaseReplyParts } from '../bench/replyParts';

/**
 * npm run chat:fuse -- --pack <id> [--pool public/pool] [--data ../shared/data]
 * Learns what is built on the conversational encoder, on data none of its parts was trained on, and
 * writes it to the pack's chat/fusion.json, which the page and `bench -- select` read:
 *  - context match's neighbours and temperature, and the hybrid's text weights (BM25, encoder, context
 *    match; fusion.ts), on the valid parts of DailyDialog and Topical-Chat (carved out of train by
 *    splitCorpus: the encoder was chosen on them, never trained on them), as 1-of-100 batches
 *    ranked as `bench -- select` ranks the test parts; one set of weights per kind of context;
 *  - the page's text weights (pageTextFit): the same parts, but each valid response ranked among the
 *    whole pool, as the page ranks it;
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
/** Valid turns per corpus the page's weights are learned on (every k-th, in file order), and each part's rows kept per turn. */
const PAGE_TURNS_PER_CORPUS = 1500;
const PAGE_TOP_PER_PART = 100;
/** The echo guard's bar in key space: the similarity only 1 in 100 of people's valid replies reaches (as ECHO_BAR for the words). */
const ECHO_BAR_QUANTILE = 0.99;

async function mrrOf(groups: readonly RankingGroup[], scorer: SelectionScorer): Promise<number> {
  return summarizeRanks(await rankGroups(groups, scorer), [1]).mrr;
}

/** A line and the turn that answered it, by text key. */
const turnPairKey = (line: string, response: string) => `${textKey(line)}\u0001${textKey(response)}`;

const fit3 = (queries: FusionQuery[]): FusionFit => fitFusionWeights(queries, 3);
const weightsText = (names: readonly string[], f: FusionFit) => names.map((n, i) => `${n} ${f.weights[i]!.toFixed(2)}`).join(' + ');

/**
 * The page's text weights. The page ranks the whole pool, each part z-scored over all its rows (fusion.ts),
 * and there BM25's long tail (the few rows that share the visitor's rarer words score far above the rest)
 * weighs much more than in a 1-of-100 batch: with the batches' weights the page answered "How are you
 * doing today?" with a line that repeats it. So they are learned as the page ranks: each valid turn's
 * response among the pool's texts (rows with its own text left out), every part scored as methods.ts
 * builds it and z-scored over the pool's rows. Kept per turn are the response and each part's best
 * PAGE_TOP_PER_PART rows, every row that can outrank the response unless the fusion lifts one that no
 * part ranks that high. DailyDialog repeats some dialogues across its parts: a valid turn whose line and
 * answer are also a train pair (12% of its valid turns) is left out, since context match finds that
 * pair's stored context and so its answer, and among 65k texts those few near-certain hits would decide
 * the fit alone (with them it gave context match 0.85). The responses are scored as extra rows: BM25's
 * index and the keys are the pool's with the responses appended (document frequencies from the pool's
 * texts, as the page has them).
 */
async function pageTextFit(
  valid: readonly { corpus: string; conversations: readonly (readonly string[])[]; trainPairs: ReadonlySet<string> }[],
  pool: CandidatePool,
  chatPool: ChatPool,
  precomputedKeys: PoolEmbeddingsFile | null,
  bm25Options: readonly number[],
  questionAnswer: QuestionAnswerTable,
  keyEcho: { bar: number; keyOf: (text: string) => Float32Array },
): Promise<{ fit: FusionFit; bm25Turns: number; turns: string }> {
  const n = pool.texts.length;
  const samples = valid.flatMap(({ corpus, conversations, trainPairs }) => {
    const turns = conversations.flatMap((c) => c.slice(1).map((response, i) => ({ context: c.slice(0, i + 1), response })));
    const all = turns.filter((t) => !trainPairs.has(turnPairKey(t.context.at(-1)!, t.response)));
    const every = Math.max(1, Math.ceil(all.length / PAGE_TURNS_PER_CORPUS));
    const kept = all.filter((_, i) => i % every === 0);
    console.log(
      `page weights: ${corpus} ${formatCount(kept.length)} of ${formatCount(all.length)} valid turns (${formatCount(turns.length - all.length)} more left out: their line and answer are a train pair, whose stored context context match would find)`,
    );
    return kept;
  });
  const responses = samples.map((s) => s.response);
  const extended: CandidatePool = { ...pool, texts: [...pool.texts, ...responses] };
  const keys = await embedChatKeys({ encoder: chatPool.encoder, texts: extended.texts, imageLabels: [], precomputed: precomputedKeys });
  const chatExtended: ChatPool = { ...chatPool, textKeys: keys.textKeys };
  const bm25 = new LexicalRanker('bm25', extended, pool.texts, { turns: Infinity });
  // The page's own parts (hybridTextParts), once per choice of BM25's turns; the parts after BM25 are the same for each.
  const [first, ...others] = bm25Options.map((turns) => hybridTextParts(bm25, extended, chatExtended, { bm25Turns: turns, questionAnswer }));
  const bm25Parts = [first![0]!, ...others.map((p) => p[0]!)];
  const keyParts = first!.slice(1);
  let echoTargets = 0;
  const rowsOfKey = new Map<string, number[]>();
  pool.texts.forEach((t, r) => rowsOfKey.set(textKey(t), [...(rowsOfKey.get(textKey(t)) ?? []), r]));
  const queries = bm25Options.map((): FusionQuery[] => []);
  const noEmbedding = new Float32Array(0);
  for (const [q, { context, response }] of samples.entries()) {
    const state: ResponseState = {
      turns: context.map((text, i) => ({ speaker: (i % 2) as 0 | 1, elements: [{ kind: 'text', text, embedding: noEmbedding }] })),
      partial: [],
    };
    // The echo guard, as the page applies it: a response that echoes a line said could never be given (it
    // counts as wrong, and moves no weight), and rows that echo one are never among those that outrank it.
    const contextKeys = context.map(keyEcho.keyOf);
    const keyEchoes = (key: Float32Array) => contextKeys.some((k) => dot(key, k) >= keyEcho.bar);
    if (echoes(response, context) || keyEchoes(keyEcho.keyOf(response))) {
      echoTargets++;
      continue;
    }
    const exclude = new Set(rowsOfKey.get(textKey(response)) ?? []);
    const keyScores = await Promise.all(keyParts.map((p) => p.poolScores(state, 'text')));
    for (const [o, part] of bm25Parts.entries()) {
      const scores = [await part.poolScores(state, 'text'), ...keyScores];
      const rows = new Set<number>();
      for (const s of scores) for (const { index } of topKOfScores(s.subarray(0, n), PAGE_TOP_PER_PART, exclude)) rows.add(index);
      const kept = [
        n + q,
        ...[...rows].filter((r) => !echoes(pool.texts[r]!, context) && !keyEchoes(keys.rows.data.subarray(r * keys.rows.dim, (r + 1) * keys.rows.dim))),
      ];
      queries[o]!.push({
        parts: scores.map((s) => {
          const spread = scoreSpread(s, n);
          return Float64Array.from(kept, (r) => standardise(s[r]!, spread));
        }),
        target: 0,
        standardised: true,
      });
    }
  }
  console.log(
    `page weights: ${formatCount(echoTargets)} valid responses echo a line of their context (the guard would drop them): counted wrong, for every weight alike`,
  );
  let best: { fit: FusionFit; bm25Turns: number } | null = null;
  for (const [o, turns] of bm25Options.entries()) {
    const fit = fitFusionWeights(queries[o]!, HYBRID_PARTS.text.length);
    // MRR over every sample, the echoing responses at 0.
    fit.mrr = (fit.mrr * fit.queries) / samples.length;
    fit.alone = fit.alone.map((a) => (a * fit.queries) / samples.length);
    console.log(
      `page, BM25 on ${turns === 1 ? 'the latest turn' : 'the whole history'}: ${weightsText(HYBRID_PARTS.text, fit)} (valid MRR among the pool ${fit.mrr.toFixed(4)}; alone ${HYBRID_PARTS.text.map((name, i) => `${name} ${fit.alone[i]!.toFixed(4)}`).join(', ')})`,
    );
    if (!best || fit.mrr > best.fit.mrr + 1e-12) best = { fit, bm25Turns: turns };
  }
  return {
    ...best!,
    turns: `${formatCount(samples.length)} valid turns of ${valid.map((v) => v.corpus).join(' and ')}, each response among the pool's ${formatCount(n)} texts, the echo guard applied`,
  };
}

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    { pack: { type: 'string' }, pool: { type: 'string', default: join('public', 'pool') }, data: { type: 'string', default: SHARED_DATA_DIR } },
    USAGE,
  );
  requireOptions(values, ['pack'], USAGE);
  const packId = values.pack!;
  const started = performance.now();
  const parts = await loadReplyParts(packId, { fusion: false });
  const encoder = parts.chatEncoder;
  if (!encoder)
    throw new Error(`The pack ${packId} has no conversational encoder (models/${packId}/chat/). Train it first: npm run chat:data && npm run chat:train.`);
  if (!parts.heads)
    throw new Error(
      `The pack ${packId} has no trained heads, whose DE++ ranks the hybrid's images. Train them first (npm run heads:train -- --pack ${packId}).`,
    );
  const { texts, media } = loadPoolCatalogue(values.pool);
  const chat = await chatPoolOf(
    sessionChat(encoder, null),
    values.pool,
    packId,
    texts.map((t) => t.text),
    media.map((m) => m.label ?? m.alt),
  );
  if (!chat.contexts)
    throw new Error(`There are no stored contexts for ${packId} in ${values.pool}/embeddings: run npm run chat:keys -- --pack ${packId} first.`);
  const keys = new ChatKeyCache(encoder);

  // What kind of turn follows what kind (question-answer), counted over the train parts' turns.
  const corpora = readCorpora(values.data);
  const questionAnswer: QuestionAnswerTable & { counts: number[][] } = { counts: UTTERANCE_KINDS.map(() => UTTERANCE_KINDS.map(() => 0)) };
  let trainTurns = 0;
  for (const { conversations } of corpora)
    for (const c of conversations) {
      if (c.part !== 'train') continue;
      const kinds = c.tidyTurns.map((t) => UTTERANCE_KINDS.indexOf(utteranceKind(t)));
      for (let r = 1; r < kinds.length; r++, trainTurns++) questionAnswer.counts[kinds[r - 1]!]![kinds[r]!]!++;
    }
  console.log(
    `question-answer, over ${formatCount(trainTurns)} train turns: ${UTTERANCE_KINDS.map((after, i) => {
      const row = questionAnswer.counts[i]!;
      const total = row.reduce((a, b) => a + b, 0);
      return `after a ${after}: ${UTTERANCE_KINDS.map((k, j) => `${k} ${((100 * row[j]!) / Math.max(1, total)).toFixed(0)}%`).join(', ')}`;
    }).join('; ')}`,
  );

  // The real valid parts, as 1-of-100 batches per corpus; BM25's document frequencies from each part's own utterances.
  const valid = corpora.map(({ corpus, conversations }) => {
    const parts = conversations.filter((c) => c.part === 'valid').map((c) => c.tidyTurns);
    const trainPairs = new Set(
      conversations.filter((c) => c.part === 'train').flatMap((c) => c.tidyTurns.slice(1).map((r, i) => turnPairKey(c.tidyTurns[i]!, r))),
    );
    return { corpus, conversations: parts, trainPairs, groups: conversationOneOfHundred(parts).groups, stats: corpusStats([...new Set(parts.flat())]) };
  });
  const contexts = valid.reduce((n, v) => n + v.groups.length * 100, 0);
  console.log(`valid: ${valid.map((v) => `${v.corpus} ${formatCount(v.groups.length * 100)} contexts`).join(', ')}`);

  // The key-space echo guard's bar: 1 in 100 of people's replies in the valid parts comes as close, in the
  // encoder's key space, to a line the other person said earlier in the conversation (as the words' bar, ECHO_BAR).
  const spokenTexts = [...new Set(valid.flatMap((v) => v.conversations.flat()))];
  const spokenKeys = await encoder.encodeResponses(spokenTexts);
  const keyOf = new Map(spokenTexts.map((t, i) => [t, spokenKeys.data.subarray(i * spokenKeys.dim, (i + 1) * spokenKeys.dim)]));
  const closest: number[] = [];
  for (const v of valid)
    for (const turns of v.conversations)
      for (let r = 1; r < turns.length; r++) {
        let best = -1;
        for (let j = r - 1; j >= 0; j -= 2) best = Math.max(best, dot(keyOf.get(turns[r]!)!, keyOf.get(turns[j]!)!));
        closest.push(best);
      }
  closest.sort((a, b) => a - b);
  const echoKeyBar = {
    bar: closest[Math.floor(ECHO_BAR_QUANTILE * (closest.length - 1))]!,
    chosenOn: `the ${100 * ECHO_BAR_QUANTILE}th percentile of the key similarity of ${formatCount(closest.length)} valid replies to the other person's earlier lines`,
  };
  console.log(`echo guard in key space: bar ${echoKeyBar.bar.toFixed(3)} (${echoKeyBar.chosenOn})`);

  // Context match's settings: the best MRR alone, with the whole history (each query's nearest contexts found once, the most neighbours first).
  let contextMatch: ContextMatchSettings & { mrr: number } = { ...DEFAULT_CONTEXT_MATCH, mrr: -1 };
  const nearest = new Map();
  for (const neighbours of [...NEIGHBOURS].reverse()) {
    for (const temperature of TEMPERATURES) {
      let sum = 0;
      for (const v of valid)
        sum +=
          (await mrrOf(
            v.groups,
            contextMatchScorer(
              keys,
              { contexts: chat.contexts, responseKeys: chat.textKeys, settings: { neighbours, temperature }, nearest },
              { turns: Infinity },
            ),
          )) * v.groups.length;
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
        queries.push(
          ...(await fusionQueries(v.groups, [
            lexicalScorer('bm25', v.stats, { turns: bm25Turns }),
            chatEncoderScorer(keys, options),
            contextMatchScorer(keys, { contexts: chat.contexts, responseKeys: chat.textKeys, settings: contextMatch }, options),
            questionAnswerScorer(questionAnswer),
          ])),
        );
      }
      const f = fitFusionWeights(queries, SELECTION_HYBRID_PARTS.length);
      console.log(
        `text, ${context.label}, BM25 on ${bm25Turns === 1 ? 'the latest turn' : 'the whole history'}: ${weightsText(SELECTION_HYBRID_PARTS, f)} (valid MRR ${f.mrr.toFixed(3)}; alone ${SELECTION_HYBRID_PARTS.map((n, i) => `${n} ${f.alone[i]!.toFixed(3)}`).join(', ')}; ${formatCount(f.queries)} contexts)`,
      );
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
    loadImage: () =>
      Promise.reject(
        new Error(`an image row is missing from ${values.pool}/embeddings/${packId}: run npm run pool:build -- --pack ${packId} --without-texts first`),
      ),
    precomputed: readPoolEmbeddingsFile(values.pool, packId),
    deferTexts: true,
  });
  const dim = embedded.imageMatrix.dim;
  const pool: CandidatePool = {
    texts: texts.map((t) => t.text),
    textMatrix: embedded.textMatrix,
    imageKeys: media.map((m) => m.key),
    imageCaptions: media.map((m) => m.label ?? m.alt),
    imageMatrix: embedded.imageMatrix,
  };
  const row = (r: number) => embedded.imageMatrix.data.subarray(r * dim, (r + 1) * dim);
  const imageRow = new Map(media.map((m, r) => [m.key, r]));
  const validFile = join(values.pool, '..', 'dialogues', 'valid', 'conversations.json');
  const records = parseConversationsBytes(new Uint8Array(readFileSync(validFile)), { file: validFile, hasMedia: (k) => imageRow.has(k) });
  // Texts of the valid dialogues are in no pool: encoded as the page encodes a visitor's words.
  const validTexts = [...new Set(records.flatMap((r) => r.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])))))];
  const validEmbeddings = await parts.encoder.encodeTexts(validTexts);
  const textEmbedding = new Map(validTexts.map((t, i) => [t, l2Normalize(validEmbeddings[i]!)]));
  const contextElement = (e: DialogueElement): ContextElement =>
    e.kind === 'text'
      ? { kind: 'text', text: e.text, embedding: textEmbedding.get(e.text)! }
      : { kind: 'image', text: pool.imageCaptions[imageRow.get(e.key)!]!, embedding: row(imageRow.get(e.key)!) };
  const imageQueries: { state: ResponseState; rows: number[] }[] = [];
  for (const record of records) {
    const negatives = (record.negativeMediaKeys ?? []).map((k) => imageRow.get(k)!);
    const turns: ContextTurn[] = record.turns.map((t, i) => ({ speaker: (i % 2) as 0 | 1, elements: t.elements.map(contextElement) }));
    for (let t = 1; t < turns.length; t++) {
      record.turns[t]!.elements.forEach((e, j) => {
        if (e.kind !== 'media') return;
        const target = imageRow.get(e.key)!;
        imageQueries.push({
          state: { turns: turns.slice(0, t), partial: turns[t]!.elements.slice(0, j) },
          rows: [target, ...negatives.filter((r) => r !== target)],
        });
      });
    }
  }
  const chatPool: ChatPool = { encoder, ...chat, contextMatch };
  // The hybrid's parts for images, as methods.ts builds them: BM25 over the whole conversation, DE++, the encoder.
  const imageScorers: PoolScoringRanker[] = [
    new LexicalRanker('bm25', pool, pool.texts, { turns: Infinity }),
    await parts.heads.ranker(pool),
    new ChatEncoderRanker(chatPool),
  ];
  const imageFusion: FusionQuery[] = [];
  for (const q of imageQueries) {
    const scores = await Promise.all(imageScorers.map((s) => s.poolScores(q.state, 'image')));
    imageFusion.push({ parts: scores.map((s) => q.rows.map((r) => s[r]!)), target: 0 });
  }
  const image = fit3(imageFusion);
  const page = await pageTextFit(valid, pool, chatPool, readChatKeysFile(values.pool, packId), [Infinity, 1], questionAnswer, {
    bar: echoKeyBar.bar,
    keyOf: (text) => keyOf.get(text)!,
  });
  console.log(
    `images: ${weightsText(HYBRID_PARTS.image, image)} (demo valid MRR ${image.mrr.toFixed(3)}; alone ${HYBRID_PARTS.image.map((n, i) => `${n} ${image.alone[i]!.toFixed(3)}`).join(', ')}; ${formatCount(image.queries)} images, each among its record's negatives)`,
  );

  const fusion: ChatFusion & { version: 2; contextMatchValidMrr: number } = {
    version: 2,
    contextMatch: { neighbours: contextMatch.neighbours, temperature: contextMatch.temperature },
    contextMatchValidMrr: contextMatch.mrr,
    text,
    page: { weights: page.fit.weights, mrr: page.fit.mrr, alone: page.fit.alone, bm25Turns: page.bm25Turns === 1 ? 1 : null },
    image: { weights: image.weights, mrr: image.mrr, alone: image.alone },
    questionAnswer: { counts: questionAnswer.counts },
    echoKeyBar,
    learnedOn: {
      questionAnswer: `${formatCount(trainTurns)} turns of the train parts of ${CONVERSATION_CORPUS_IDS.join(' and ')}, each the reply to the turn before it`,
      text: `the valid parts of ${CONVERSATION_CORPUS_IDS.join(' and ')} (${formatCount(contexts)} contexts in 1-of-100 batches)`,
      page: page.turns,
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
