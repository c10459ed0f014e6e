import { unzipSync } from 'fflate';
import { planDatasetFiles } from '../engine/datasets/datasetFiles';
import { datasetFingerprint, pathsAndSizesFingerprint } from '../engine/datasets/datasetFingerprint';
import { type DialogueRecord, parseConversationsBytes } from '../engine/datasets/mmdialog';
import { toMmdialogRecord } from '../engine/datasets/mmdialogExport';
import { datasetFormatOfName, readDatasetFile } from '../engine/datasets/datasetFormats';
import { decodeUtf8Strict } from '../engine/datasets/validation';
import { EngineError, errorMessage } from '../engine/errors';
import { MAX_IMAGE_BYTES, checkImageFile } from '../engine/image/imageFormat';
import { hashBytes, hashText } from '../engine/pool/contentHash';
import {
  type StoredDataset,
  type StoredDatasetText,
  deleteDataset,
  getDataset,
  listDatasets,
  loadDialogues,
  saveDialogues,
  saveImages,
  saveManifest,
  updateManifest,
} from '../persistence/datasetDb';
import type { DatasetFile, FileProgress } from '../protocol/protocol';

/** A dataset's text pool: its texts.json, or its utterance files. */
const TEXT_FORMATS = ['pool-texts', 'utterances'] as const;
/** Images stored per IndexedDB transaction: small enough that a reload loses little work. */
const COPY_BATCH = 64;
const MAX_ZIP_BYTES = 2 * 1024 ** 3;
/** What the files of one zip may unpack to in all: beyond it, unpacking would exhaust the tab's memory. */
const MAX_UNPACKED_BYTES = 2 * 1024 ** 3;

/** An image of a stored dataset that cannot be embedded: it is left out, and the dataset goes on. */
export class UnreadableDatasetImage extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`${key}: ${reason}`);
    this.name = 'UnreadableDatasetImage';
  }
}

/** Writes the manifest unless the dataset was deleted meanwhile; then stops the import and removes what it wrote. */
export async function keepManifest(dataset: StoredDataset): Promise<void> {
  if (await updateManifest(dataset)) return;
  await deleteDataset(dataset.id);
  throw new EngineError('cancelled', `"${dataset.name}" was deleted while it loaded, so loading it stopped and nothing of it is kept.`);
}

/**
 * Imports a folder (or one zip) the person chose: plan from the paths, validate every text file,
 * then copy the images into IndexedDB in batches. Embedding is a separate step (resumable from the
 * stored copies). Nothing leaves the device.
 */
