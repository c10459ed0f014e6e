import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type CacheLike,
  type CacheStorageLike,
  type OfflineEntry,
  OfflineCacheError,
  bodyRejection,
  cacheName,
  carryOver,
  checkStorage,
  dropOtherVersions,
  fileFailure,
  offlineVersion,
  packEntries,
  runtimeEntries,
  rejectionOf,
  relativeUrl,
  storedKey,
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

  async open(name: string): Promise<CacheLike> {
    if (!this.stores.has(name)) this.stores.set(name, new Map());
    const store = this.stores.get(name)!;
    return {
      match: async (url) => {
        const s = store.get(url);
        return s ? new Response(s.body.slice(0), { status: s.status, headers: s.headers }) : undefined;
      },
      put: async (url, response) => {
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

function entry(url: string, content: string, install: boolean, pack?: string, revision: string | null = content): OfflineEntry {
  return { url, revision, bytes: new TextEncoder().encode(content).length, install, ...(pack ? { pack } : {}) };
}

const CONTENT: Record<string, string> = {
  'index.html': '<html>v1</html>',
  'assets/app-1.js': 'console.log(1)',
  'models/mini/onnx/text.onnx': 'mini text model',
  'models/tiny/onnx/text.onnx': 'tiny text model',
  'pool/embeddings/tiny.bin': 'tiny rows',
};

/** A build: the shell and the default pack (mini) at install, the tiny pack on first use. */
function build(files: Record<string, string> = CONTENT): OfflineEntry[] {
  return [
    entry('index.html', files['index.html']!, true),
    entry('assets/app-1.js', files['assets/app-1.js']!, true, undefined, null),
    entry('models/mini/onnx/text.onnx', files['models/mini/onnx/text.onnx']!, true, 'mini'),
    entry('models/tiny/onnx/text.onnx', files['models/tiny/onnx/text.onnx']!, false, 'tiny'),
    entry('pool/embeddings/tiny.bin', files['pool/embeddings/tiny.bin']!, false, 'tiny'),
  ];
}

/** Stores a build's files as Workbox and the pack route would: under their revisioned keys. */
async function store(caches: FakeCaches, entries: OfflineEntry[], files: Record<string, string>, which: (e: OfflineEntry) => boolean) {
  const cache = await caches.open(cacheName(offlineVersion(entries)));
  for (const e of entries.filter(which)) await cache.put(storedKey(e, SCOPE), new Response(files[e.url]));
}

async function text(caches: FakeCaches, version: string, e: OfflineEntry): Promise<string | undefined> {
  return (await (await caches.open(cacheName(version))).match(storedKey(e, SCOPE)))?.text();
}

function thrown(run: () => unknown): OfflineCacheError {
  try {
    run();
  } catch (error) {
    if (error instanceof OfflineCacheError) return error;
    throw error;
  }
  throw new Error('expected an OfflineCacheError');
}

describe('offlineVersion', () => {
  it('changes with any file, whatever the order of the fields it was written with', () => {
    const v1 = offlineVersion(build());
    expect(v1).toMatch(/^[0-9a-f]{16}$/);
    expect(offlineVersion(build().map((e) => JSON.parse(JSON.stringify(e, Object.keys(e).sort())) as OfflineEntry))).toBe(v1);
    expect(offlineVersion(build({ ...CONTENT, 'pool/embeddings/tiny.bin': 'new tiny rows' }))).not.toBe(v1);
    expect(offlineVersion(build().map((e) => ({ ...e, install: true })))).not.toBe(v1);
  });
});

describe('storedKey', () => {
  it("is Workbox's precache key: the URL with its revision, and the bare URL for hashed names", () => {
    expect(storedKey({ url: 'pool/a b.webp', revision: 'r1' }, SCOPE)).toBe(`${SCOPE}pool/a%20b.webp?__WB_REVISION__=r1`);
    expect(storedKey({ url: 'assets/app-1.js', revision: null }, SCOPE)).toBe(`${SCOPE}assets/app-1.js`);
    expect(relativeUrl(`${SCOPE}pool/media/x.webp?__WB_REVISION__=r1`, SCOPE)).toBe('pool/media/x.webp');
  });
});

describe('carryOver', () => {
  it('copies unchanged files from the previous version, the packs used before included, and counts what is left to download', async () => {
    const caches = new FakeCaches();
    const v1 = build();
    // Version 1 is installed, and the tiny pack was used once.
    await store(caches, v1, CONTENT, () => true);
    const changed = { ...CONTENT, 'index.html': '<html>v2</html>', 'pool/embeddings/tiny.bin': 'new tiny rows' };
    const v2 = build(changed);
    const left = await carryOver(caches, offlineVersion(v2), v2, SCOPE);
    expect(left).toBe('<html>v2</html>'.length);
    const version = offlineVersion(v2);
    expect(await text(caches, version, v2[0]!)).toBeUndefined();
    expect(await text(caches, version, v2[1]!)).toBe('console.log(1)');
    expect(await text(caches, version, v2[2]!)).toBe('mini text model');
    // Of the tiny pack, the unchanged model came along; the changed embeddings did not (fetched on next use).
    expect(await text(caches, version, v2[3]!)).toBe('tiny text model');
    expect(await text(caches, version, v2[4]!)).toBeUndefined();
    // The old version is untouched: it keeps serving until the new one activates.
    expect(caches.urls(cacheName(offlineVersion(v1)))).toHaveLength(5);
  });

  it("leaves alone what an earlier attempt at the same version stored, and other apps' caches", async () => {
    const caches = new FakeCaches();
    const v1 = build();
    await store(caches, v1, CONTENT, (e) => e.url === 'index.html');
    const other = await caches.open('someone-elses-cache');
    await other.put(storedKey(v1[1]!, SCOPE), new Response('not ours'));
    expect(await carryOver(caches, offlineVersion(v1), v1, SCOPE)).toBe('console.log(1)'.length + 'mini text model'.length);
    expect(caches.urls(cacheName(offlineVersion(v1)))).toEqual([storedKey(v1[0]!, SCOPE)]);
  });
});

describe('dropOtherVersions', () => {
  it('deletes the other versions of this app only', async () => {
    const caches = new FakeCaches();
    for (const name of [cacheName('v1'), cacheName('v2'), 'someone-elses-cache']) await caches.open(name);
    expect(await dropOtherVersions(caches, 'v2')).toEqual([cacheName('v1')]);
    expect((await caches.keys()).sort()).toEqual([cacheName('v2'), 'someone-elses-cache']);
  });
});

describe('packEntries', () => {
  it("lists a pack's files and says so when the pack is not part of this build", () => {
    expect(packEntries(build(), 'tiny').map((e) => e.url)).toEqual(['models/tiny/onnx/text.onnx', 'pool/embeddings/tiny.bin']);
    const error = thrown(() => packEntries(build(), 'new-pack'));
    expect(error.reason).toBe('unknown-pack');
    expect(error.message).toContain('"new-pack" was added after this build');
  });
});

describe('runtimeEntries', () => {
  it("lists the WebGPU-capable build's files for a worker that runs it, and none for the WASM-only build (kept at install)", () => {
    const files = [...build(), { ...entry('assets/ort.jsep-1.wasm', 'wasm', false, undefined, null), runtime: 'webgpu-capable' as const }];
    expect(runtimeEntries(files, 'webgpu-capable').map((e) => e.url)).toEqual(['assets/ort.jsep-1.wasm']);
    expect(runtimeEntries(files, 'wasm-only')).toEqual([]);
  });
});

describe('checkStorage', () => {
  it('refuses to start when the browser has too little storage left, saying how much is needed', () => {
    expect(() => checkStorage(2_000_000, null)).not.toThrow();
    expect(() => checkStorage(2_000_000, 3_000_000)).not.toThrow();
    const error = thrown(() => checkStorage(2_000_000, 500_000));
    expect(error.reason).toBe('storage-short');
    expect(error.message).toMatch(/needs 2\.0 MB, but the browser lets this site store only 0\.5 MB more/);
  });
});

describe('rejectionOf', () => {
  const answer = (body: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(body, { status, headers: { 'Content-Length': String(body.length), ...headers } });
  it('keeps whole answers of the expected size, and names the file of any other', () => {
    expect(rejectionOf('pool/a.webp', answer('webp'), 4)).toBeNull();
    expect(rejectionOf('pool/a.webp', answer('webp'), null)).toBeNull();
    expect(rejectionOf('pool/a.webp', answer('no', 404), 4)?.message).toContain('pool/a.webp could not be downloaded for offline use (HTTP 404)');
    expect(rejectionOf('pool/a.webp', answer('we', 206), 4)?.reason).toBe('file-failed');
    // The server holds another build.
    expect(rejectionOf('assets/app-1.js', answer('console.log("another build")'), 14)?.message).toContain(
      'assets/app-1.js on the server has 28 bytes where this version of the demo expects 14',
    );
    // A compressed answer's length is not the file's.
    expect(rejectionOf('pool/a.webp', answer('xx', 200, { 'Content-Encoding': 'gzip' }), 4)).toBeNull();
  });
});

describe('fileFailure', () => {
  it('names the file, and reports a full disk as short storage', () => {
    const dropped = fileFailure('pool/a.webp', new TypeError('Failed to fetch'));
    expect([dropped.reason, dropped.message]).toEqual([
      'file-failed',
      expect.stringContaining('pool/a.webp could not be downloaded for offline use (Failed to fetch)') as unknown,
    ]);
    const full = fileFailure('pool/a.webp', Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' }));
    expect(full.reason).toBe('storage-short');
    expect(full.message).toContain('ran out of storage');
    const named = new OfflineCacheError('file-failed', 'x');
    expect(fileFailure('pool/a.webp', named)).toBe(named);
  });
});

describe('bodyRejection', () => {
  const body = new TextEncoder().encode('the whole file').buffer;
  const sha256 = createHash('sha256').update(new Uint8Array(body)).digest('hex');

  it('keeps a body of the listed size and hash, and one the build could not hash by its size', async () => {
    expect(await bodyRejection('models/a.onnx', body, { bytes: 14, sha256 })).toBeNull();
    expect(await bodyRejection('pool/x.bin', body, { bytes: 14 })).toBeNull();
    expect(await bodyRejection('elsewhere.json', body, null)).toBeNull();
  });

  it('refuses a truncated body and an altered one of the right size, naming the file', async () => {
    const truncated = await bodyRejection('models/a.onnx', body.slice(0, 9), { bytes: 14, sha256 });
    expect(truncated?.message).toBe(
      'models/a.onnx arrived with 9 bytes where this version of the demo expects 14, so it was not kept. Reload to fetch it again; if it persists, rebuild and restart the demo server.',
    );
    const altered = new Uint8Array(body.slice(0));
    altered[3] = altered[3]! ^ 1;
    expect((await bodyRejection('models/a.onnx', altered.buffer, { bytes: 14, sha256 }))?.message).toBe(
      "models/a.onnx arrived damaged (its SHA-256 differs from the build's), so it was not kept. Reload to fetch it again; if it persists, rebuild and restart the demo server.",
    );
  });
});
