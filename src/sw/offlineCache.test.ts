import { describe, expect, it } from 'vitest';
import {
  type CacheLike,
  type CacheStorageLike,
  type ManifestFile,
  type OfflineManifest,
  OfflineCacheError,
  activateVersion,
  cacheName,
  cachePack,
  installVersion,
  rangeOf,
  readMeta,
  routeOf,
  serve,
} from './offlineCache';

const SCOPE = 'https://demo.test/app/';

interface Stored {
  body: ArrayBuffer;
  status: number;
  headers: [string, string][];
}

/** CacheStorage in memory, storing bodies so a file can be read back any number of times, as the real one can. */
class FakeCaches implements CacheStorageLike {
  readonly stores = new Map<string, Map<string, Stored>>();
  /** Makes every put fail with this error (a full disk). */
  putError: Error | null = null;

  async open(name: string): Promise<CacheLike> {
    if (!this.stores.has(name)) this.stores.set(name, new Map());
    const store = this.stores.get(name)!;
    return {
      match: async (url) => {
        const s = store.get(url);
        return s ? new Response(s.body.slice(0), { status: s.status, headers: s.headers }) : undefined;
      },
      put: async (url, response) => {
        if (this.putError) throw this.putError;
        const headers: [string, string][] = [];
        response.headers.forEach((value, name) => headers.push([name, value]));
        store.set(url, { body: await response.arrayBuffer(), status: response.status, headers });
      },
      keys: async () => [...store.keys()].map((url) => ({ url })),
    };
  }
  async delete(name: string): Promise<boolean> {
    return this.stores.delete(name);
  }
  async keys(): Promise<string[]> {
    return [...this.stores.keys()];
  }
  urls(name: string): string[] {
    return [...(this.stores.get(name)?.keys() ?? [])].sort();
  }
}

/** A server holding files by path under the scope; records what was requested. */
class FakeServer {
  readonly requested: string[] = [];
  constructor(readonly files: Record<string, string>) {}
  fetch = async (input: string | Request): Promise<Response> => {
    const url = typeof input === 'string' ? input : input.url;
    const path = new URL(url).pathname.slice(new URL(SCOPE).pathname.length);
    this.requested.push(path);
    const body = this.files[path];
    if (body === undefined) return new Response('Not found', { status: 404 });
    return new Response(body, { status: 200, headers: { 'Content-Length': String(new TextEncoder().encode(body).length) } });
  };
}

function file(url: string, content: string, revision = content): ManifestFile {
  return { url, revision, bytes: new TextEncoder().encode(content).length };
}

const CONTENT: Record<string, string> = {
  'index.html': '<html>v1</html>',
  'assets/app-1.js': 'console.log(1)',
  'models/mini/onnx/text.onnx': 'mini text model',
  'models/tiny/onnx/text.onnx': 'tiny text model',
  'pool/embeddings/tiny.bin': 'tiny rows',
};

function manifest(version: string, files: Record<string, string> = CONTENT, revisions: Record<string, string> = {}): OfflineManifest {
  const entry = (url: string) => file(url, files[url]!, revisions[url] ?? files[url]!);
  return {
    version,
    precache: ['index.html', 'assets/app-1.js', 'models/mini/onnx/text.onnx'].map(entry),
    optional: ['models/tiny/onnx/text.onnx', 'pool/embeddings/tiny.bin'].map(entry),
    packs: { mini: ['models/mini/onnx/text.onnx'], tiny: ['models/tiny/onnx/text.onnx', 'pool/embeddings/tiny.bin'] },
    defaultPack: 'mini',
  };
}

async function failure(promise: Promise<unknown>): Promise<OfflineCacheError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OfflineCacheError) return error;
    throw error;
  }
  throw new Error('expected the promise to fail');
}

const abs = (path: string) => SCOPE + path;

