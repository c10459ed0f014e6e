import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { type EmbeddingMatrix, l2Normalize } from '../../engine/retrieval/vectors';
import { type ClipMapTrainingOptions, type MapQuery, mapRecallAmongNegatives, trainClipMap } from '../../engine/ranking/trainClipMap';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from '../bench/benchAnalyzer';
import { parseCommandLine, runCommand } from '../tools/cliArgs';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run heads:data -- --pack <id>
 * Exports what the heads are trained on (models/scripts/heads/train_heads.py): the pack's unit CLIP
 * embedding of every text and image of the demo dialogues and pool, and the dialogues as lists of
 * item indices, to models/.cache/heads/<pack>/, and trains clip-map there (writeClipMaps). The
 * embeddings come from the same engine and pool file the app uses, so the heads see exactly what they
 * will see at run time.
 */
const USAGE = 'npm run heads:data -- [--pack mini-clip]';

async function main(): Promise<void> {
  const { pack: packId } = parseCommandLine(process.argv.slice(2), { pack: { type: 'string', default: 'mini-clip' } }, USAGE);
  const poolDir = join('public', 'pool');
  // The pool file holds the app's embeddings: for a tower that takes the detector's grounding, they
  // depend on the detector too, and the file carries the photo analyzer's fingerprint.
  const loaded = await loadWasmPhotoAnalyzer(packId, { detector: 'if-grounding' });
  const { encoder, analyzer } = loaded;
  const { texts, media } = loadPoolCatalogue(poolDir);
  const pre = readPoolEmbeddingsFile(poolDir, packId);
  if (!pre || pre.meta.packFingerprint !== analyzer.fingerprint)
    throw new Error(
      `${poolDir}/embeddings/${packId}.json is missing or was made by another version of ${packId} or of the object detector. Run "npm run pool:build -- --pack ${packId}" first.`,
    );
  const dim = pre.meta.dim;

  // Items: pool texts, then pool images, then dialogue texts that are not in the pool.
  const rows: Float32Array[] = [];
  const items: { kind: 'text' | 'image'; value: string }[] = [];
  const textIndex = new Map<string, number>();
  texts.forEach((t, i) => {
    textIndex.set(t.text, items.length);
    items.push({ kind: 'text', value: t.text });
    rows.push(pre.data.subarray(i * dim, (i + 1) * dim));
  });
  const imageIndex = new Map<string, number>();
  media.forEach((m, i) => {
    imageIndex.set(m.key, items.length);
    items.push({ kind: 'image', value: m.key });
    const r = texts.length + i;
    rows.push(pre.data.subarray(r * dim, (r + 1) * dim));
  });
  const splits: Record<string, { id: string; turns: number[][]; negativeTexts?: number[]; negativeImages?: number[] }[]> = {};
  const pending: string[] = [];
  const textItem = (text: string) => {
    let i = textIndex.get(text);
    if (i === undefined) {
      i = items.length;
      textIndex.set(text, i);
      items.push({ kind: 'text', value: text });
      rows.push(new Float32Array(dim)); // filled below, in batches
      pending.push(text);
    }
    return i;
  };
  for (const split of ['train', 'valid', 'test']) {
    const records = parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', split, 'conversations.json'))), {
      file: `${split}/conversations.json`,
      hasMedia: (k) => imageIndex.has(k),
    });
    splits[split] = records.map((r) => ({
      id: r.id,
      turns: r.turns.map((t) => t.elements.map((e) => (e.kind === 'text' ? textItem(e.text) : imageIndex.get(e.key)!))),
      ...(r.negativeTexts ? { negativeTexts: r.negativeTexts.map(textItem) } : {}),
      ...(r.negativeMediaKeys ? { negativeImages: r.negativeMediaKeys.map((k) => imageIndex.get(k)!) } : {}),
    }));
  }
  for (let b = 0; b < pending.length; b += 64) {
    const batch = pending.slice(b, b + 64);
    (await encoder.encodeTexts(batch)).forEach((e, j) => rows[textIndex.get(batch[j]!)!]!.set(l2Normalize(e)));
  }
  const out = join('models', '.cache', 'heads', packId);
  mkdirSync(out, { recursive: true });
  const data = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => data.set(r, i * dim));
  writeFileSync(join(out, 'embeddings.bin'), new Uint8Array(data.buffer));
  writeFileSync(
    join(out, 'dialogues.json'),
    JSON.stringify({
      pack: packId,
      packFingerprint: encoder.fingerprint,
      dim,
      kinds: items.map((i) => i.kind),
      poolTexts: texts.length,
      poolImages: media.length,
      splits,
    }),
  );
  console.log(
    `wrote ${out}: ${items.length} items (${texts.length} pool texts, ${media.length} pool images, ${pending.length} dialogue texts encoded now) x ${dim}`,
  );
  writeClipMaps(out, encoder.fingerprint, { data, rows: rows.length, dim }, items, splits);
  await releasePhotoAnalyzer(loaded);
}

