/**
 * What the offline copy needs beyond Workbox (which downloads, stores and serves in sw.ts), as plain
 * functions over a cache storage, so they can be tested with fakes: one cache per build version,
 * files carried over from an older version instead of downloaded again, and failures that name the
 * file and say what to do. No DOM and no service-worker globals here.
 */
import { errorMessage } from '../engine/errors.ts';
import type { RuntimeBuild } from '../engine/onnx/executionPlan.ts';

/** One file of the offline copy, as the build writes it into sw.js (see src/node/tools/offlineManifest.ts). */
export interface OfflineEntry {
  /** Relative to the app's base. */
  url: string;
  /** A hash of the content; null where the file name carries one already (Vite's assets/). */
  revision: string | null;
  bytes: number;
  /** Kept at install (app shell, default pack, object detector, pool, dialogues); the rest when its pack is first used. */
  install: boolean;
  /** The pack the file belongs to: its model files and its pool embeddings. */
  pack?: string;
  /** SHA-256 of the content (hex), where the build could read the file: a stored copy must match it. */
  sha256?: string;
  /**
   * A file of onnxruntime's WebGPU-capable build: kept with the pack in use, only where the page's worker
   * runs that build (runtimeBuild), not at install; the WASM-only build is kept at install.
   */
  runtime?: RuntimeBuild;
}

/** The part of Cache this code uses; the browser's Cache fits it. */
export interface CacheLike {
  match(url: string): Promise<Response | undefined>;
  put(url: string, response: Response): Promise<void>;
  keys(): Promise<ReadonlyArray<{ url: string }>>;
}

/** The part of CacheStorage this code uses; the browser's caches fits it. */
export interface CacheStorageLike {
  open(name: string): Promise<CacheLike>;
  delete(name: string): Promise<boolean>;
  keys(): Promise<string[]>;
}

export type OfflineFailure = 'storage-short' | 'file-failed' | 'unknown-pack';

export class OfflineCacheError extends Error {
  constructor(
    readonly reason: OfflineFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OfflineCacheError';
  }
}

export const CACHE_PREFIX = 'mmdialog-offline-';
/** How long a page load waits for the network before it takes the offline copy of index.html. */
export const PAGE_NETWORK_TIMEOUT_S = 4;

export function cacheName(version: string): string {
  return `${CACHE_PREFIX}${version}`;
}

/**
 * A hash of every entry, so any changed file makes a new version and with it a new cache. Synchronous
 * (two 32-bit FNV-1a lanes), because the service worker needs its cache name before any await.
 */
export function offlineVersion(entries: readonly OfflineEntry[]): string {
  // Field by field: injectManifest writes the entries with sorted keys, the build hands them over unsorted.
  const text = JSON.stringify(entries.map((e) => [e.url, e.revision, e.bytes, e.install, e.pack ?? null]));
  let a = 0x811c9dc5;
  let b = 0x2f7b6a93;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return hex(a) + hex(b);
}

/**
 * The key a file is stored under: the one Workbox's precache uses (its URL with the revision as
 * __WB_REVISION__), for files stored on first use too, so the same key always means the same content.
 */
export function storedKey(entry: Pick<OfflineEntry, 'url' | 'revision'>, scope: string): string {
  const url = new URL(entry.url, scope);
  if (entry.revision) url.searchParams.set('__WB_REVISION__', entry.revision);
  return url.href;
}