describe('installVersion', () => {
  it('stores every precache file and marks the version complete only at the end', async () => {
    const caches = new FakeCaches();
    const server = new FakeServer(CONTENT);
    const progress: number[] = [];
    await installVersion(manifest('v1'), { caches, fetch: server.fetch, scope: SCOPE, onProgress: (p) => progress.push(p.doneFiles) });
    expect(caches.urls(cacheName('v1'))).toEqual([abs('__offline__/manifest.json'), abs('assets/app-1.js'), abs('index.html'), abs('models/mini/onnx/text.onnx')].sort());
    expect(await (await (await caches.open(cacheName('v1'))).match(abs('index.html')))!.text()).toBe('<html>v1</html>');
    expect((await readMeta(await caches.open(cacheName('v1')), SCOPE))?.version).toBe('v1');
    expect(progress.at(-1)).toBe(3);
    // Files of other packs wait for first use.
    expect(server.requested).not.toContain('models/tiny/onnx/text.onnx');
  });

  it('fails when one file fails, leaves the new version incomplete and the old one serving', async () => {
    const caches = new FakeCaches();
    await installVersion(manifest('v1'), { caches, fetch: new FakeServer(CONTENT).fetch, scope: SCOPE });
    // The new version lists a file the server does not have.
    const next = manifest('v2');
    next.precache.push(file('assets/app-2.js', 'console.log(2)'));
    const error = await failure(installVersion(next, { caches, fetch: new FakeServer(CONTENT).fetch, scope: SCOPE }));
    expect(error.reason).toBe('file-failed');
    expect(error.message).toContain('assets/app-2.js could not be downloaded for offline use (HTTP 404)');
    expect(await readMeta(await caches.open(cacheName('v2')), SCOPE)).toBeNull();
    expect((await readMeta(await caches.open(cacheName('v1')), SCOPE))?.version).toBe('v1');
    expect(caches.urls(cacheName('v1'))).toHaveLength(4);
  });

  it('copies unchanged files from the previous version and downloads only changed ones; activation then drops the old version', async () => {
    const caches = new FakeCaches();
    const first = new FakeServer(CONTENT);
    await installVersion(manifest('v1'), { caches, fetch: first.fetch, scope: SCOPE });
    await activateVersion('v1', caches);
    // The tiny pack was used once, so it sits in v1's cache.
    await cachePack(manifest('v1'), 'tiny', { cache: await caches.open(cacheName('v1')), fetch: first.fetch, scope: SCOPE });

    const changed = { ...CONTENT, 'index.html': '<html>v2</html>', 'pool/embeddings/tiny.bin': 'new tiny rows' };
    const second = new FakeServer(changed);
    await installVersion(manifest('v2', changed), { caches, fetch: second.fetch, scope: SCOPE });
    expect(second.requested).toEqual(['index.html']);
    // Both versions are whole until the new one activates: the old keeps serving meanwhile.
    expect(await caches.keys()).toEqual([cacheName('v1'), cacheName('v2')]);
    expect(await (await (await caches.open(cacheName('v1'))).match(abs('index.html')))!.text()).toBe('<html>v1</html>');
    const v2 = await caches.open(cacheName('v2'));
    expect(await (await v2.match(abs('index.html')))!.text()).toBe('<html>v2</html>');
    expect(await (await v2.match(abs('models/mini/onnx/text.onnx')))!.text()).toBe('mini text model');
    // Of the tiny pack, the unchanged model came along; the changed embeddings did not (fetched on next use).
    expect(await v2.match(abs('models/tiny/onnx/text.onnx'))).toBeDefined();
    expect(await v2.match(abs('pool/embeddings/tiny.bin'))).toBeUndefined();

    expect(await activateVersion('v2', caches)).toEqual([cacheName('v1')]);
    expect(await caches.keys()).toEqual([cacheName('v2')]);
  });

  it('resumes an interrupted install of the same version and drops unfinished attempts at others', async () => {
    const caches = new FakeCaches();
    const partial = await caches.open(cacheName('v1'));
    await partial.put(abs('models/mini/onnx/text.onnx'), new Response('mini text model'));
    await (await caches.open(cacheName('v0'))).put(abs('index.html'), new Response('<html>v0</html>'));
    const server = new FakeServer(CONTENT);
    await installVersion(manifest('v1'), { caches, fetch: server.fetch, scope: SCOPE });
    expect(server.requested.sort()).toEqual(['assets/app-1.js', 'index.html']);
    expect(await caches.keys()).toEqual([cacheName('v1')]);
  });

  it('refuses to start when the browser has too little storage left, saying how much is needed', async () => {
    const caches = new FakeCaches();
    const server = new FakeServer(CONTENT);
    const error = await failure(installVersion(manifest('v1'), { caches, fetch: server.fetch, scope: SCOPE, freeBytes: async () => 10 }));
    expect(error.reason).toBe('storage-short');
    expect(error.message).toMatch(/needs 0\.0 MB, but the browser lets this site store only 0\.0 MB more/);
    expect(server.requested).toEqual([]);
  });

  it('reports a full disk during install as short storage', async () => {
    const caches = new FakeCaches();
    caches.putError = Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
    const error = await failure(installVersion(manifest('v1'), { caches, fetch: new FakeServer(CONTENT).fetch, scope: SCOPE }));
    expect(error.reason).toBe('storage-short');
    expect(error.message).toContain('ran out of storage');
  });

  it('rejects a file whose size is not the one this version expects (the server holds another build)', async () => {
    const caches = new FakeCaches();
    const server = new FakeServer({ ...CONTENT, 'assets/app-1.js': 'console.log("another build")' });
    const error = await failure(installVersion(manifest('v1'), { caches, fetch: server.fetch, scope: SCOPE }));
    expect(error.message).toContain('assets/app-1.js on the server has 28 bytes where this version of the demo expects 14');
  });

  it('retries a dropped connection once before giving up', async () => {
    const caches = new FakeCaches();
    const server = new FakeServer(CONTENT);
    let drops = 1;
    const flaky = async (url: string) => {
      if (url.endsWith('index.html') && drops-- > 0) throw new TypeError('Failed to fetch');
      return server.fetch(url);
    };
    await installVersion(manifest('v1'), { caches, fetch: flaky, scope: SCOPE });
    expect((await readMeta(await caches.open(cacheName('v1')), SCOPE))?.version).toBe('v1');
  });
});

