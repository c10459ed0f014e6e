import { errorMessage } from '../errors';
import type { ModelDtype } from '../onnx/executionPlan';
import {
  type DownloadPlan,
  type HubFileInfo,
  type RemotePack,
  type RemotePackKind,
  UNLISTED_FILE_CAP_BYTES,
  formatBytes,
  hubFileUrl,
  hubTreeUrl,
  parseHubTree,
  planDownload,
  refusedContentType,
  remotePack,
  startsLikeMarkup,
} from './hub';

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
interface HttpResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> } } | null;
  json(): Promise<unknown>;
}
export type HttpFetch = (url: string, init: { headers?: Record<string, string>; signal?: AbortSignalLike }) => Promise<HttpResponseLike>;
declare const URL: new (input: string) => { host: string };
declare const crypto: { subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } };

interface StoredFileState {
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
  /** Set when the hub gave no file list: why, e.g. "127.0.0.1:8080 has no file list (HTTP 404)". Sizes and hashes were then not checked. */
  unlisted?: string;
  /** Set when the finished pack failed to load: what the loader said. The page then offers to delete it and download it again. */
  loadFailure?: string;
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

/** 'refused': the hub was reached but what it sent cannot be a pack (a web page, a damaged file list, more bytes than listed); 'redirect': a redirect that could not be followed. */
export type DownloadFailure = 'unreachable' | 'not-found' | 'http' | 'interrupted' | 'mismatch' | 'quota' | 'paused' | 'refused' | 'redirect';

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
  /** Default UNLISTED_FILE_CAP_BYTES; tests set less. */
  unlistedFileCapBytes?: number;
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
const ANSWER_TIMEOUT_MS = 15_000;

declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

async function request(
  fetchImpl: HttpFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignalLike | undefined,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<HttpResponseLike> {
  let timer: unknown;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    return await Promise.race([fetchImpl(url, { headers, ...(signal ? { signal } : {}) }), timeout]);
  } catch (error) {
    if (signal?.aborted) throw pausedError();
    // The page's fetch explains failures it can tell apart (a redirect loop, a redirect the security policy blocks).
    if (error instanceof PackDownloadError) throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new PackDownloadError(
      'unreachable',
      `Could not reach ${hostOf(url)} (${errorMessage(cause)}). Check the network, or the hub address in Settings. ${RESUME_ADVICE}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

type HubTreeAnswer = { tree: Map<string, HubFileInfo> } | { tree: null; unlisted: string };

/**
 * The hub's tree of the repo (sizes and hashes), or why there is none (a plain mirror has no tree
 * API). A list that is there but damaged is refused: it must not pass for "no list".
 */
async function readHubTree(pack: RemotePack, hub: string, fetchImpl: HttpFetch, signal?: AbortSignalLike, answerTimeoutMs?: number): Promise<HubTreeAnswer> {
  const url = hubTreeUrl(hub, pack);
  const response = await request(fetchImpl, url, {}, signal, answerTimeoutMs);
  if (!response.ok) return { tree: null, unlisted: `${hostOf(url)} gave no file list of ${pack.repo} (HTTP ${response.status})` };
  const damaged = (why: string) =>
    new PackDownloadError(
      'refused',
      `The file list ${hostOf(url)} gave for ${pack.repo} is damaged (${why}), so sizes and hashes cannot be checked and nothing was downloaded. Check the hub address in Settings.`,
    );
  const refused = refusedContentType('tree.json', response.headers.get('content-type'));
  if (refused) throw damaged(`it is ${refused}`);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw damaged('it is not JSON');
  }
  const reading = parseHubTree(json);
  if ('damaged' in reading) throw damaged(reading.damaged);
  return { tree: reading.files };
}

export interface PackDownloadPlan extends DownloadPlan {
  /** Why the hub gave no file list, when it gave none. */
  unlisted?: string;
}

/** Asks the hub what to download for these variants (best first). Throws when the repo lacks a file the pack needs. */
export async function planPackDownload(
  pack: RemotePack,
  hub: string,
  dtypes: readonly ModelDtype[],
  fetchImpl: HttpFetch,
  signal?: AbortSignalLike,
  answerTimeoutMs?: number,
): Promise<PackDownloadPlan> {
  const answer = await readHubTree(pack, hub, fetchImpl, signal, answerTimeoutMs);
  const plan = planDownload(pack, answer.tree, dtypes);
  if ('missing' in plan) {
    throw new PackDownloadError(
      'not-found',
      `${hub} has no file ${plan.missing} in ${pack.repo}, so ${pack.name} cannot be downloaded from it. Check the hub address in Settings (a mirror must hold the whole repo).`,
    );
  }
  return answer.tree ? plan : { ...plan, unlisted: answer.unlisted };
}

/** The variant an ONNX file belongs to, by executionPlan's naming; null for the config files. */
function variantOf(path: string): ModelDtype | null {
  if (!path.endsWith('.onnx')) return null;
  return path.endsWith('_quantized.onnx') ? 'q8' : path.endsWith('_fp16.onnx') ? 'fp16' : 'fp32';
}

/**
 * Most bytes a file the hub lists no size for may have: UNLISTED_FILE_CAP_BYTES, or twice what the
 * file's variant weighs in all on the real hub when that is less (no file of it can be larger).
 */
export function unlistedFileLimit(state: Pick<PackDownloadState, 'packId'>, path: string, capBytes = UNLISTED_FILE_CAP_BYTES): number {
  const pack = remotePack(state.packId);
  if (!pack) return capBytes;
  const variant = variantOf(path);
  const approx = variant ? pack.approxBytes[variant] : Math.min(...Object.values(pack.approxBytes));
  return Math.min(capBytes, 2 * approx);
}

/** What the page says of a pack downloaded without a file list. */
export function unlistedNote(state: Pick<PackDownloadState, 'packId' | 'files' | 'unlisted'>, capBytes?: number): string | null {
  if (!state.unlisted) return null;
  const most = Math.max(...state.files.map((f) => unlistedFileLimit(state, f.path, capBytes)));
  return `${state.unlisted}, so the files' sizes and hashes could not be checked; each file was limited to ${formatBytes(most)}.`;
}

export function newDownloadState(pack: RemotePack, hub: string, plan: PackDownloadPlan, now: string): PackDownloadState {
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
    ...(plan.unlisted ? { unlisted: plan.unlisted } : {}),
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
    const onBytes = (loaded: number) =>
      options.onProgress?.({ file: file.path, loaded, total: file.bytes, packLoaded: loadedBefore + loaded, packTotal: packSize(state) });
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

async function downloadFile(
  state: PackDownloadState,
  file: StoredFileState,
  have: number,
  options: DownloadOptions,
  onBytes: (loaded: number) => void,
): Promise<void> {
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
    throw new PackDownloadError(
      'not-found',
      `${hostOf(url)} has no file ${file.path} in ${state.repo} (HTTP 404). Check the hub address in Settings: a mirror must hold the whole repo.`,
    );
  }
  if (!response.ok) throw new PackDownloadError('http', `${hostOf(url)} answered HTTP ${response.status} for ${file.path}. Try again later; ${RESUME_ADVICE}`);
  const resumed = response.status === 206;
  // A server that ignores Range sends the whole file again: start it over rather than append it twice.
  const keep = resumed ? have : 0;
  const host = hostOf(url);
  const refusal = (why: string) =>
    new PackDownloadError(
      'refused',
      `${host} answered ${file.path} with ${why}: this address does not serve the pack's files. Check the hub address in Settings.`,
    );
  const refusedType = refusedContentType(file.path, response.headers.get('content-type'));
  if (refusedType) {
    await response.body
      ?.getReader()
      .cancel()
      .catch(() => undefined);
    throw refusal(refusedType);
  }
  const length = response.headers.get('content-length');
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const announced = length !== null && /^\d+$/.test(length) && !encoded ? keep + Number(length) : null;
  const listed = file.bytes !== null;
  const cap = unlistedFileLimit(state, file.path, options.unlistedFileCapBytes);
  if (!listed && announced !== null && announced > cap) {
    await response.body
      ?.getReader()
      .cancel()
      .catch(() => undefined);
    throw new PackDownloadError(
      'refused',
      `${host} announces ${file.path} as ${formatBytes(announced)}, more than any file of this pack can have (${formatBytes(cap)}), so it was not downloaded. Check the hub address in Settings.`,
    );
  }
  if (file.bytes === null && announced !== null) {
    file.bytes = announced;
    await store.writeState(state);
  } else if (file.bytes !== null && announced !== null && announced !== file.bytes) {
    throw new PackDownloadError(
      'mismatch',
      `${file.path} from ${host} is ${formatBytes(announced)}, but the hub lists it as ${formatBytes(file.bytes)}. The mirror holds another version of the pack; check the hub address in Settings.`,
    );
  }
  // Bytes past the limit are never written: the size listed (or announced), else the cap; decoded bytes count, so a gzip cannot inflate past it.
  const limit = file.bytes ?? cap;
  const limitSource = file.bytes === null ? 'any file of this pack can have' : state.unlisted ? 'the server announced' : 'the hub lists';
  if (!response.body) throw new PackDownloadError('interrupted', `${host} sent no data for ${file.path}. ${RESUME_ADVICE}`);
  let writer: PackFileWriter;
  try {
    writer = await store.openAppend(state.packId, file.path, keep);
  } catch (error) {
    throw storageError(error, state);
  }
  const reader = response.body.getReader();
  const sniff = keep === 0 && /\.(json|onnx)$/.test(file.path);
  let loaded = keep;
  let stop: PackDownloadError | null = null;
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
        throw new PackDownloadError(
          'interrupted',
          `The download of ${file.path} broke off after ${formatBytes(loaded)}${file.bytes ? ` of ${formatBytes(file.bytes)}` : ''} (${errorMessage(error)}). ${RESUME_ADVICE}`,
          { cause: error },
        );
      }
      if (chunk.done) break;
      const value = chunk.value!;
      if (value.length === 0) continue;
      if (loaded === 0 && sniff && startsLikeMarkup(value)) {
        stop = refusal('a web page (it begins with "<"), not the file');
      } else if (loaded + value.length > limit) {
        stop = new PackDownloadError(
          'refused',
          `${host} sent more of ${file.path} than the ${formatBytes(limit)} ${limitSource}${encoded ? ' once unpacked (it came compressed)' : ''}, so the download was stopped and the file deleted. Check the hub address in Settings: it does not serve the pack's files as the hub does.`,
        );
      }
      if (stop) {
        await reader.cancel().catch(() => undefined);
        break;
      }
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
  if (stop) {
    if (!listed) file.bytes = null; // a Content-Length the server sent is not the file's size
    await store.removeFile(state.packId, file.path).catch(() => undefined);
    await store.writeState(state).catch(() => undefined);
    throw stop;
  }
  if (file.bytes !== null && loaded < file.bytes) {
    throw new PackDownloadError(
      'interrupted',
      `The download of ${file.path} broke off after ${formatBytes(loaded)} of ${formatBytes(file.bytes)}. ${RESUME_ADVICE}`,
    );
  }
  if (file.bytes === null) file.bytes = loaded;
}

function storageError(error: unknown, state: PackDownloadState): PackDownloadError {
  if (error instanceof PackDownloadError) return error;
  if (isQuotaError(error)) {
    const total = packSize(state);
    return new PackDownloadError(
      'quota',
      `This browser ran out of storage space for ${state.packId}${total ? ` (${formatBytes(total)} in all)` : ''}. Delete stored packs or datasets in Settings, or free disk space, then Resume.`,
      { cause: error },
    );
  }
  return new PackDownloadError('interrupted', `The downloaded bytes could not be stored (${errorMessage(error)}). ${RESUME_ADVICE}`, { cause: error });
}

async function verifyFile(state: PackDownloadState, file: StoredFileState, store: PackByteStore): Promise<void> {
  const stored = await store.storedBytes(state.packId, file.path);
  if (file.bytes !== null && stored !== file.bytes) {
    await store.removeFile(state.packId, file.path);
    throw new PackDownloadError(
      'mismatch',
      `${file.path} arrived with ${formatBytes(stored)} instead of ${formatBytes(file.bytes)}, so it was deleted. Resume downloads it again.`,
    );
  }
  if (!file.sha256) return;
  const digest = toHex(await crypto.subtle.digest('SHA-256', await store.readFile(state.packId, file.path)));
  if (digest !== file.sha256) {
    await store.removeFile(state.packId, file.path);
    throw new PackDownloadError(
      'mismatch',
      `${file.path} arrived damaged (its SHA-256 is not the one the hub lists), so it was deleted. Resume downloads it again; if it happens again, the mirror's copy is damaged.`,
    );
  }
}
