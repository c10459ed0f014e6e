import { createStore, delMany, get, getMany, keys, set, setMany } from 'idb-keyval';
import { EngineError } from '../engine/errors';
import { type FileProgress, type PackFileSource, concatBytes } from '../engine/pack/fileSource';
import type { PackByteStore, PackDownloadState, PackFileWriter } from '../engine/pack/packDownload';

/**
 * Downloaded packs in IndexedDB, readable from the page (downloads) and the worker (loading). A file
 * is kept as 256 kB chunks written as they arrive, each with the file's list of chunk sizes in the same
 * transaction: a reload or a cut connection loses at most the chunk being filled, and resuming asks
 * the hub for the rest. (OPFS's createWritable copies the whole file on every commit, and its sync
 * handles exist only in workers; chunks in IndexedDB work the same in both places.)
 */
const db = createStore('mmdialog-packs', 'files');
const CHUNK_BYTES = 256 * 1024;

const stateKey = (packId: string) => `state:${packId}`;
const sizesKey = (packId: string, path: string) => `sizes:${packId}/${path}`;
const chunkKey = (packId: string, path: string, index: number) => `chunk:${packId}/${path}#${String(index).padStart(6, '0')}`;

async function chunkSizes(packId: string, path: string): Promise<number[]> {
  return (await get<number[]>(sizesKey(packId, path), db)) ?? [];
}

async function dropChunks(packId: string, path: string, from: number, count: number): Promise<void> {
  const stale = [];
  for (let i = from; i < count; i++) stale.push(chunkKey(packId, path, i));
  if (stale.length > 0) await delMany(stale, db);
}

class ChunkWriter implements PackFileWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  constructor(
    private readonly packId: string,
    private readonly path: string,
    private readonly sizes: number[],
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const bytes = concatBytes(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    const index = this.sizes.length;
    const sizes = [...this.sizes, bytes.length];
    await setMany(
      [
        [chunkKey(this.packId, this.path, index), bytes],
        [sizesKey(this.packId, this.path), sizes],
      ],
      db,
    );
    this.sizes.push(bytes.length);
  }
}

export const packByteStore: PackByteStore = {
  readState: (packId) => get<PackDownloadState>(stateKey(packId), db).then((s) => s ?? null),
  writeState: (state) => set(stateKey(state.packId), state, db),
  storedBytes: async (packId, path) => (await chunkSizes(packId, path)).reduce((s, n) => s + n, 0),
  async openAppend(packId, path, keep) {
    const sizes = await chunkSizes(packId, path);
    const kept: number[] = [];
    let total = 0;
    for (const size of sizes) {
      if (total + size > keep) break;
      kept.push(size);
      total += size;
    }
    const writer = new ChunkWriter(packId, path, kept);
    if (total < keep) {
      // keep ends inside a chunk: keep its head, written again as the next chunk
      const head = (await get<Uint8Array>(chunkKey(packId, path, kept.length), db))!.subarray(0, keep - total);
      await dropChunks(packId, path, kept.length, sizes.length);
      await set(sizesKey(packId, path), kept, db);
      await writer.write(head);
      await writer.close();
    } else {
      await dropChunks(packId, path, kept.length, sizes.length);
      await set(sizesKey(packId, path), kept, db);
    }
    return writer;
  },
  async readFile(packId, path) {
    const sizes = await chunkSizes(packId, path);
    const chunks = await getMany<Uint8Array | undefined>(
      sizes.map((_, i) => chunkKey(packId, path, i)),
      db,
    );
    if (!chunks.every((c): c is Uint8Array => c instanceof Uint8Array))
      throw new EngineError(
        'pack-file-missing',
        `Part of ${path} of the stored pack ${packId} is missing from this browser's storage. Delete the pack in Settings and download it again.`,
      );
    return concatBytes(chunks);
  },
  async removeFile(packId, path) {
    const sizes = await chunkSizes(packId, path);
    await dropChunks(packId, path, 0, sizes.length);
    await delMany([sizesKey(packId, path)], db);
  },
};

/** Every pack this browser holds, finished or not. */
export async function listStoredPacks(): Promise<PackDownloadState[]> {
  const stateKeys = (await keys<string>(db)).filter((k) => typeof k === 'string' && k.startsWith('state:'));
  const states = await getMany<PackDownloadState>(stateKeys, db);
  return states.filter((s): s is PackDownloadState => !!s && s.version === 1).sort((a, b) => a.packId.localeCompare(b.packId));
}

/** Bytes a pack takes in this browser. */
export async function storedPackBytes(state: PackDownloadState): Promise<number> {
  let sum = 0;
  for (const file of state.files) sum += await packByteStore.storedBytes(state.packId, file.path);
  return sum;
}

/** Deletes a pack and every byte of it. */
export async function deleteStoredPack(packId: string): Promise<void> {
  const mine = (await keys<string>(db)).filter(
    (k) => typeof k === 'string' && (k === stateKey(packId) || k.startsWith(`chunk:${packId}/`) || k.startsWith(`sizes:${packId}/`)),
  );
  await delMany(mine, db);
}

/** A finished pack as the engine reads packs. */
export class StoredPackSource implements PackFileSource {
  readonly location: string;
  readonly repairAdvice = 'Delete it in Settings → Model packs and download it again.';
  constructor(private readonly packId: string) {
    this.location = `stored pack ${packId}/`;
  }

  async readBytes(path: string, onProgress?: (progress: FileProgress) => void): Promise<Uint8Array> {
    onProgress?.({ file: path, loaded: 0, total: null });
    const state = await packByteStore.readState(this.packId);
    const file = state?.files.find((f) => f.path === path);
    if (!state || state.status !== 'complete' || !file?.done) {
      throw new EngineError(
        'pack-file-missing',
        `${path} of ${this.packId} is not in this browser's storage, so the pack cannot be loaded. Download it again in Settings.`,
      );
    }
    const bytes = await packByteStore.readFile(this.packId, path);
    onProgress?.({ file: path, loaded: bytes.length, total: bytes.length });
    return bytes;
  }
}
