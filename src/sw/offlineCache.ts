/**
 * What the service worker does, as plain functions over a cache storage and a fetch it is given, so
 * install, update and serving can be tested with fakes. No DOM and no service-worker globals here.
 *
 * One cache per build version. Install fills the new version's cache completely (copying unchanged
 * files from the previous version, downloading the rest) and only then writes the version's manifest
 * into it, which marks it complete; any failure fails the install, and the previous version keeps
 * serving. Activation deletes every other version.
 */
import { errorMessage } from '../engine/errors';

/** A file the offline copy keeps, by URL relative to the app's base, with a hash of its content. */
export interface ManifestFile {
  url: string;
  revision: string;
  bytes: number;
}

/** Written into sw.js at build time (see src/node/offlineManifest.ts). */
export interface OfflineManifest {
  /** A hash of precache and optional: any changed file makes a new version. */
  version: string;
  /** Kept at install: the app shell, the default pack with the object detector (models/detector/), the demo pool and the dialogues. */
  precache: ManifestFile[];
  /** Kept on first use (the other packs and their pool embeddings); unchanged ones survive an update. */
  optional: ManifestFile[];
  /** The URLs each pack needs to load offline (its files and its precomputed pool embeddings). */
  packs: Record<string, string[]>;
  defaultPack: string | null;
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

export interface CacheProgress {
  doneFiles: number;
  totalFiles: number;
  doneBytes: number;
  totalBytes: number;
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
/** Where a complete version's cache holds its own manifest; never requested by the app. */
export const META_PATH = '__offline__/manifest.json';
/** How long a page load waits for the network before it takes the offline copy of index.html. */
export const PAGE_NETWORK_TIMEOUT_MS = 4000;

export function cacheName(version: string): string {
  return `${CACHE_PREFIX}${version}`;
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

function isQuotaError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'QuotaExceededError' || /quota/i.test(error.message));
}

/** The manifest a cache was completed with, or null when the cache is incomplete. */
export async function readMeta(cache: CacheLike, scope: string): Promise<OfflineManifest | null> {
  const stored = await cache.match(new URL(META_PATH, scope).href);
  if (!stored) return null;
  try {
    return (await stored.json()) as OfflineManifest;
  } catch {
    return null;
  }
}

function revisions(manifest: OfflineManifest): Map<string, string> {
  return new Map([...manifest.precache, ...manifest.optional].map((f) => [f.url, f.revision]));
}

/** A response safe to store and to serve for any request: redirected responses are rebuilt. */
function storable(response: Response): Response {
  if (!response.redirected) return response;
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Downloads one file for the offline copy and checks it is whole and is the file this version expects. */
async function download(file: ManifestFile, absolute: string, fetchFile: (url: string) => Promise<Response>): Promise<Response> {
  let response: Response | null = null;
  let lastError: unknown;
  // One retry: a single dropped connection on conference Wi-Fi should not cost the whole install.
  for (let attempt = 0; attempt < 2 && !response; attempt++) {
    try {
      response = await fetchFile(absolute);
    } catch (error) {
      lastError = error;
    }
  }
  if (!response) {
    throw new OfflineCacheError('file-failed', `${file.url} could not be downloaded for offline use (${errorMessage(lastError)}). Check the connection and reload to try again; the demo keeps working online.`);
  }
  if (response.status !== 200 || response.type === 'opaque' || response.type === 'error') {
    throw new OfflineCacheError('file-failed', `${file.url} could not be downloaded for offline use (HTTP ${response.status}). Reload to try again; if it persists, rebuild and restart the demo server.`);
  }
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const length = response.headers.get('content-length');
  if (!encoded && length !== null && /^\d+$/.test(length) && Number(length) !== file.bytes) {
    throw new OfflineCacheError(
      'file-failed',
      `${file.url} on the server has ${length} bytes where this version of the demo expects ${file.bytes}: the server holds a different build. Reload the page to get the current one.`,
    );
  }
  return storable(response);
}

async function store(cache: CacheLike, url: string, response: Response): Promise<void> {
  try {
    await cache.put(url, response);
  } catch (error) {
    if (isQuotaError(error)) {
      throw new OfflineCacheError('storage-short', `The browser ran out of storage while keeping the demo for offline use. Free some disk space and reload; the demo keeps working online.`);
    }
    throw new OfflineCacheError('file-failed', `${url} could not be stored for offline use (${errorMessage(error)}). Reload to try again.`);
  }
}

/** Runs task over items, at most `limit` at a time; the first failure rejects (the rest are not started). */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export interface InstallDeps {
  caches: CacheStorageLike;
  /** Fetches a file for the cache (the service worker bypasses the HTTP cache's stale copies). */
  fetch: (url: string) => Promise<Response>;
  /** The service worker's scope: an absolute URL ending in '/'. */
  scope: string;
  /** Bytes this origin may still store, or null when the browser does not say. */
  freeBytes?: () => Promise<number | null>;
  onProgress?: (progress: CacheProgress) => void;
  concurrency?: number;
}

interface Donor {
  cache: CacheLike;
  revisions: Map<string, string>;
}

/**
 * Fills the cache of manifest.version completely, then marks it complete. Throws OfflineCacheError
 * when any file fails; the cache stays incomplete (never served) and a later install resumes it.
 */
export async function installVersion(manifest: OfflineManifest, deps: InstallDeps): Promise<void> {
  const name = cacheName(manifest.version);
  const absolute = (url: string) => new URL(url, deps.scope).href;
  const donors: Donor[] = [];
  for (const other of await deps.caches.keys()) {
    if (!other.startsWith(CACHE_PREFIX) || other === name) continue;
    const cache = await deps.caches.open(other);
    const meta = await readMeta(cache, deps.scope);
    // Complete versions keep serving until this one activates; unfinished attempts at other versions are dropped.
    if (meta) donors.push({ cache, revisions: revisions(meta) });
    else await deps.caches.delete(other);
  }
  const cache = await deps.caches.open(name);

  const fromDonor = async (file: ManifestFile): Promise<Response | null> => {
    for (const donor of donors) {
      if (donor.revisions.get(file.url) !== file.revision) continue;
      const stored = await donor.cache.match(absolute(file.url));
      if (stored) return stored;
    }
    return null;
  };

  // What is already here (an earlier attempt at this version) or in a previous version needs no download.
  const plan: { file: ManifestFile; source: 'have' | 'donor' | 'network' }[] = [];
  for (const file of manifest.precache) {
    if (await cache.match(absolute(file.url))) plan.push({ file, source: 'have' });
    else if (donors.some((d) => d.revisions.get(file.url) === file.revision)) plan.push({ file, source: 'donor' });
    else plan.push({ file, source: 'network' });
  }
  const downloadBytes = plan.filter((p) => p.source === 'network').reduce((n, p) => n + p.file.bytes, 0);
  const free = (await deps.freeBytes?.()) ?? null;
  if (free !== null && free < downloadBytes) {
    throw new OfflineCacheError(
      'storage-short',
      `Keeping the demo for offline use needs ${megabytes(downloadBytes)} MB, but the browser lets this site store only ${megabytes(free)} MB more. Free some disk space (private windows allow less) and reload; the demo keeps working online.`,
    );
  }

  const progress: CacheProgress = { doneFiles: 0, totalFiles: plan.length, doneBytes: 0, totalBytes: plan.reduce((n, p) => n + p.file.bytes, 0) };
  deps.onProgress?.({ ...progress });
  await eachLimited(plan, deps.concurrency ?? 6, async ({ file, source }) => {
    const url = absolute(file.url);
    if (source !== 'have') {
      const copied = source === 'donor' ? await fromDonor(file) : null;
      await store(cache, url, copied ?? (await download(file, url, deps.fetch)));
    }
    progress.doneFiles += 1;
    progress.doneBytes += file.bytes;
    deps.onProgress?.({ ...progress });
  });

  // Packs used before keep working offline after an update when their files did not change.
  for (const file of manifest.optional) {
    const url = absolute(file.url);
    if (await cache.match(url)) continue;
    const copied = await fromDonor(file).catch(() => null);
    if (copied) await cache.put(url, copied).catch(() => undefined);
  }
  // Written last: its presence is what makes this version complete.
  await store(cache, absolute(META_PATH), new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/json' } }));
}

/** Deletes every other version's cache; called once this version's install has completed. */
export async function activateVersion(version: string, caches: CacheStorageLike): Promise<string[]> {
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

export interface PackCacheDeps {
  cache: CacheLike;
  fetch: (url: string) => Promise<Response>;
  scope: string;
  onProgress?: (progress: CacheProgress) => void;
}

/**
 * Makes sure a pack (and its pool embeddings) is in this version's cache, downloading what is
 * missing. Resolves when the demo can load this pack with no network.
 */
export async function cachePack(manifest: OfflineManifest, packId: string, deps: PackCacheDeps): Promise<void> {
  const urls = manifest.packs[packId];
  if (!urls) {
    throw new OfflineCacheError('unknown-pack', `The model pack "${packId}" was added after this build, so it is not kept for offline use. Run "npm run build" again to include it.`);
  }
  const files = new Map([...manifest.precache, ...manifest.optional].map((f) => [f.url, f]));
  const wanted = urls.map((url) => files.get(url) ?? { url, revision: '', bytes: 0 });
  const missing: ManifestFile[] = [];
  for (const file of wanted) if (!(await deps.cache.match(new URL(file.url, deps.scope).href))) missing.push(file);
  const progress: CacheProgress = { doneFiles: 0, totalFiles: missing.length, doneBytes: 0, totalBytes: missing.reduce((n, f) => n + f.bytes, 0) };
  deps.onProgress?.({ ...progress });
  await eachLimited(missing, 4, async (file) => {
    const url = new URL(file.url, deps.scope).href;
    await store(deps.cache, url, await download(file, url, deps.fetch));
    progress.doneFiles += 1;
    progress.doneBytes += file.bytes;
    deps.onProgress?.({ ...progress });
  });
}

/** How a request is served: null leaves it to the browser. */
export type Route = 'page' | 'data' | 'asset' | null;

export interface RequestInfoLike {
  method: string;
  url: string;
  mode: string;
}

export function routeOf(request: RequestInfoLike, scope: string): Route {
  if (request.method !== 'GET' || !request.url.startsWith(scope)) return null;
  const path = new URL(request.url).pathname.slice(new URL(scope).pathname.length);
  if (path === 'sw.js' || path.startsWith('__offline__/')) return null;
  if (path === '' || path === 'index.html') return 'page';
  if (path.startsWith('models/') || path.startsWith('pool/') || path.startsWith('dialogues/')) return 'data';
  if (request.mode === 'navigate') return 'page';
  return 'asset';
}

export interface ServeDeps {
  /** This version's cache. */
  cache: () => Promise<CacheLike>;
  fetch: (request: Request) => Promise<Response>;
  scope: string;
  /** Resolves after ms (a timer in the worker; immediate in tests). */
  wait: (ms: number) => Promise<void>;
  /** Keeps the worker alive for work that outlasts the response (storing a file on first use). */
  waitUntil: (work: Promise<unknown>) => void;
}

/** The cache key of a request: its URL without query or fragment. */
function cacheKey(url: string): string {
  const parsed = new URL(url);
  return parsed.origin + parsed.pathname;
}

/**
 * index.html: the network first (so a new build shows at once), the offline copy when the network
 * fails or is slow. Hashed assets: the cache first. Pack, pool and dialogue files: the cache first,
 * and a file fetched from the network is stored, so a pack chosen later works offline after one use.
 */
export async function serve(request: Request, route: Exclude<Route, null>, deps: ServeDeps): Promise<Response> {
  const cache = await deps.cache();
  if (route === 'page') {
    const network = deps.fetch(request);
    const first = await Promise.race([
      network.then(
        (response) => ({ response }),
        () => null,
      ),
      deps.wait(PAGE_NETWORK_TIMEOUT_MS).then(() => null),
    ]);
    if (first && first.response.status < 500) return first.response;
    const stored = await cache.match(new URL('index.html', deps.scope).href);
    if (stored) return stored;
    return first?.response ?? network;
  }
  const key = cacheKey(request.url);
  const range = request.headers.get('range');
  const stored = await cache.match(key);
  if (stored) return range ? rangeOf(stored, range) : stored;
  const response = await deps.fetch(request);
  // Same-origin answers only ('default' is what a test's hand-made Response reports); never opaque ones, whose status is hidden.
  if (route === 'data' && !range && response.status === 200 && (response.type === 'basic' || response.type === 'default')) {
    // Stored as it streams to the page, so the pack loader's byte progress is unchanged.
    deps.waitUntil(cache.put(key, storable(response.clone())).catch(() => undefined));
  }
  return response;
}

/**
 * The part of a stored (whole) response that a Range header asks for: Cache API matches ignore
 * Range, and a media element given 200 for a range request would misbehave. One range only; an
 * unreadable header gets the whole file, as a server that ignores Range would send.
 */
export async function rangeOf(full: Response, header: string): Promise<Response> {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return full;
  const blob = await full.blob();
  const size = blob.size;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  }
  const headers = new Headers(full.headers);
  headers.set('Content-Range', `bytes ${start}-${end}/${size}`);
  headers.set('Content-Length', String(end - start + 1));
  return new Response(blob.slice(start, end + 1), { status: 206, statusText: 'Partial Content', headers });
}
