import { errorMessage } from '../errors';
import type { ModelDtype } from '../onnx/executionPlan';
import { type DownloadPlan, type HubFileInfo, type RemotePack, type RemotePackKind, formatBytes, hubFileUrl, hubTreeUrl, parseHubTree, planDownload } from './hub';

/**
 * Downloads a pack from the hub into a byte store, resumably: each file continues with an HTTP Range
 * request from the bytes already stored, is checked against the hub's size and SHA-256, and only
 * then counts as done. The state is written after every file, so a reload, a cut connection or a
 * pause loses at most the bytes the store had not yet committed. Shared by the page (IndexedDB) and
 * `npm run models:fetch` (the file system).
 */

// fetch, streams and WebCrypto exist in browsers, workers and Node 18+; the engine compiles without
// DOM types, so the parts used are declared here.
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
}
export interface HttpResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> } } | null;
  json(): Promise<unknown>;
}
export type HttpFetch = (url: string, init: { headers?: Record<string, string>; signal?: AbortSignalLike }) => Promise<HttpResponseLike>;
declare const URL: new (input: string) => { host: string };
declare const crypto: { subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } };

export interface StoredFileState {
  path: string;
  /** Expected size (from the hub's tree, else the first response's Content-Length); null until known. */
  bytes: number | null;
  sha256?: string;
  done: boolean;
}

export interface PackDownloadState {
  version: 1;
  packId: string;
  kind: RemotePackKind;
  repo: string;
  revision: string;
  hub: string;
  /** The variant of each model being downloaded. */
  dtypes: Record<string, ModelDtype>;
  files: StoredFileState[];
  /** A download left 'downloading' by a reload continues when the page opens again. */
  status: 'downloading' | 'paused' | 'complete';
  startedAt: string;
  completedAt?: string;
}

