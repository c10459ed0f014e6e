import { createStore, del, delMany, get, getMany, keys, promisifyRequest, set, setMany } from 'idb-keyval';
import { provenImage } from './provenImage';

/**
 * Datasets a person loaded, kept in IndexedDB on this device only (nothing is uploaded). Used by the
 * worker (which imports) and the page (which lists them and shows their images).
 *
 * Consistency across a reload mid-import: image blobs are written before the manifest counts them,
 * and a batch of blobs is one transaction, so a manifest never claims an image that is not stored.
 */
type DatasetStatus = 'copying' | 'embedding' | 'ready';

interface StoredDatasetImage {
  key: string;
  alt: string;
  /** Content key of the bytes (cache key of its embedding). */
  contentKey: string;
  type: string;
  bytes: number;
}

export interface StoredDatasetText {
  id: string;
  text: string;
}

export interface StoredDataset {
  id: string;
  name: string;
  createdAt: number;
  status: DatasetStatus;
  /** Images planned; `copied` of them are stored (in plan order). */
  plannedImages: number;
  copied: number;
  images: StoredDatasetImage[];
  texts: StoredDatasetText[];
  splits: { split: string; dialogues: number }[];
  problems: string[];
  /** "sha256:" and the SHA-256 of its files (see engine/datasets/datasetFingerprint); datasets stored before carry a hash of paths and sizes, compared by content on the next import. */
  fingerprint?: string;
}

const store = createStore('mmdialog-datasets', 'items');
const embeddingStore = createStore('mmdialog-embeddings', 'rows');

const manifestKey = (id: string) => `dataset:${id}`;
const imageKey = (id: string, key: string) => `image:${id}:${key}`;
const dialoguesKey = (id: string, split: string) => `dialogues:${id}:${split}`;

export async function listDatasets(): Promise<StoredDataset[]> {
  const all = (await keys(store)).filter((k): k is string => typeof k === 'string' && k.startsWith('dataset:'));
  const manifests = await getMany<StoredDataset | undefined>(all, store);
  return manifests.filter((m): m is StoredDataset => !!m).sort((a, b) => a.createdAt - b.createdAt);
}

export function getDataset(id: string): Promise<StoredDataset | undefined> {
  return get<StoredDataset>(manifestKey(id), store);
}

export function saveManifest(dataset: StoredDataset): Promise<void> {
  return set(manifestKey(dataset.id), dataset, store);
}

/**
 * Writes the manifest of a dataset being imported only while it still exists, in one transaction:
 * false means it was deleted meanwhile, and the import must stop rather than bring it back.
 */
export function updateManifest(dataset: StoredDataset): Promise<boolean> {
  return store('readwrite', async (s) => {
    const exists = (await promisifyRequest(s.count(manifestKey(dataset.id)))) > 0;
    if (exists) s.put(dataset, manifestKey(dataset.id));
    await promisifyRequest(s.transaction);
    return exists;
  });
}

export function saveImages(id: string, images: readonly { key: string; blob: Blob }[]): Promise<void> {
  return setMany(
    images.map((i) => [imageKey(id, i.key), i.blob] as [string, Blob]),
    store,
  );
}

export function deleteDatasetImage(id: string, key: string): Promise<void> {
  return del(imageKey(id, key), store);
}

/** A dataset's image, typed by its bytes (see provenImage). */
export async function loadDatasetImage(id: string, key: string): Promise<Blob | undefined> {
  return provenImage(await get<Blob>(imageKey(id, key), store));
}

export function saveDialogues(id: string, split: string, records: unknown[]): Promise<void> {
  return set(dialoguesKey(id, split), records, store);
}

export function loadDialogues<T>(id: string, split: string): Promise<T[] | undefined> {
  return get<T[]>(dialoguesKey(id, split), store);
}

export async function deleteDataset(id: string): Promise<void> {
  // Manifest first: a half-deleted dataset is then invisible rather than broken.
  await del(manifestKey(id), store);
  const mine = (await keys(store)).filter((k) => typeof k === 'string' && (k.startsWith(`image:${id}:`) || k.startsWith(`dialogues:${id}:`)));
  await delMany(mine, store);
}

/** Embedding rows by `${packFingerprint}|${contentKey}` (see engine/pool/poolEmbeddings). */
export const embeddingCache = {
  get: (cacheKeys: readonly string[]) => getMany<Float32Array | undefined>([...cacheKeys], embeddingStore),
  put: (entries: readonly (readonly [string, Float32Array])[]) =>
    setMany(
      entries.map(([k, v]) => [k, v] as [string, Float32Array]),
      embeddingStore,
    ),
  holdsAny: (keyPrefix: string) =>
    embeddingStore('readonly', (store) => promisifyRequest(store.count(IDBKeyRange.bound(keyPrefix, `${keyPrefix}\uffff`)))).then((n) => n > 0),
};
