import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConversationsBytes } from '../engine/datasets/mmdialog';
import { l2Normalize } from '../engine/retrieval/vectors';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { parseCommandLine, runCommand } from './cliArgs';
import { loadPoolCatalogue, readPoolEmbeddingsFile } from './poolFiles';

/**
 * npm run heads:data -- --pack <id>
 * Exports what the heads are trained on (models/scripts/heads/train_heads.py): the pack's unit CLIP
 * embedding of every text and image of the demo dialogues and pool, and the dialogues as lists of
 * item indices, to models/.cache/heads/<pack>/. The embeddings come from the same engine and pool
 * file the app uses, so the heads see exactly what they will see at run time.
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
  if (!pre || pre.meta.packFingerprint !== analyzer.fingerprint) throw new Error(`${poolDir}/embeddings/${packId}.json is missing or was made by another version of ${packId} or of the object detector. Run "npm run pool:build -- --pack ${packId}" first.`);
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
    const records = parseConversationsBytes(new Uint8Array(readFileSync(join('public', 'dialogues', split, 'conversations.json'))), { file: `${split}/conversations.json`, hasMedia: (k) => imageIndex.has(k) });
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
  writeFileSync(join(out, 'dialogues.json'), JSON.stringify({ pack: packId, packFingerprint: encoder.fingerprint, dim, kinds: items.map((i) => i.kind), poolTexts: texts.length, poolImages: media.length, splits }));
  console.log(`wrote ${out}: ${items.length} items (${texts.length} pool texts, ${media.length} pool images, ${pending.length} dialogue texts encoded now) x ${dim}`);
  await releasePhotoAnalyzer(loaded);
}

await runCommand('heads:data', main);
