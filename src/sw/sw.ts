/// <reference lib="webworker" />
/**
 * The service worker of the production build. vite-plugin-pwa builds it into sw.js and Workbox's
 * injectManifest writes this build's file list in place of self.__WB_MANIFEST. Workbox downloads,
 * stores and serves; what it lacks (a cache per version, carrying files over, failures that name the
 * file) is in offlineCache.ts.
 */
import type { WorkboxPlugin } from 'workbox-core/types';
import { PrecacheController, PrecacheRoute } from 'workbox-precaching';
import { RangeRequestsPlugin } from 'workbox-range-requests';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { assertNever, errorMessage } from '../engine/errors';
import { CROSS_ORIGIN_ISOLATION_HEADERS, contentSecurityPolicy } from '../engine/securityPolicy';
import {
  type CacheLike,
  type CacheStorageLike,
  type OfflineEntry,
  OfflineCacheError,
  bodyRejection,
  PAGE_NETWORK_TIMEOUT_S,
  cacheName,
  carryOver,
  checkStorage,
  dropOtherVersions,
  fileFailure,
  offlineVersion,
  packEntries,
  rejectionOf,
  relativeUrl,
  runtimeEntries,
  storedKey,
} from './offlineCache';
import type { RuntimeBuild } from '../engine/onnx/executionPlan';
import { OFFLINE_COPY_HEADER, TurnGate } from './turnGate';
import { type CachePackReply, type ServiceWorkerBroadcast, isPageMessage } from './protocol';

declare const self: ServiceWorkerGlobalScope;

// The build writes OfflineEntry objects here (src/node/tools/offlineManifest.ts), Workbox's entries plus what the page needs.
const entries = self.__WB_MANIFEST as unknown as OfflineEntry[];
const version = offlineVersion(entries);
const versionCache = cacheName(version);
const scope = self.registration.scope;
/** Matches ignore Vary: a stored file is the same file whatever encoding the browser asked for. */
const matchOptions: CacheQueryOptions = { ignoreVary: true };

const entryByUrl = new Map(entries.map((e) => [new URL(e.url, scope).href, e]));
/** A URL without query or fragment: neither names another file. */
const bareUrl = (url: string) => {
  const bare = new URL(url);
  bare.search = '';
  bare.hash = '';
  return bare.href;
};
const entryOf = (url: string) => entryByUrl.get(bareUrl(url));
const rejection = (request: Request, response: Response) => rejectionOf(relativeUrl(request.url, scope), response, entryOf(request.url)?.bytes ?? null);

interface Progress {
  doneFiles: number;
  totalFiles: number;
  doneBytes: number;
  totalBytes: number;
}

/** The first failure to keep this answer: its status and length, then its whole body against the build's size and hash. */
async function storeRejection(request: Request, response: Response): Promise<OfflineCacheError | null> {
  return rejection(request, response) ?? bodyRejection(relativeUrl(request.url, scope), await response.clone().arrayBuffer(), entryOf(request.url) ?? null);
}

/** Keeps only whole files of this build; anything else fails the install or the pack request, naming the file. */
const onlyThisBuild: WorkboxPlugin = {
  cacheWillUpdate: async ({ request, response }) => {
    const error = await storeRejection(request, response);
    if (error) throw error;
    return response;
  },
};

/** Names the file whose download or storing failed; Workbox's own errors do not say what to do. */
const namedFailures: WorkboxPlugin = {
  handlerDidError: async ({ request, error }) => {
    throw fileFailure(relativeUrl(request.url, scope), error);
  },
};

let installProgress: Progress | null = null;
/** Counts each file of the install as Workbox finishes it, downloaded or carried over. */
const installReport: WorkboxPlugin = {
  handlerDidComplete: async ({ request, error }) => {
    if (!installProgress || error) return;
    installProgress.doneFiles += 1;
    installProgress.doneBytes += entryOf(request.url)?.bytes ?? 0;
    reportInstall(installProgress);
  },
};

/**
 * Pages and scripts the service worker serves are cross-origin isolated (worker scripts too, which need
 * it for threads). A file read by fetch() (destination '': a model, the pool) is same-origin data that
 * needs no policy, and is handed over as stored: a Response rebuilt here streams its body through this
 * thread in 64 KB chunks, 20 MB in 0.4-0.8 s, where the stored one reaches the page in about 0.1 s
 * (issue 38's reload).
 */
const isolated: WorkboxPlugin = {
  handlerWillRespond: async ({ request, response }) => (request.destination === '' ? response : withHeaders(response, CROSS_ORIGIN_ISOLATION_HEADERS)),
};