/** A URL relative to the scope, as the manifest and the messages name files. */
export function relativeUrl(url: string, scope: string): string {
  const path = new URL(url).pathname;
  const base = new URL(scope).pathname;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/**
 * Before Workbox installs a version: copies into its cache every file an older version of the app
 * holds under the same key (unchanged since), so only changed files are downloaded, and packs used
 * before stay offline. Returns the bytes the install still has to download.
 */
export async function carryOver(caches: CacheStorageLike, version: string, entries: readonly OfflineEntry[], scope: string): Promise<number> {
  const name = cacheName(version);
  const target = await caches.open(name);
  const donors = new Map<string, CacheLike>();
  for (const other of await caches.keys()) {
    if (!other.startsWith(CACHE_PREFIX) || other === name) continue;
    const cache = await caches.open(other);
    for (const { url } of await cache.keys()) if (!donors.has(url)) donors.set(url, cache);
  }
  let downloadBytes = 0;
  for (const entry of entries) {
    const key = storedKey(entry, scope);
    // Already here: an earlier attempt at this same version stored it.
    if (await target.match(key)) continue;
    const copy = await donors.get(key)?.match(key);
    if (copy) await target.put(key, copy);
    else if (entry.install) downloadBytes += entry.bytes;
  }
  return downloadBytes;
}

/** Deletes every other version's cache (older ones and failed attempts); called once this version is active. */
export async function dropOtherVersions(caches: CacheStorageLike, version: string): Promise<string[]> {
  const keep = cacheName(version);
  const deleted: string[] = [];
  for (const name of await caches.keys()) {
    if (name.startsWith(CACHE_PREFIX) && name !== keep) {
      await caches.delete(name);
      deleted.push(name);
    }
  }
  return deleted;
}

/** The files of onnxruntime's build the worker runs that install did not keep (none for the WASM-only build). */
export function runtimeEntries(entries: readonly OfflineEntry[], build: RuntimeBuild): OfflineEntry[] {
  return entries.filter((e) => e.runtime === build);
}

/** The files a pack needs offline (its model files and its pool embeddings). */
export function packEntries(entries: readonly OfflineEntry[], packId: string): OfflineEntry[] {
  const files = entries.filter((e) => e.pack === packId);
  if (files.length === 0) {
    throw new OfflineCacheError(
      'unknown-pack',
      `The model pack "${packId}" was added after this build, so it is not kept for offline use. Run "npm run build" again to include it.`,
    );
  }
  return files;
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Refuses to start an install the browser has no room for, saying how much is needed. */
export function checkStorage(downloadBytes: number, freeBytes: number | null): void {
  if (freeBytes === null || freeBytes >= downloadBytes) return;
  throw new OfflineCacheError(
    'storage-short',
    `Keeping the demo for offline use needs ${megabytes(downloadBytes)} MB, but the browser lets this site store only ${megabytes(freeBytes)} MB more. Free some disk space (private windows allow less) and reload; the demo keeps working online.`,
  );
}

/**
 * Why a downloaded file must not be kept, or null when it may: only whole same-origin answers, and
 * (Workbox checks no sizes) only the file this version lists, not one of another build.
 */
export function rejectionOf(url: string, response: Response, expectedBytes: number | null): OfflineCacheError | null {
  if (response.status !== 200 || response.type === 'opaque' || response.type === 'error') {
    return new OfflineCacheError(
      'file-failed',
      `${url} could not be downloaded for offline use (HTTP ${response.status}). Reload to try again; if it persists, rebuild and restart the demo server.`,
    );
  }
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const length = response.headers.get('content-length');
  if (expectedBytes !== null && !encoded && length !== null && /^\d+$/.test(length) && Number(length) !== expectedBytes) {
    return new OfflineCacheError(
      'file-failed',
      `${url} on the server has ${length} bytes where this version of the demo expects ${expectedBytes}: the server holds a different build. Reload the page to get the current one.`,
    );
  }
  return null;
}

function isQuotaError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return name === 'QuotaExceededError' || (typeof message === 'string' && /quota/i.test(message));
}

/** Any failure to keep one file, as a sentence that names it and says what to do. */
export function fileFailure(url: string, error: unknown): OfflineCacheError {
  if (error instanceof OfflineCacheError) return error;
  if (isQuotaError(error)) {
    return new OfflineCacheError(
      'storage-short',
      `The browser ran out of storage while keeping the demo for offline use. Free some disk space and reload; the demo keeps working online.`,
    );
  }
  return new OfflineCacheError(
    'file-failed',
    `${url} could not be downloaded for offline use (${errorMessage(error)}). Check the connection and reload to try again; the demo keeps working online.`,
  );
}

/**
 * Checks a file's whole body against what the build listed: its size, and its SHA-256 where listed.
 * A truncated or altered download is then never stored, so it cannot outlive a reload or a fixed server.
 */
export async function bodyRejection(
  url: string,
  body: ArrayBuffer,
  expected: Pick<OfflineEntry, 'bytes' | 'sha256'> | null,
): Promise<OfflineCacheError | null> {
  if (!expected) return null;
  if (body.byteLength !== expected.bytes) {
    return new OfflineCacheError(
      'file-failed',
      `${url} arrived with ${body.byteLength} bytes where this version of the demo expects ${expected.bytes}, so it was not kept. Reload to fetch it again; if it persists, rebuild and restart the demo server.`,
    );
  }
  if (expected.sha256) {
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', body)), (b) => b.toString(16).padStart(2, '0')).join('');
    if (digest !== expected.sha256) {
      return new OfflineCacheError(
        'file-failed',
        `${url} arrived damaged (its SHA-256 differs from the build's), so it was not kept. Reload to fetch it again; if it persists, rebuild and restart the demo server.`,
      );
    }
  }
  return null;
}
