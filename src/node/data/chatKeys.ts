import { join } from 'node:path';
import { CONVERSATION_CORPUS_IDS } from '../../engine/conversations/corpora';
import { formatCount } from '../../engine/datasets/validation';
import { chatKeysFingerprint, embedChatKeys, imageKeyText, serializeStoredContexts } from '../../engine/pool/chatPool';
import { serializePoolEmbeddings, textContentKey } from '../../engine/pool/poolEmbeddings';
import { textKey } from '../../engine/pool/textKey';
import { parseCommandLine, requireOptions, runCommand } from '../tools/cliArgs';
import { SHARED_DATA_DIR, readCorpora } from './conversationFiles';
import { writeCacheFiles } from '../tools/textEmbeddingCache';
import { loadPoolCatalogue } from './poolFiles';
import { ProgressLine } from '../tools/progressLine';
import { loadReplyParts, readChatKeysFile, releaseReplyParts } from '../bench/replyParts';

/**
 * npm run chat:keys -- --pack <id> [--pool public/pool] [--data ../shared/data] [--full]
 * What the page's conversational encoder needs of the demo pool, precomputed as the pool's CLIP
 * embeddings are (Node, WASM, the engine's ChatEncoder):
 *  - <pool>/embeddings/<pack>.chat.json/.bin: a key per pool text and per image (its label), int8;
 *    rows of an earlier file whose text did not change are kept unless --full;
 *  - <pool>/embeddings/<pack>.contexts.json/.bin: the stored contexts of context match: every context
 *    of the corpora's train parts (splitCorpus) whose response is a pool text, as the encoder's
 *    query of it (int8), with that response and the pool row of its latest turn (what the lookup matches
 *    a visitor's line against). Never a valid or test conversation.
 */
const USAGE = 'npm run chat:keys -- --pack ID [--pool public/pool] [--data ../shared/data] [--full]';

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      pack: { type: 'string' },
      pool: { type: 'string', default: join('public', 'pool') },
      data: { type: 'string', default: SHARED_DATA_DIR },
      full: { type: 'boolean', default: false },
    },
    USAGE,
  );
  requireOptions(values, ['pack'], USAGE);
  const packId = values.pack!;
  const started = performance.now();
  const parts = await loadReplyParts(packId, { heads: false, fusion: false });
  const encoder = parts.chatEncoder;
  if (!encoder)
    throw new Error(`The pack ${packId} has no conversational encoder (models/${packId}/chat/). Train it first: npm run chat:data && npm run chat:train.`);
  const { texts, media } = loadPoolCatalogue(values.pool);
  const poolTexts = texts.map((t) => t.text);
  const previous = values.full ? null : readChatKeysFile(values.pool, packId);
  const progress = new ProgressLine();
  const keys = await embedChatKeys({
    encoder,
    texts: poolTexts,
    imageLabels: media.map((m) => m.label ?? m.alt),
    precomputed: previous,
    onProgress: ({ done, total }) => progress.update(`keys ${formatCount(done)}/${formatCount(total)}`, done, total),
  });
  progress.end();
  const base = join(values.pool, 'embeddings', packId);
  const keyRows = keys.rows;
  // Laid out as embedChatKeys reads it in the worker: the pool's texts, then the images' labels, all as texts.
  const keyTexts = [...poolTexts, ...media.map((m) => imageKeyText(m.label ?? m.alt))];
  const keysFile = serializePoolEmbeddings(
    `${packId}.chat`,
    chatKeysFingerprint(encoder),
    { textMatrix: keyRows, imageMatrix: { data: new Float32Array(0), rows: 0, dim: keyRows.dim }, textKeys: keyTexts.map(textContentKey), imageKeys: [] },
    'int8',
    { compact: true },
  );
  writeCacheFiles(`${base}.chat`, keysFile.bytes, keysFile.meta);
  console.log(
    `wrote ${base}.chat.json/.bin: ${formatCount(keyRows.rows)} keys of ${keyRows.dim} (int8, ${(keysFile.bytes.byteLength / 1e6).toFixed(1)} MB); ${keys.stats.fromFile} kept from the earlier file, ${keys.stats.computed} computed`,
  );

  // The stored contexts: each train context whose response is in the pool (by text key, as the pool was deduplicated).
  const rowOfKey = new Map<string, number>();
  poolTexts.forEach((t, r) => {
    const key = textKey(t);
    if (!rowOfKey.has(key)) rowOfKey.set(key, r);
  });
  const turns = encoder.config.contextTurns;
  const contexts: { turns: readonly string[]; response: number; latest: number }[] = [];
  let notInPool = 0;
  for (const { conversations } of readCorpora(values.data)) {
    for (const c of conversations) {
      if (c.part !== 'train') continue;
      c.tidyTurns.forEach((text, r) => {
        if (r === 0) return;
        const row = rowOfKey.get(textKey(text));
        if (row === undefined) return void notInPool++;
        contexts.push({ turns: c.tidyTurns.slice(Math.max(0, r - turns), r), response: row, latest: rowOfKey.get(textKey(c.tidyTurns[r - 1]!)) ?? -1 });
      });
    }
  }
  const vectors = new Float32Array(contexts.length * encoder.config.dim);
  const line = new ProgressLine();
  for (let i = 0; i < contexts.length; i++) {
    vectors.set(await encoder.encodeContext(contexts[i]!.turns), i * encoder.config.dim);
    if (i % 500 === 0 || i === contexts.length - 1) line.update(`contexts ${formatCount(i + 1)}/${formatCount(contexts.length)}`, i + 1, contexts.length);
  }
  line.end();
  const stored = serializeStoredContexts(
    encoder,
    vectors,
    contexts.map((c) => c.response),
    contexts.map((c) => c.latest),
    poolTexts,
    `the train parts of ${CONVERSATION_CORPUS_IDS.join(' and ')} (splitCorpus), the latest ${turns} turns of each context`,
  );
  writeCacheFiles(`${base}.contexts`, stored.bytes, stored.meta);
  console.log(
    `wrote ${base}.contexts.json/.bin: ${formatCount(contexts.length)} stored contexts (int8, ${(stored.bytes.byteLength / 1e6).toFixed(1)} MB); ${formatCount(notInPool)} train responses are not in the pool (left out by pool:human) and have none`,
  );
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await releaseReplyParts(parts);
}

await runCommand('chat:keys', main);