describe('activateVersion', () => {
  it('deletes the other versions of this app only', async () => {
    const caches = new FakeCaches();
    for (const name of [cacheName('v1'), cacheName('v2'), 'someone-elses-cache']) await caches.open(name);
    expect(await activateVersion('v2', caches)).toEqual([cacheName('v1')]);
    expect((await caches.keys()).sort()).toEqual([cacheName('v2'), 'someone-elses-cache']);
  });
});

describe('cachePack', () => {
  it('downloads what a pack chosen later needs, and nothing for the default pack', async () => {
    const caches = new FakeCaches();
    const server = new FakeServer(CONTENT);
    await installVersion(manifest('v1'), { caches, fetch: server.fetch, scope: SCOPE });
    const cache = await caches.open(cacheName('v1'));
    server.requested.length = 0;
    await cachePack(manifest('v1'), 'mini', { cache, fetch: server.fetch, scope: SCOPE });
    expect(server.requested).toEqual([]);
    const totals: number[] = [];
    await cachePack(manifest('v1'), 'tiny', { cache, fetch: server.fetch, scope: SCOPE, onProgress: (p) => totals.push(p.doneBytes) });
    expect(server.requested.sort()).toEqual(['models/tiny/onnx/text.onnx', 'pool/embeddings/tiny.bin']);
    expect(totals.at(-1)).toBe('tiny text model'.length + 'tiny rows'.length);
  });

  it('says so when the pack is not part of this build', async () => {
    const caches = new FakeCaches();
    const error = await failure(cachePack(manifest('v1'), 'new-pack', { cache: await caches.open('x'), fetch: new FakeServer({}).fetch, scope: SCOPE }));
    expect(error.reason).toBe('unknown-pack');
    expect(error.message).toContain('"new-pack" was added after this build');
  });
});

describe('routeOf', () => {
  const route = (url: string, method = 'GET', mode = 'cors') => routeOf({ url, method, mode }, SCOPE);
  it('serves the app, its assets and its data, and leaves everything else to the browser', () => {
    expect(route(`${SCOPE}`, 'GET', 'navigate')).toBe('page');
    expect(route(`${SCOPE}?pack=test-tiny-clip`, 'GET', 'navigate')).toBe('page');
    expect(route(`${SCOPE}index.html`)).toBe('page');
    expect(route(`${SCOPE}assets/index-abc.js`)).toBe('asset');
    expect(route(`${SCOPE}models/mini/onnx/text.onnx`)).toBe('data');
    expect(route(`${SCOPE}pool/media/x.webp`)).toBe('data');
    expect(route(`${SCOPE}dialogues/test/conversations.json`)).toBe('data');
    expect(route(`${SCOPE}models/index.json`, 'POST')).toBeNull();
    expect(route('https://elsewhere.test/app/models/x')).toBeNull();
    expect(route(`${SCOPE}sw.js`)).toBeNull();
  });
});