export interface PackFileWriter {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** Where downloaded bytes live: IndexedDB in the browser, a folder in Node. */
export interface PackByteStore {
  readState(packId: string): Promise<PackDownloadState | null>;
  writeState(state: PackDownloadState): Promise<void>;
  /** Bytes of a file stored so far (0 when none). */
  storedBytes(packId: string, path: string): Promise<number>;
  /** Appends to a file after its first `keep` bytes; anything stored past them is dropped. */
  openAppend(packId: string, path: string, keep: number): Promise<PackFileWriter>;
  readFile(packId: string, path: string): Promise<Uint8Array>;
  removeFile(packId: string, path: string): Promise<void>;
}

export type DownloadFailure = 'unreachable' | 'not-found' | 'http' | 'interrupted' | 'mismatch' | 'quota' | 'paused';

export class PackDownloadError extends Error {
  override name = 'PackDownloadError';
  constructor(
    readonly kind: DownloadFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number | null;
  /** Bytes of the whole pack stored so far and its size (null while a size is unknown). */
  packLoaded: number;
  packTotal: number | null;
}

export interface DownloadOptions {
  store: PackByteStore;
  fetch: HttpFetch;
  signal?: AbortSignalLike;
  onProgress?: (progress: DownloadProgress) => void;
  /** Default ANSWER_TIMEOUT_MS. */
  answerTimeoutMs?: number;
}

const RESUME_ADVICE = 'What arrived is kept: Resume continues from it.';

function isQuotaError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'QuotaExceededError' || /quota|ENOSPC/i.test(error.message));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function pausedError(): PackDownloadError {
  return new PackDownloadError('paused', `Paused. ${RESUME_ADVICE}`);
}

/** How long to wait for a server's first answer: a hub that accepts connections but never answers must not hang the download. */
export const ANSWER_TIMEOUT_MS = 15_000;

declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

async function request(fetchImpl: HttpFetch, url: string, headers: Record<string, string>, signal: AbortSignalLike | undefined, timeoutMs = ANSWER_TIMEOUT_MS): Promise<HttpResponseLike> {
  let timer: unknown;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    return await Promise.race([fetchImpl(url, { headers, ...(signal ? { signal } : {}) }), timeout]);
  } catch (error) {
    if (signal?.aborted) throw pausedError();
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new PackDownloadError('unreachable', `Could not reach ${hostOf(url)} (${errorMessage(cause)}). Check the network, or the hub address in Settings. ${RESUME_ADVICE}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** The hub's tree of the repo (sizes and hashes), or null when the hub (a plain mirror) has no tree API. */
export async function readHubTree(pack: RemotePack, hub: string, fetchImpl: HttpFetch, signal?: AbortSignalLike, answerTimeoutMs?: number): Promise<Map<string, HubFileInfo> | null> {
  const response = await request(fetchImpl, hubTreeUrl(hub, pack), {}, signal, answerTimeoutMs);
  if (response.status === 404 || !response.ok) return null;
  try {
    return parseHubTree(await response.json());
  } catch {
    return null;
  }
}

/** Asks the hub what to download for these variants (best first). Throws when the repo lacks a file the pack needs. */
export async function planPackDownload(pack: RemotePack, hub: string, dtypes: readonly ModelDtype[], fetchImpl: HttpFetch, signal?: AbortSignalLike, answerTimeoutMs?: number): Promise<DownloadPlan> {
  const tree = await readHubTree(pack, hub, fetchImpl, signal, answerTimeoutMs);
  const plan = planDownload(pack, tree, dtypes);
  if ('missing' in plan) {
    throw new PackDownloadError('not-found', `${hub} has no file ${plan.missing} in ${pack.repo}, so ${pack.name} cannot be downloaded from it. Check the hub address in Settings (a mirror must hold the whole repo).`);
  }
  return plan;
}

export function newDownloadState(pack: RemotePack, hub: string, plan: DownloadPlan, now: string): PackDownloadState {
  return {
    version: 1,
    packId: pack.id,
    kind: pack.kind,
    repo: pack.repo,
    revision: pack.revision,
    hub,
    dtypes: plan.dtypes,
    files: plan.files.map((f) => ({ path: f.path, bytes: f.bytes, ...(f.sha256 ? { sha256: f.sha256 } : {}), done: false })),
    status: 'downloading',
    startedAt: now,
  };
}

export function packSize(state: Pick<PackDownloadState, 'files'>): number | null {
  return state.files.every((f) => f.bytes !== null) ? state.files.reduce((s, f) => s + f.bytes!, 0) : null;
}

function toHex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Downloads what is missing of a started pack. Resolves with the state marked complete; rejects
 * with a PackDownloadError (kind 'paused' when the signal fired), leaving every stored byte in place.
 */
export async function continuePackDownload(state: PackDownloadState, options: DownloadOptions): Promise<PackDownloadState> {
  const { store } = options;
  const doneBytes = async () => {
    let sum = 0;
    for (const f of state.files) sum += f.done ? (f.bytes ?? 0) : await store.storedBytes(state.packId, f.path);
    return sum;
  };
  let packLoaded = await doneBytes();
  for (const file of state.files) {
    if (file.done) continue;
    if (options.signal?.aborted) throw pausedError();
    const before = await store.storedBytes(state.packId, file.path);
    const loadedBefore = packLoaded - before;
    const onBytes = (loaded: number) => options.onProgress?.({ file: file.path, loaded, total: file.bytes, packLoaded: loadedBefore + loaded, packTotal: packSize(state) });
    await downloadFile(state, file, before, options, onBytes);
    await verifyFile(state, file, store);
    file.done = true;
    await store.writeState(state);
    packLoaded = loadedBefore + (file.bytes ?? 0);
  }
  state.status = 'complete';
  state.completedAt = state.completedAt ?? new Date().toISOString();
  await store.writeState(state);
  return state;
}

async function downloadFile(state: PackDownloadState, file: StoredFileState, have: number, options: DownloadOptions, onBytes: (loaded: number) => void): Promise<void> {
  const { store, signal } = options;
  const url = hubFileUrl(state.hub, state, file.path);
  if (file.bytes !== null && have === file.bytes) return; // all bytes arrived before a reload; only the check is left
  if (file.bytes !== null && have > file.bytes) {
    await store.removeFile(state.packId, file.path);
    have = 0;
  }
  const response = await request(options.fetch, url, have > 0 ? { Range: `bytes=${have}-` } : {}, signal, options.answerTimeoutMs);
  if (response.status === 416 && have > 0 && file.bytes === null) {
    file.bytes = have; // the server has no more bytes: what is stored is the whole file
    return;
  }
  if (response.status === 404) {
    throw new PackDownloadError('not-found', `${hostOf(url)} has no file ${file.path} in ${state.repo} (HTTP 404). Check the hub address in Settings: a mirror must hold the whole repo.`);
  }
  if (!response.ok) throw new PackDownloadError('http', `${hostOf(url)} answered HTTP ${response.status} for ${file.path}. Try again later; ${RESUME_ADVICE}`);
  const resumed = response.status === 206;
  // A server that ignores Range sends the whole file again: start it over rather than append it twice.
  const keep = resumed ? have : 0;
  const length = response.headers.get('content-length');
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const announced = length !== null && /^\d+$/.test(length) && !encoded ? keep + Number(length) : null;
  if (file.bytes === null && announced !== null) {
    file.bytes = announced;
    await store.writeState(state);
  } else if (file.bytes !== null && announced !== null && announced !== file.bytes) {
    throw new PackDownloadError('mismatch', `${file.path} from ${hostOf(url)} is ${formatBytes(announced)}, but the hub lists it as ${formatBytes(file.bytes)}. The mirror holds another version of the pack; check the hub address in Settings.`);
  }
  if (!response.body) throw new PackDownloadError('interrupted', `${hostOf(url)} sent no data for ${file.path}. ${RESUME_ADVICE}`);
  let writer: PackFileWriter;
  try {
    writer = await store.openAppend(state.packId, file.path, keep);
  } catch (error) {
    throw storageError(error, state);
  }
  const reader = response.body.getReader();
  let loaded = keep;
  onBytes(loaded);
  try {
    for (;;) {
      if (signal?.aborted) {
        await reader.cancel().catch(() => undefined);
        throw pausedError();
      }
      let chunk: { done: boolean; value?: Uint8Array };
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw pausedError();
        throw new PackDownloadError('interrupted', `The download of ${file.path} broke off after ${formatBytes(loaded)}${file.bytes ? ` of ${formatBytes(file.bytes)}` : ''} (${errorMessage(error)}). ${RESUME_ADVICE}`, { cause: error });
      }
      if (chunk.done) break;
      const value = chunk.value!;
      try {
        await writer.write(value);
      } catch (error) {
        throw storageError(error, state);
      }
      loaded += value.length;
      onBytes(loaded);
    }
  } finally {
    await writer.close().catch(() => undefined);
  }
  if (file.bytes !== null && loaded < file.bytes) {
    throw new PackDownloadError('interrupted', `The download of ${file.path} broke off after ${formatBytes(loaded)} of ${formatBytes(file.bytes)}. ${RESUME_ADVICE}`);
  }
  if (file.bytes === null) file.bytes = loaded;
}

function storageError(error: unknown, state: PackDownloadState): PackDownloadError {
  if (error instanceof PackDownloadError) return error;
  if (isQuotaError(error)) {
    const total = packSize(state);
    return new PackDownloadError('quota', `This browser ran out of storage space for ${state.packId}${total ? ` (${formatBytes(total)} in all)` : ''}. Delete stored packs or datasets in Settings, or free disk space, then Resume.`, { cause: error });
  }
  return new PackDownloadError('interrupted', `The downloaded bytes could not be stored (${errorMessage(error)}). ${RESUME_ADVICE}`, { cause: error });
}

async function verifyFile(state: PackDownloadState, file: StoredFileState, store: PackByteStore): Promise<void> {
  const stored = await store.storedBytes(state.packId, file.path);
  if (file.bytes !== null && stored !== file.bytes) {
    await store.removeFile(state.packId, file.path);
    throw new PackDownloadError('mismatch', `${file.path} arrived with ${formatBytes(stored)} instead of ${formatBytes(file.bytes)}, so it was deleted. Resume downloads it again.`);
  }
  if (!file.sha256) return;
  const digest = toHex(await crypto.subtle.digest('SHA-256', await store.readFile(state.packId, file.path)));
  if (digest !== file.sha256) {
    await store.removeFile(state.packId, file.path);
    throw new PackDownloadError('mismatch', `${file.path} arrived damaged (its SHA-256 is not the one the hub lists), so it was deleted. Resume downloads it again; if it happens again, the mirror's copy is damaged.`);
  }
}