export async function copyDataset(
  name: string,
  files: readonly DatasetFile[],
  onProgress: (p: FileProgress) => void,
  signal?: AbortSignal,
): Promise<CopiedDataset> {
  const { files: entries, skipped: skippedInZips } = await expandZips(files);
  signal?.throwIfAborted();
  const plan = planDatasetFiles(entries.map((f) => f.path));
  plan.skipped.push(...skippedInZips);
  const byPath = new Map(entries.map((f) => [f.path.replace(/\\/g, '/').replace(/^\.?\//, ''), f.blob]));
  const blobAt = (path: string) => byPath.get(path)!;
  const readText = async (path: string) => decodeUtf8Strict(new Uint8Array(await blobAt(path).arrayBuffer()), path);
  if (plan.conversations.length === 0 && plan.textFiles.length === 0 && plan.images.size === 0) {
    throw new EngineError(
      'dataset-invalid',
      `"${name}" has no conversations.json, no .txt or texts.json file and no images, so there is nothing to load. Choose a folder in MMDialog format or a folder of images with a text file of utterances.`,
    );
  }

  // Only the files the import reads make the fingerprint: a skipped file, or an image too large to keep, changes nothing stored.
  const used = [
    ...plan.conversations.map((c) => c.path),
    ...(plan.mediaCatalogue ? [plan.mediaCatalogue] : []),
    ...plan.textFiles,
    ...[...plan.images.values()].filter((path) => blobAt(path).size <= MAX_IMAGE_BYTES),
  ];
  onProgress({ file: CHECKING_STEP, loaded: 0, total: used.length });
  const fingerprint = await datasetFingerprint(
    used.map((path) => ({ path, blob: blobAt(path) })),
    (done, total) => onProgress({ file: CHECKING_STEP, loaded: done, total }),
    signal,
  );
  const stored = await listDatasets();
  const same = stored.find((d) => d.fingerprint === fingerprint && d.status !== 'copying');
  if (same) throw alreadyLoaded(name, same);

  const alts = new Map<string, string>();
  if (plan.mediaCatalogue) {
    const items = readDatasetFile('media-catalogue', await readText(plan.mediaCatalogue), plan.mediaCatalogue);
    for (const item of items) alts.set(item.key, item.alt);
  }
  const hasMedia = (key: string) => plan.images.has(key);
  const splits: { split: string; records: DialogueRecord[] }[] = [];
  for (const { path, split } of plan.conversations) {
    const records = parseConversationsBytes(new Uint8Array(await blobAt(path).arrayBuffer()), { file: path, hasMedia });
    splits.push({ split, records });
  }
  // The text pool: the person's utterance files, else every text of their dialogues.
  const texts: StoredDatasetText[] = [];
  const seen = new Set<string>();
  const addText = (id: string, text: string) => {
    if (!seen.has(text)) {
      seen.add(text);
      texts.push({ id, text });
    }
  };
  for (const path of plan.textFiles) {
    const text = await readText(path);
    const items = readDatasetFile(datasetFormatOfName(path, TEXT_FORMATS) ?? 'utterances', text, path);
    for (const t of items) addText(`${path}#${t.id}`, t.text);
  }
  if (plan.textFiles.length === 0) {
    for (const { split, records } of splits) {
      for (const r of records)
        r.turns.forEach((turn, ti) => turn.elements.forEach((e, ei) => e.kind === 'text' && addText(`${split}/${r.id}/${ti}/${ei}`, e.text)));
    }
  }

  // A dataset stored before content fingerprints carries one of paths and sizes: when it matches, its content is
  // compared, and if that is the same it takes the new fingerprint (found directly from then on).
  const legacyFingerprint = pathsAndSizesFingerprint(entries);
  for (const old of stored.filter((d) => d.fingerprint === legacyFingerprint && d.status !== 'copying')) {
    if (await sameStoredContent(old, { texts, splits, images: plan.images, blobAt })) {
      old.fingerprint = fingerprint;
      await updateManifest(old);
      throw alreadyLoaded(name, old);
    }
  }

  // Other content under a name already in the list (a corrected copy): a new dataset beside it, under a name of its
  // own, since replacing would lose the first one if the correction was the wrong way round.
  const complete = stored.filter((d) => d.status !== 'copying');
  const storedName = freeName(name, new Set(complete.map((d) => d.name)));
  const keptBeside = storedName === name ? null : (complete.find((d) => d.name === name) ?? null);
  // Choosing the folder again after a reload interrupted the copy finishes that dataset instead of adding a second one.
  const interrupted = (await listDatasets()).find((d) => d.status === 'copying' && (d.fingerprint === fingerprint || d.name === storedName));
  const dataset: StoredDataset = {
    id: interrupted?.id ?? `ds-${Date.now().toString(36)}-${hashText(storedName + entries.length).slice(0, 6)}`,
    name: storedName,
    createdAt: Date.now(),
    status: 'copying',
    plannedImages: plan.images.size,
    copied: 0,
    images: [],
    texts,
    splits: splits.map(({ split, records }) => ({ split, dialogues: records.length })),
    problems: plan.skipped.map((s) => `${s.path}: ${s.reason}`),
    fingerprint,
  };
  signal?.throwIfAborted();
  for (const { split, records } of splits) await saveDialogues(dataset.id, split, records.map(toMmdialogRecord));
  await saveManifest(dataset);
  // From here a Cancel removes what was written: a cancelled import keeps nothing, and nothing resumes by itself.
  try {
    return await copyImages(dataset, plan, blobAt, alts, splits, name, keptBeside, onProgress, signal);
  } catch (error) {
    if (signal?.aborted) await deleteDataset(dataset.id);
    throw error;
  }
}

async function copyImages(
  dataset: StoredDataset,
  plan: ReturnType<typeof planDatasetFiles>,
  blobAt: (path: string) => Blob,
  alts: ReadonlyMap<string, string>,
  splits: readonly { split: string; records: readonly DialogueRecord[] }[],
  name: string,
  keptBeside: StoredDataset | null,
  onProgress: (p: FileProgress) => void,
  signal: AbortSignal | undefined,
): Promise<CopiedDataset> {
  const keys = [...plan.images.keys()];
  onProgress({ file: 'Copying images', loaded: 0, total: keys.length });
  for (let b = 0; b < keys.length; b += COPY_BATCH) {
    const batch: { key: string; blob: Blob }[] = [];
    for (const key of keys.slice(b, b + COPY_BATCH)) {
      signal?.throwIfAborted();
      const path = plan.images.get(key)!;
      const blob = blobAt(path);
      const bytes = new Uint8Array(await blob.arrayBuffer());
      try {
        const header = checkImageFile(path, bytes);
        batch.push({ key, blob: new Blob([bytes], { type: `image/${header.format}` }) });
        dataset.images.push({
          key,
          alt: alts.get(key) ?? altFromName(key),
          contentKey: `i:${hashBytes(bytes)}`,
          type: `image/${header.format}`,
          bytes: bytes.length,
        });
      } catch (error) {
        dataset.problems.push(`${path}: ${errorMessage(error)}`);
      }
    }
    await saveImages(dataset.id, batch); // blobs first: the manifest below never counts an image that is not stored
    dataset.copied = Math.min(keys.length, b + COPY_BATCH);
    await keepManifest(dataset);
    onProgress({ file: 'Copying images', loaded: dataset.copied, total: keys.length });
  }
  const referenced = new Set(dataset.images.map((i) => i.key));
  for (const { split, records } of splits) {
    const broken = records.filter((r) => r.turns.some((t) => t.elements.some((e) => e.kind === 'media' && !referenced.has(e.key))));
    if (broken.length > 0)
      dataset.problems.push(`${split}: ${broken.length} dialogue(s) refer to images that could not be read (listed above); they stay in the dataset.`);
  }
  if (dataset.images.length === 0 && dataset.texts.length === 0) {
    // Nothing usable: no entry is left behind to say "interrupted while copying".
    await deleteDataset(dataset.id);
    throw new EngineError('dataset-invalid', `None of the files in "${name}" could be used: ${dataset.problems.slice(0, 3).join('; ')}.`);
  }
  dataset.status = 'embedding';
  await keepManifest(dataset);
  return { dataset, keptBeside };
}

export interface CopiedDataset {
  dataset: StoredDataset;
  /** The stored dataset of the same name but other content, kept as it was (the new one got a name of its own). */
  keptBeside: StoredDataset | null;
}

const CHECKING_STEP = 'Checking file contents';

function alreadyLoaded(name: string, same: StoredDataset): EngineError {
  const renamed = same.name === name ? '' : `: "${name}" holds the same content under another name`;
  return new EngineError(
    'dataset-invalid',
    `These files are already loaded, as "${same.name}" (${new Date(same.createdAt).toLocaleString()})${renamed}. Choose it under "Reply from"; to load them again, delete that one first.`,
  );
}

/** `name`, or the first of "name (2)", "name (3)"… that no stored dataset has. */
function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  let n = 2;
  while (taken.has(`${name} (${n})`)) n++;
  return `${name} (${n})`;
}

/**
 * Whether a dataset stored before content fingerprints holds what this import would store: the same texts,
 * dialogues and image bytes. Unsure (an image it left out) counts as different, so a dataset is never refused wrongly.
 */
async function sameStoredContent(
  old: StoredDataset,
  fresh: {
    texts: readonly StoredDatasetText[];
    splits: readonly { split: string; records: DialogueRecord[] }[];
    images: ReadonlyMap<string, string>;
    blobAt: (path: string) => Blob;
  },
): Promise<boolean> {
  if (old.texts.length !== fresh.texts.length || old.texts.some((t, i) => t.id !== fresh.texts[i]!.id || t.text !== fresh.texts[i]!.text)) return false;
  if (old.splits.length !== fresh.splits.length || old.images.length !== fresh.images.size) return false;
  for (const [i, { split, records }] of fresh.splits.entries()) {
    if (old.splits[i]!.split !== split || old.splits[i]!.dialogues !== records.length) return false;
    const storedRecords = await loadDialogues<unknown>(old.id, split);
    if (JSON.stringify(storedRecords) !== JSON.stringify(records.map(toMmdialogRecord))) return false;
  }
  for (const image of old.images) {
    const path = fresh.images.get(image.key);
    if (!path || image.contentKey !== `i:${hashBytes(new Uint8Array(await fresh.blobAt(path).arrayBuffer()))}`) return false;
  }
  return true;
}

/**
 * The stored dataset, ready to embed or use. `missing` says what its absence means: an error when it is
 * chosen as the pool, a cancellation when it is being loaded (the person deleted it meanwhile).
 */
export async function requireDataset(datasetId: string, missing: 'invalid' | 'cancelled' = 'invalid'): Promise<StoredDataset> {
  const dataset = await getDataset(datasetId);
  if (!dataset && missing === 'cancelled') throw new EngineError('cancelled', `The dataset ${datasetId} was deleted before it finished loading.`);
  if (!dataset) throw new EngineError('dataset-invalid', `The dataset ${datasetId} is no longer stored in this browser. Load it again.`);
  if (dataset.status === 'copying') {
    throw new EngineError(
      'dataset-invalid',
      `Loading "${dataset.name}" was interrupted while copying its images (${dataset.copied} of ${dataset.plannedImages} stored). Choose the folder again to finish, or delete it.`,
    );
  }
  return dataset;
}

function altFromName(key: string): string {
  const words = key
    .replace(/\.[^.]+$/, '')
    .replace(/[_.-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim();
  return words ? `Image "${words}"` : 'Image';
}

async function expandZips(files: readonly DatasetFile[]): Promise<{ files: DatasetFile[]; skipped: { path: string; reason: string }[] }> {
  const out: DatasetFile[] = [];
  const skipped: { path: string; reason: string }[] = [];
  for (const file of files) {
    if (!file.path.toLowerCase().endsWith('.zip')) {
      out.push(file);
      continue;
    }
    if (file.blob.size > MAX_ZIP_BYTES)
      throw new EngineError(
        'dataset-invalid',
        `${file.path} is ${(file.blob.size / 1024 ** 3).toFixed(1)} GB; zips up to 2 GB can be opened. Unpack it and choose the folder instead.`,
      );
    // The sizes the zip declares are read before anything is unpacked, so a zip bomb is refused unopened.
    let unpacked = 0;
    const tooLarge: string[] = [];
    const nested: string[] = [];
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(new Uint8Array(await file.blob.arrayBuffer()), {
        filter: (entry) => {
          if (entry.name.endsWith('/') || entry.name.startsWith('__MACOSX/')) return false;
          if (entry.name.toLowerCase().endsWith('.zip')) {
            nested.push(entry.name);
            return false;
          }
          if (entry.originalSize > MAX_IMAGE_BYTES) {
            tooLarge.push(`${entry.name} (${(entry.originalSize / 1024 ** 2).toFixed(0)} MB unpacked)`);
            return false;
          }
          unpacked += entry.originalSize;
          if (unpacked > MAX_UNPACKED_BYTES) {
            throw new EngineError(
              'dataset-invalid',
              `${file.path} would unpack to more than ${MAX_UNPACKED_BYTES / 1024 ** 3} GB from ${(file.blob.size / 1024 ** 2).toFixed(1)} MB, more than this tab can hold (or it is a "zip bomb"), so it was not opened. Unpack it yourself, check what is inside, and choose the folder.`,
            );
          }
          return true;
        },
      });
    } catch (cause) {
      if (cause instanceof EngineError) throw cause;
      throw new EngineError(
        'dataset-invalid',
        `${file.path} could not be opened as a zip (${errorMessage(cause)}). Check the file, or unpack it and choose the folder.`,
        { cause },
      );
    }
    for (const name of nested)
      skipped.push({
        path: `${file.path}/${name}`,
        reason: 'a zip inside the zip is not opened. Unpack it and put its files in the outer zip (or choose the unpacked folder).',
      });
    for (const name of tooLarge)
      skipped.push({
        path: `${file.path}/${name}`,
        reason: `larger than the ${MAX_IMAGE_BYTES / 1024 ** 2} MB a file of a dataset may be, so it was not unpacked.`,
      });
    const paths = Object.keys(entries);
    if (paths.length === 0) {
      const why =
        nested.length > 0
          ? `it holds only other zips (${nested.slice(0, 3).join(', ')}), and zips inside a zip are not opened. Unpack them and choose the folder, or zip their files directly.`
          : tooLarge.length > 0
            ? `every file in it is over the ${MAX_IMAGE_BYTES / 1024 ** 2} MB limit (${tooLarge.slice(0, 3).join(', ')}).`
            : 'it is empty.';
      throw new EngineError('dataset-invalid', `Nothing in ${file.path} can be loaded: ${why}`);
    }
    // Zips made from a folder put everything under that folder's name: read it as the folder itself.
    const top = paths[0]?.split('/')[0];
    const strip = top !== undefined && paths.every((p) => p.startsWith(`${top}/`)) ? top.length + 1 : 0;
    for (const path of paths) out.push({ path: path.slice(strip), blob: new Blob([entries[path] as Uint8Array<ArrayBuffer>]) });
  }
  return { files: out, skipped };
}