/** While the page is busy (the model loading, a reply being answered), the offline copy starts no new download (the page says when, turnGate.ts). */
const turnGate = new TurnGate();
const waitsForTurns: WorkboxPlugin = {
  requestWillFetch: async ({ request }) => {
    await turnGate.wait();
    // Named, so a server's log (and the e2e test of the pause) can tell the copy from the page's own
    // requests, and what the page had last said when this one passed the gate.
    const headers = new Headers(request.headers);
    headers.set(OFFLINE_COPY_HEADER, turnGate.stamp);
    return new Request(request, { headers });
  },
};

const precache = new PrecacheController({
  cacheName: versionCache,
  plugins: [waitsForTurns, onlyThisBuild, namedFailures, installReport, new RangeRequestsPlugin(), isolated],
});
precache.strategy.matchOptions = matchOptions;
precache.addToCacheList(entries.filter((e) => e.install).map(({ url, revision }) => ({ url, revision })));

/** Pack files are stored under the same revisioned keys as the precache, so an update can tell unchanged ones. */
const revisionedKeys: WorkboxPlugin = {
  cacheKeyWillBeUsed: async ({ request }) => {
    const entry = entryOf(request.url);
    // Headers kept: a Range header must reach RangeRequestsPlugin.
    return new Request(entry ? storedKey(entry, scope) : bareUrl(request.url), { headers: request.headers });
  },
};

/** Files of a pack the page loads: from this version's cache, else from the network, stored as they stream to the page. */
const packFiles = new CacheFirst({
  cacheName: versionCache,
  matchOptions,
  plugins: [
    revisionedKeys,
    // A partial, failed or foreign answer still reaches the page, but is not kept.
    { cacheWillUpdate: async ({ request, response }) => ((await storeRejection(request, response)) ? null : response) },
    new RangeRequestsPlugin(),
    isolated,
  ],
});
/** The same cache for a pack the page asks to keep ('cache-pack'): here a bad file is an error to report. */
const packRequests = new CacheFirst({ cacheName: versionCache, matchOptions, plugins: [waitsForTurns, revisionedKeys, onlyThisBuild] });

const pathOf = (url: URL) => url.pathname.slice(new URL(scope).pathname.length);
const inScope = (url: URL) => url.href.startsWith(scope);
const isData = (path: string) => path.startsWith('models/') || path.startsWith('pool/') || path.startsWith('dialogues/');

// index.html: the network first (so a new build shows at once), this version's copy when the network fails, errs or is slow.
registerRoute(
  ({ url, request }) => {
    const path = pathOf(url);
    return inScope(url) && (path === '' || path === 'index.html' || (request.mode === 'navigate' && !isData(path) && path !== 'sw.js'));
  },
  new NetworkFirst({
    cacheName: versionCache,
    matchOptions,
    networkTimeoutSeconds: PAGE_NETWORK_TIMEOUT_S,
    plugins: [
      { cacheKeyWillBeUsed: async ({ request }) => precache.getCacheKeyForURL(new URL('index.html', scope).href) ?? request },
      // The stored page stays the one this version's assets belong to.
      { cacheWillUpdate: async () => null },
      // A static host may send no policy: the page the service worker answers with always carries it.
      {
        handlerWillRespond: async ({ response }) =>
          withHeaders(response, { 'Content-Security-Policy': contentSecurityPolicy(), ...CROSS_ORIGIN_ISOLATION_HEADERS }),
      },
      {
        fetchDidSucceed: async ({ response }) => {
          if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
          return response;
        },
      },
    ],
  }),
);
// Everything kept at install, from the cache; query strings do not name another file.
registerRoute(new PrecacheRoute(precache, { ignoreURLParametersMatching: [/.*/] }));
registerRoute(({ url }) => inScope(url) && isData(pathOf(url)), packFiles);
// onnxruntime's WebGPU-capable build, kept where the page's worker runs it (cachePack), like a pack's files.
registerRoute(({ url }) => entryOf(url.href)?.runtime !== undefined, packFiles);

/** The response with these headers set (a Response's own headers cannot be changed). */
function withHeaders(response: Response, set: Record<string, string>): Response {
  if (response.type === 'opaque' || Object.entries(set).every(([name, value]) => response.headers.get(name) === value)) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(set)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Caches through Cache objects that ignore Vary, as the offline code expects. */
function wrap(cache: Cache): CacheLike {
  return {
    match: (url) => cache.match(url, matchOptions),
    put: (url, response) => cache.put(url, response),
    keys: () => cache.keys(),
  };
}

const storage: CacheStorageLike = {
  open: async (name) => wrap(await caches.open(name)),
  delete: (name) => caches.delete(name),
  keys: () => caches.keys(),
};

function failure(error: unknown): { reason: OfflineCacheError['reason'] | 'internal'; message: string } {
  if (error instanceof OfflineCacheError) return { reason: error.reason, message: error.message };
  return {
    reason: 'internal',
    message: `Keeping the demo for offline use failed (${errorMessage(error)}). Reload to try again; the demo keeps working online.`,
  };
}

async function broadcast(message: ServiceWorkerBroadcast): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage(message);
}

