/// <reference lib="webworker" />
/**
 * The service worker of the production build (src/node/viteOfflinePlugin.ts builds it into sw.js
 * with this build's manifest). The logic lives in offlineCache.ts; this file wires it to events.
 */
import { type CacheLike, type CacheProgress, type CacheStorageLike, OfflineCacheError, type OfflineManifest, activateVersion, cacheName, cachePack, installVersion, routeOf, serve } from './offlineCache';
import { type CachePackReply, type ServiceWorkerBroadcast, isPageMessage } from './protocol';
import { assertNever, errorMessage } from '../engine/errors';

declare const self: ServiceWorkerGlobalScope & { __OFFLINE_MANIFEST__: OfflineManifest };

/** Set by the first line of sw.js, which the build writes (plain JSON, so tools can read it too). */
const manifest = self.__OFFLINE_MANIFEST__;
const scope = self.registration.scope;

/** Matches ignore Vary: a stored file is the same file whatever encoding the browser asked for. */
function wrap(cache: Cache): CacheLike {
  return {
    match: (url) => cache.match(url, { ignoreVary: true }),
    put: (url, response) => cache.put(url, response),
    keys: () => cache.keys(),
  };
}

const storage: CacheStorageLike = {
  open: async (name) => wrap(await caches.open(name)),
  delete: (name) => caches.delete(name),
  keys: () => caches.keys(),
};

const currentCache = async () => wrap(await caches.open(cacheName(manifest.version)));
// The HTTP cache may hold a copy older than this build; revalidate every file that is kept.
const fetchFresh = (url: string) => fetch(new Request(url, { cache: 'no-cache' }));

function failure(error: unknown): { reason: OfflineCacheError['reason'] | 'internal'; message: string } {
  if (error instanceof OfflineCacheError) return { reason: error.reason, message: error.message };
  return { reason: 'internal', message: `Keeping the demo for offline use failed (${errorMessage(error)}). Reload to try again; the demo keeps working online.` };
}

async function broadcast(message: ServiceWorkerBroadcast): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage(message);
}

/** At most one message per percent, so two thousand small files do not flood the page. */
function throttled(send: (p: CacheProgress) => void): (p: CacheProgress) => void {
  let lastPercent = -1;
  return (p) => {
    const percent = p.totalBytes > 0 ? Math.floor((100 * p.doneBytes) / p.totalBytes) : 100;
    if (percent === lastPercent && p.doneFiles < p.totalFiles) return;
    lastPercent = percent;
    send(p);
  };
}

async function freeBytes(): Promise<number | null> {
  try {
    const { quota, usage } = await self.navigator.storage.estimate();
    return quota === undefined || usage === undefined ? null : quota - usage;
  } catch {
    return null;
  }
}

self.addEventListener('install', (event) => {
  // No skipWaiting: a new version waits until the page offers a reload, never swapping under a chat.
  event.waitUntil(
    installVersion(manifest, {
      caches: storage,
      fetch: fetchFresh,
      scope,
      freeBytes,
      onProgress: throttled((p) => void broadcast({ type: 'install-progress', version: manifest.version, ...p })),
    }).catch(async (error: unknown) => {
      await broadcast({ type: 'install-failed', version: manifest.version, ...failure(error) });
      throw error;
    }),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(activateVersion(manifest.version, storage).then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const route = routeOf(event.request, scope);
  if (!route) return;
  event.respondWith(
    serve(event.request, route, {
      cache: currentCache,
      fetch: (request) => fetch(request),
      scope,
      wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      waitUntil: (work) => event.waitUntil(work),
    }),
  );
});

self.addEventListener('message', (event) => {
  const message: unknown = event.data;
  if (!isPageMessage(message)) return;
  switch (message.type) {
    case 'skip-waiting':
      void self.skipWaiting();
      return;
    case 'cache-pack': {
      const port = event.ports[0];
      const reply = (r: CachePackReply) => port?.postMessage(r);
      event.waitUntil(
        (async () => {
          try {
            await cachePack(manifest, message.packId, {
              cache: await currentCache(),
              fetch: fetchFresh,
              scope,
              onProgress: throttled((p) => reply({ type: 'progress', doneBytes: p.doneBytes, totalBytes: p.totalBytes })),
            });
            reply({ type: 'done', version: manifest.version });
          } catch (error) {
            reply({ type: 'failed', ...failure(error) });
          }
        })(),
      );
      return;
    }
    default:
      assertNever(message);
  }
});
