import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { invitationsFile, trainResponses } from '../../engine/response/coherence';
import { deppKeysFingerprint, serializeDeppImageKeys, shippedDeppImageKeys } from '../../engine/pool/deppKeys';
import { embedPool, imageContentKey } from '../../engine/pool/poolEmbeddings';
import { ResponseHeads } from '../../engine/response/heads';
import { type EmbeddingMatrix, dot, l2Normalize, topKOfScores } from '../../engine/retrieval/vectors';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from '../bench/benchAnalyzer';
import { parseCommandLine, requireOptions, runCommand } from '../tools/cliArgs';
import { writeCacheFiles } from '../tools/textEmbeddingCache';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run pool:keys -- --pack <id> [--pool public/pool] [--dialogues public/dialogues] [--queries 200]
 * What the page's trained heads would otherwise compute after Ready, precomputed with the pool as its
 * CLIP rows are (Node, WASM, the engine's ResponseHeads):
 *  - <pool>/embeddings/<pack>.depp.json/.bin: the DE++ key of every pool image (int8, compact);
 *  - <dialogues>/train/invitations.json: the phrases that invite an image, learned from the train split
 *    (coherence.ts; the same for every pack).
 * It prints what int8 costs in ranking: the DE++ image top-10 of the test split's first turns with the
 * keys as computed and as shipped.
 */
const USAGE = 'npm run pool:keys -- --pack ID [--pool public/pool] [--dialogues public/dialogues] [--queries 200]';

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      pack: { type: 'string' },
      pool: { type: 'string', default: join('public', 'pool') },
      dialogues: { type: 'string', default: join('public', 'dialogues') },
      queries: { type: 'string', default: '200' },
    },
    USAGE,
  );
  requireOptions(values, ['pack'], USAGE);
  const packId = values.pack!;
  const queries = Number(values.queries);
  if (!Number.isInteger(queries) || queries < 0) throw new Error(`--queries must be a whole number, not "${values.queries}". ${USAGE}`);
  // As the worker: the detector beside the pack when its image tower takes grounding, so the fingerprint is the page's.
  const parts = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const { analyzer, encoder, source, files } = parts;
  const heads = await ResponseHeads.load(source, new Set(files), encoder.fingerprint);
  if (!heads)
    throw new Error(
      `The pack ${packId} has no trained heads (models/${packId}/heads/), so it has no DE++ keys to ship. Train them first: npm run heads:data && npm run heads:train.`,
    );
  const { media } = loadPoolCatalogue(values.pool);
  const imageKeys = media.map((m) => imageContentKey(m));
  // The page's image rows: those of the pool's CLIP file, as the worker reads them.
  const embedded = await embedPool({
    encoder: analyzer,
    texts: [],
    images: media,
    imageKeys,
    loadImage: () =>
      Promise.reject(
        new Error(`An image row is missing from ${values.pool}/embeddings/${packId}.json: rebuild it first (npm run pool:build -- --pack ${packId}).`),
      ),
    precomputed: readPoolEmbeddingsFile(values.pool, packId),
  });
  const started = performance.now();
  const keys = await heads.keys(embedded.imageMatrix, 'image');
  const file = serializeDeppImageKeys(packId, analyzer.fingerprint, keys, imageKeys);
  const base = join(values.pool, 'embeddings', `${packId}.depp`);
  writeCacheFiles(base, file.bytes, file.meta);
  console.log(
    `wrote ${base}.json/.bin: ${keys.rows} image keys of ${keys.dim} (int8, ${(file.bytes.byteLength / 1e3).toFixed(0)} kB, ${deppKeysFingerprint(analyzer.fingerprint)}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const train = parseConversationsBytes(new Uint8Array(readFileSync(join(values.dialogues, 'train', 'conversations.json'))), {
    file: 'dialogues/train/conversations.json',
  });
  const invitations = invitationsFile(trainResponses(train));
  const invitationsPath = join(values.dialogues, 'train', 'invitations.json');
  writeFileSync(`${invitationsPath}.tmp`, `${JSON.stringify(invitations, null, 1)}\n`);
  renameSync(`${invitationsPath}.tmp`, invitationsPath);
  console.log(`wrote ${invitationsPath}: ${invitations.phrases.length} phrases that invite an image, learned from ${train.length} train dialogues`);

  // The page's own check of the file, as it will run it.
  const checked = await shippedDeppImageKeys(file, { clipFingerprint: analyzer.fingerprint, imageKeys, imageMatrix: embedded.imageMatrix, heads });
  if (!checked.keys) throw new Error(`The file just written does not pass the page's check: ${checked.reason}.`);

  // What int8 costs: DE++ image rankings of real first turns with the computed keys and with the shipped ones.
  const records = parseConversationsBytes(new Uint8Array(readFileSync(join(values.dialogues, 'test', 'conversations.json'))), {
    file: 'dialogues/test/conversations.json',
  });
  const firstTexts = records.flatMap((r) => r.turns[0]!.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []))).slice(0, queries);
  if (firstTexts.length > 0) {
    const embeddings = await encoder.encodeTexts(firstTexts);
    const rank = (m: EmbeddingMatrix, q: Float32Array) =>
      topKOfScores(
        Float64Array.from({ length: m.rows }, (_, r) => dot(m.data.subarray(r * m.dim, (r + 1) * m.dim), q)),
        10,
      ).map((s) => s.index);
    let top1 = 0;
    let overlap = 0;
    for (const [i, text] of firstTexts.entries()) {
      const q = await heads.query(
        { turns: [{ speaker: 0, elements: [{ kind: 'text', text, embedding: l2Normalize(embeddings[i]!) }] }], partial: [] },
        'image',
      );
      const a = rank(keys, q);
      const b = rank(checked.keys, q);
      if (a[0] === b[0]) top1++;
      overlap += b.filter((x) => a.includes(x)).length / 10;
    }
    console.log(
      `int8 against the computed keys, DE++ image ranking of ${firstTexts.length} test first turns: same top-1 ${((100 * top1) / firstTexts.length).toFixed(1)}%, top-10 overlap ${((100 * overlap) / firstTexts.length).toFixed(1)}%`,
    );
  }
  await heads.release();
  await releasePhotoAnalyzer(parts);
}

await runCommand('pool:keys', main);