/** At most one message per percent, so two thousand small files do not flood the page. */
function throttled(send: (p: Progress) => void): (p: Progress) => void {
  let lastPercent = -1;
  return (p) => {
    const percent = p.totalBytes > 0 ? Math.floor((100 * p.doneBytes) / p.totalBytes) : 100;
    if (percent === lastPercent && p.doneFiles < p.totalFiles) return;
    lastPercent = percent;
    send(p);
  };
}

const reportInstall = throttled((p) => void broadcast({ type: 'install-progress', version, ...p }));

async function freeBytes(): Promise<number | null> {
  try {
    const { quota, usage } = await self.navigator.storage.estimate();
    return quota === undefined || usage === undefined ? null : quota - usage;
  } catch {
    return null;
  }
}

async function installVersion(event: ExtendableEvent): Promise<void> {
  checkStorage(await carryOver(storage, version, entries, scope), await freeBytes());
  const kept = entries.filter((e) => e.install);
  installProgress = { doneFiles: 0, totalFiles: kept.length, doneBytes: 0, totalBytes: kept.reduce((n, e) => n + e.bytes, 0) };
  reportInstall(installProgress);
  // Workbox stores what is missing, one file at a time; the browser activates this version only if all of it is stored.
  await precache.install(event);
  installProgress = null;
}

self.addEventListener('install', (event) => {
  // No skipWaiting: a new version waits until the page offers a reload, never swapping under a chat.
  event.waitUntil(
    installVersion(event).catch(async (error: unknown) => {
      installProgress = null;
      await broadcast({ type: 'install-failed', version, ...failure(error) });
      throw error;
    }),
  );
});

self.addEventListener('activate', (event) => {
  // Whole older caches go, not Workbox's precache.activate(): that would also delete the packs stored on first use.
  event.waitUntil(dropOtherVersions(storage, version).then(() => self.clients.claim()));
});

/**
 * Makes sure a pack (and its pool embeddings) is in this version's cache, with the files of the
 * onnxruntime build the page runs that install did not keep, downloading what is missing.
 */
async function cachePack(event: ExtendableEvent, packId: string, runtime: RuntimeBuild, onProgress: (p: Progress) => void): Promise<void> {
  const cache = await storage.open(versionCache);
  const missing: OfflineEntry[] = [];
  for (const entry of [...packEntries(entries, packId), ...runtimeEntries(entries, runtime)])
    if (!(await cache.match(storedKey(entry, scope)))) missing.push(entry);
  const progress: Progress = { doneFiles: 0, totalFiles: missing.length, doneBytes: 0, totalBytes: missing.reduce((n, e) => n + e.bytes, 0) };
  onProgress({ ...progress });
  for (const entry of missing) {
    // no-cache: the HTTP cache may hold a copy older than this build.
    const request = new Request(new URL(entry.url, scope).href, { cache: 'no-cache' });
    try {
      await Promise.all(packRequests.handleAll({ event, request }));
    } catch (error) {
      throw fileFailure(entry.url, error);
    }
    progress.doneFiles += 1;
    progress.doneBytes += entry.bytes;
    onProgress({ ...progress });
  }
}

self.addEventListener('message', (event) => {
  const message: unknown = event.data;
  if (!isPageMessage(message)) return;
  switch (message.type) {
    case 'skip-waiting':
      void self.skipWaiting();
      return;
    case 'busy':
      turnGate.set(message.busy, message.seq);
      return;
    case 'drop-pack':
      // The engine found a file of this pack damaged: forget the pack's stored files, so the next load fetches them again.
      event.waitUntil(
        caches.open(versionCache).then(async (cache) => {
          for (const entry of packEntries(entries, message.packId)) await cache.delete(storedKey(entry, scope), matchOptions);
        }),
      );
      return;
    case 'cache-pack': {
      const port = event.ports[0];
      const reply = (r: CachePackReply) => port?.postMessage(r);
      event.waitUntil(
        cachePack(
          event,
          message.packId,
          message.runtime,
          throttled((p) => reply({ type: 'progress', doneBytes: p.doneBytes, totalBytes: p.totalBytes })),
        ).then(
          () => reply({ type: 'done', version }),
          (error: unknown) => reply({ type: 'failed', ...failure(error) }),
        ),
      );
      return;
    }
    default:
      assertNever(message);
  }
});