describe('serve', () => {
  async function installed() {
    const caches = new FakeCaches();
    await installVersion(manifest('v1'), { caches, fetch: new FakeServer(CONTENT).fetch, scope: SCOPE });
    return { caches, cache: await caches.open(cacheName('v1')) };
  }

  function deps(cache: CacheLike, fetch: (r: Request) => Promise<Response>, pending: Promise<unknown>[] = []) {
    return { cache: async () => cache, fetch, scope: SCOPE, wait: async () => undefined, waitUntil: (p: Promise<unknown>) => void pending.push(p) };
  }

  const offline = async (): Promise<Response> => {
    throw new TypeError('Failed to fetch');
  };
  const never = () => new Promise<Response>(() => undefined);

  it('loads the page from the network when it answers, else from the offline copy', async () => {
    const { cache } = await installed();
    const page = new Request(`${SCOPE}?pack=tiny`);
    const fresh = await serve(page, 'page', deps(cache, async () => new Response('<html>v2</html>')));
    expect(await fresh.text()).toBe('<html>v2</html>');
    expect(await (await serve(page, 'page', deps(cache, offline))).text()).toBe('<html>v1</html>');
    // A network that neither answers nor fails (a captive portal, a dying access point) loses to the copy.
    expect(await (await serve(page, 'page', { ...deps(cache, never), wait: async () => undefined })).text()).toBe('<html>v1</html>');
  });

  it('answers stored files without the network, and stores a pack file on first use', async () => {
    const { cache } = await installed();
    const stored = await serve(new Request(`${SCOPE}models/mini/onnx/text.onnx`), 'data', deps(cache, offline));
    expect(await stored.text()).toBe('mini text model');
    expect(stored.headers.get('content-length')).toBe(String('mini text model'.length));

    const pending: Promise<unknown>[] = [];
    const server = new FakeServer(CONTENT);
    const first = await serve(new Request(`${SCOPE}models/tiny/onnx/text.onnx?v=1`), 'data', deps(cache, (r) => server.fetch(r), pending));
    expect(await first.text()).toBe('tiny text model');
    await Promise.all(pending);
    const again = await serve(new Request(`${SCOPE}models/tiny/onnx/text.onnx`), 'data', deps(cache, offline));
    expect(await again.text()).toBe('tiny text model');
  });

  it('does not keep partial or failed responses', async () => {
    const { cache } = await installed();
    const pending: Promise<unknown>[] = [];
    await serve(new Request(`${SCOPE}pool/missing.webp`), 'data', deps(cache, async () => new Response('no', { status: 404 }), pending));
    await serve(new Request(`${SCOPE}pool/part.bin`, { headers: { Range: 'bytes=0-1' } }), 'data', deps(cache, async () => new Response('ab', { status: 206 }), pending));
    await Promise.all(pending);
    expect(await cache.match(abs('pool/missing.webp'))).toBeUndefined();
    expect(await cache.match(abs('pool/part.bin'))).toBeUndefined();
  });

  it('answers a range request for a stored file with that range', async () => {
    const { cache } = await installed();
    const part = await serve(new Request(`${SCOPE}models/mini/onnx/text.onnx`, { headers: { Range: 'bytes=5-8' } }), 'data', deps(cache, offline));
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('text');
    expect(part.headers.get('content-range')).toBe('bytes 5-8/15');
  });
});

describe('rangeOf', () => {
  const full = () => new Response('0123456789', { headers: { 'Content-Type': 'application/octet-stream' } });
  it('reads open-ended and suffix ranges, refuses ranges past the end and ignores ones it cannot read', async () => {
    expect(await (await rangeOf(full(), 'bytes=7-')).text()).toBe('789');
    const suffix = await rangeOf(full(), 'bytes=-3');
    expect([suffix.status, await suffix.text(), suffix.headers.get('content-length'), suffix.headers.get('content-type')]).toEqual([206, '789', '3', 'application/octet-stream']);
    expect(await (await rangeOf(full(), 'bytes=8-100')).text()).toBe('89');
    const past = await rangeOf(full(), 'bytes=10-');
    expect([past.status, past.headers.get('content-range')]).toEqual([416, 'bytes */10']);
    const many = await rangeOf(full(), 'bytes=0-1,4-5');
    expect([many.status, await many.text()]).toEqual([200, '0123456789']);
  });
});