/**
 * clip-map for the heads: one map per candidate modality, trained by the project's one clip-map
 * trainer (src/engine/ranking/trainClipMap.ts) and written beside the data as clip_map.bin (text W,
 * then image W, row-major float32) and clip_map.json; train_heads.py reads them, starts its ranker's
 * keys from them and ships them as the pack's clip-map. x is the unit mean of the latest turn's
 * embeddings (the ranker's contextVector), y a response element; the epoch (a trained one, as the
 * heads' recipe always had) is chosen by valid R@1 of each reference among its record's first 99
 * negatives of its modality.
 */
const HEADS_MAP_TRAINING: ClipMapTrainingOptions = { maxEpochs: 60, patience: 8, batchSize: 64, learningRate: 1e-3, scale: 20, seed: 7, keepEpochZero: false };

type IndexedRecord = { turns: number[][]; negativeTexts?: number[]; negativeImages?: number[] };

function writeClipMaps(
  out: string,
  fingerprint: string,
  items: EmbeddingMatrix,
  kinds: readonly { kind: 'text' | 'image' }[],
  splits: Record<string, IndexedRecord[]>,
): void {
  const d = items.dim;
  const row = (i: number) => items.data.subarray(i * d, (i + 1) * d);
  const pairs = (split: string, modality: 'text' | 'image') =>
    (splits[split] ?? []).flatMap((record) =>
      record.turns.slice(1).flatMap((turn, t) => {
        const x = new Float32Array(d);
        for (const i of record.turns[t]!) for (let k = 0; k < d; k++) x[k]! += row(i)[k]!;
        const negatives = (modality === 'text' ? record.negativeTexts : record.negativeImages)?.slice(0, 99) ?? [];
        return turn.filter((i) => kinds[i]!.kind === modality).map((target): MapQuery => ({ x: l2Normalize(x), target, negatives }));
      }),
    );
  const stack = (vectors: readonly Float32Array[]): EmbeddingMatrix => {
    const data = new Float32Array(vectors.length * d);
    vectors.forEach((v, i) => data.set(v, i * d));
    return { data, rows: vectors.length, dim: d };
  };
  const maps: Record<string, { a: number; validR1: number; bestEpoch: number; trainPairs: number; validQueries: number }> = {};
  const weights: Float32Array[] = [];
  for (const modality of ['text', 'image'] as const) {
    const train = pairs('train', modality);
    const valid = pairs('valid', modality).filter((q) => q.negatives.length > 0);
    const trained = trainClipMap(
      { x: stack(train.map((p) => p.x)), y: stack(train.map((p) => row(p.target))) },
      (map) => mapRecallAmongNegatives(map, items, valid),
      {
        ...HEADS_MAP_TRAINING,
        onEpoch: ({ epoch, loss, validR1 }) =>
          process.stderr.write(
            `clip-map ${modality} epoch ${epoch}: loss ${Number.isNaN(loss) ? '-' : loss.toFixed(3)}, valid R@1 among 99 negatives ${(100 * validR1).toFixed(1)}\n`,
          ),
      },
    );
    weights.push(trained.w);
    maps[modality] = { a: trained.a, validR1: trained.validR1, bestEpoch: trained.bestEpoch, trainPairs: train.length, validQueries: valid.length };
    console.log(
      `clip-map ${modality}: valid R@1 among 99 negatives ${(100 * trained.validR1).toFixed(1)} at epoch ${trained.bestEpoch} (${train.length} train pairs, ${valid.length} valid references)`,
    );
  }
  const w = new Float32Array(2 * d * d);
  weights.forEach((m, i) => w.set(m, i * d * d));
  writeFileSync(join(out, 'clip_map.bin'), new Uint8Array(w.buffer, w.byteOffset, w.byteLength));
  writeFileSync(join(out, 'clip_map.json'), JSON.stringify({ packFingerprint: fingerprint, dim: d, recipe: HEADS_MAP_TRAINING, ...maps }, null, 1));
}

await runCommand('heads:data', main);
