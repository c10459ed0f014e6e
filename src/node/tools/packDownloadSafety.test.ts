import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNLISTED_FILE_CAP_BYTES, checkHubUrl, parseHubTree, refusedContentType, remotePack, withoutCredentials } from '../../engine/pack/hub';
import {
  type HttpFetch,
  type PackByteStore,
  type PackDownloadState,
  PackDownloadError,
  continuePackDownload,
  newDownloadState,
  planPackDownload,
  unlistedFileLimit,
  unlistedNote,
} from '../../engine/pack/packDownload';
import { downloadOriginAllowed } from '../../engine/securityPolicy';
import { FakeHub } from './fakeHub';

/**
 * What a download does with a server that is not the hub it claims to be: web pages for every file,
 * more bytes than listed, a gzip that inflates without end, a damaged or missing file list, and hub
 * addresses that cannot be used (credentials, too long, forbidden by the page's security policy).
 */

const pack = remotePack('clip-vit-base-patch32')!;
const TEXT_MODEL = 'onnx/text_model_quantized.onnx';

function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-repo-'));
  mkdirSync(join(dir, 'onnx'));
  pack.configFiles.forEach((f, i) => writeFileSync(join(dir, f), `{"file": ${i}}`));
  let i = 0;
  for (const model of pack.models) {
    for (const suffix of ['', '_quantized', '_fp16']) writeFileSync(join(dir, 'onnx', `${model}${suffix}.onnx`), Buffer.alloc(200_000 + 1371 * i, ++i));
  }
  return dir;
}

function memoryStore(): PackByteStore & { files: Map<string, Buffer>; mostStored: Map<string, number> } {
  const files = new Map<string, Buffer>();
  const mostStored = new Map<string, number>();
  let state: PackDownloadState | null = null;
  return {
    files,
    mostStored,
    readState: async () => (state ? structuredClone(state) : null),
    writeState: async (s) => {
      state = structuredClone(s);
    },
    storedBytes: async (_id, path) => files.get(path)?.length ?? 0,
    openAppend: async (_id, path, keep) => {
      files.set(path, (files.get(path) ?? Buffer.alloc(0)).subarray(0, keep));
      return {
        write: async (chunk) => {
          files.set(path, Buffer.concat([files.get(path)!, chunk]));
          mostStored.set(path, Math.max(mostStored.get(path) ?? 0, files.get(path)!.length));
        },
        close: async () => undefined,
      };
    },
    readFile: async (_id, path) => new Uint8Array(files.get(path)!),
    removeFile: async (_id, path) => void files.delete(path),
  };
}

describe('hub address', () => {
  it('refuses credentials with a sentence that does not repeat them', () => {
    const checked = checkHubUrl('http://user:s3cret@127.0.0.1:8080', downloadOriginAllowed);
    expect(checked).toEqual({
      ok: false,
      reason:
        'The hub address holds a user name or password (user:password@…). The page does not keep credentials: type the address without them (the hub and a mirror on this machine need none).',
    });
    expect(JSON.stringify(checked)).not.toContain('s3cret');
  });

  it('strips credentials from an address saved before they were refused', () => {
    expect(withoutCredentials('http://user:s3cret@127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(withoutCredentials('https://huggingface.co')).toBe('https://huggingface.co');
  });

  it('refuses an address of 200,000 characters by its length', () => {
    const checked = checkHubUrl(`http://127.0.0.1:8080/${'a'.repeat(200_000)}`);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.reason).toBe(
      "The hub address is 200,022 characters long; a hub address has at most 2,000. Type only the hub's address, such as https://huggingface.co.",
    );
  });

  it('refuses on Save what the security policy forbids (the old example, a LAN address), and accepts loopback and the hub', () => {
    const lan = checkHubUrl('http://192.168.1.10:8080', downloadOriginAllowed);
    expect(!lan.ok && lan.reason).toMatch(
      /^This page's security policy lets it download only from huggingface\.co .* so http:\/\/192\.168\.1\.10:8080 cannot be used\./,
    );
    expect(checkHubUrl('http://127.0.0.1:8080/', downloadOriginAllowed)).toEqual({ ok: true, url: 'http://127.0.0.1:8080' });
    expect(checkHubUrl(' https://huggingface.co ', downloadOriginAllowed)).toEqual({ ok: true, url: 'https://huggingface.co' });
  });
});

describe('file list and content checks', () => {
  it('refuses a tree entry whose size is not a number of bytes, naming it', () => {
    expect(parseHubTree([{ type: 'file', path: 'config.json', size: -5 }])).toEqual({
      damaged: 'it gives config.json the size -5, which is not a number of bytes',
    });
    expect(parseHubTree([{ type: 'file', path: 'config.json', size: 1.5 }])).toEqual({
      damaged: 'it gives config.json the size 1.5, which is not a number of bytes',
    });
    expect(parseHubTree({ error: 'nope' })).toEqual({ damaged: 'it is not a list of files' });
    const ok = parseHubTree([
      { type: 'directory', path: 'onnx', size: 0 },
      { type: 'file', path: 'onnx/a.onnx', size: 10, lfs: { oid: 'a'.repeat(64), size: 10 } },
    ]);
    expect(ok).toEqual({ files: new Map([['onnx/a.onnx', { bytes: 10, sha256: 'a'.repeat(64) }]]) });
  });

  it('accepts what a real hub serves and refuses web pages and other types', () => {
    expect(refusedContentType('onnx/text_model.onnx', 'application/octet-stream')).toBeNull();
    expect(refusedContentType('onnx/text_model.onnx', 'binary/octet-stream')).toBeNull();
    expect(refusedContentType('config.json', 'text/plain; charset=utf-8')).toBeNull();
    expect(refusedContentType('config.json', 'application/json')).toBeNull();
    expect(refusedContentType('config.json', null)).toBeNull();
    expect(refusedContentType('config.json', 'text/html; charset=utf-8')).toBe('a web page (text/html), not the file');
    expect(refusedContentType('onnx/text_model.onnx', 'text/plain')).toBe('text/plain, which is not a model file (expected application/octet-stream)');
    expect(refusedContentType('onnx/text_model.onnx', 'image/png')).toBe('image/png, which is not a model file (expected application/octet-stream)');
  });
});

describe('downloads from a server that is not a proper hub', () => {
  const repoDir = makeRepo();
  const hub = new FakeHub([{ repo: pack.repo, dir: repoDir }]);
  const fetchImpl: HttpFetch = (u, init) => fetch(u, init as RequestInit);
  let url: string;
  beforeAll(async () => {
    url = await hub.start();
  });
  afterAll(() => hub.close());
  beforeEach(() => hub.reset());

  async function start(): Promise<PackDownloadState> {
    return newDownloadState(pack, url, await planPackDownload(pack, url, ['q8'], fetchImpl), '2026-11-28T00:00:00Z');
  }
  async function failure(promise: Promise<unknown>): Promise<PackDownloadError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PackDownloadError);
    return error as PackDownloadError;
  }

  it('a web server answering every file with a web page and no file list: refused at the first file, nothing stored', async () => {
    hub.faults.htmlEverywhere = true;
    const state = await start();
    expect(state.unlisted).toBe(`${url.slice(7)} gave no file list of ${pack.repo} (HTTP 404)`);
    const store = memoryStore();
    const error = await failure(continuePackDownload(state, { store, fetch: fetchImpl }));
    expect(error.kind).toBe('refused');
    expect(error.message).toBe(
      `${url.slice(7)} answered config.json with a web page (text/html), not the file: this address does not serve the pack's files. Check the hub address in Settings.`,
    );
    expect(store.files.size).toBe(0);
    expect((await store.readState(pack.id))?.status).not.toBe('complete');
  });

  it('a web page served as octet-stream is recognised by its first bytes', async () => {
    hub.faults.replaced.set('config.json', Buffer.from('\n  <!DOCTYPE html><p>hello</p>'));
    hub.faults.noTree = true;
    const error = await failure(continuePackDownload(await start(), { store: memoryStore(), fetch: fetchImpl }));
    expect(error.message).toBe(
      `${url.slice(7)} answered config.json with a web page (it begins with "<"), not the file: this address does not serve the pack's files. Check the hub address in Settings.`,
    );
  });

  it('stops reading a file at its listed size: 50 MB streamed for a 200 kB file writes at most 200 kB, then deletes it', async () => {
    const state = await start();
    const listed = state.files.find((f) => f.path === TEXT_MODEL)!.bytes!;
    expect(listed).toBeLessThan(300_000);
    hub.faults.oversize.set(TEXT_MODEL, 50_000_000);
    const store = memoryStore();
    const error = await failure(continuePackDownload(state, { store, fetch: fetchImpl }));
    expect(error.kind).toBe('refused');
    expect(error.message).toBe(
      `${url.slice(7)} sent more of ${TEXT_MODEL} than the 0.2 MB the hub lists, so the download was stopped and the file deleted. Check the hub address in Settings: it does not serve the pack's files as the hub does.`.replace(
        '0.2 MB',
        `${Math.round(listed / 1e3)} kB`,
      ),
    );
    expect(store.mostStored.get(TEXT_MODEL)).toBeLessThanOrEqual(listed);
    expect(store.files.has(TEXT_MODEL)).toBe(false);
    // The client closed the connection: the server never got to the end of the 50 MB.
    await expect.poll(() => hub.closedByClient.has(TEXT_MODEL), { timeout: 10_000 }).toBe(true);
    expect(hub.sentBytes.get(TEXT_MODEL)).toBeLessThan(50_000_000);
  });

  it('without a file list, stops a file at the cap and says the sizes could not be checked', async () => {
    hub.faults.noTree = true;
    const state = await start();
    expect(unlistedNote(state)).toBe(
      `${url.slice(7)} gave no file list of ${pack.repo} (HTTP 404), so the files' sizes and hashes could not be checked; each file was limited to 310 MB.`,
    );
    expect(unlistedFileLimit(state, TEXT_MODEL)).toBe(Math.min(UNLISTED_FILE_CAP_BYTES, 2 * pack.approxBytes.q8));
    // models:fetch takes every variant: an fp32 tower may be larger than the q8 variant in all.
    expect(unlistedFileLimit(state, 'onnx/vision_model.onnx')).toBe(UNLISTED_FILE_CAP_BYTES);
    hub.faults.oversize.set(TEXT_MODEL, 20_000_000);
    const store = memoryStore();
    const error = await failure(continuePackDownload(state, { store, fetch: fetchImpl, unlistedFileCapBytes: 1_000_000 }));
    expect(error.message).toBe(
      `${url.slice(7)} sent more of ${TEXT_MODEL} than the 1.0 MB any file of this pack can have, so the download was stopped and the file deleted. Check the hub address in Settings: it does not serve the pack's files as the hub does.`,
    );
    expect(store.mostStored.get(TEXT_MODEL)).toBeLessThanOrEqual(1_000_000);
    expect(store.files.has(TEXT_MODEL)).toBe(false);
    // Resume asks for the file again from zero (its bytes were not kept as its size).
    expect((await store.readState(pack.id))!.files.find((f) => f.path === TEXT_MODEL)!.bytes).toBeNull();
  });

  it('a gzip that inflates past the cap is stopped by the bytes it inflates to', async () => {
    hub.faults.noTree = true;
    hub.faults.gzipBomb.set(TEXT_MODEL, 64_000_000);
    const store = memoryStore();
    const error = await failure(continuePackDownload(await start(), { store, fetch: fetchImpl, unlistedFileCapBytes: 1_000_000 }));
    expect(error.message).toBe(
      `${url.slice(7)} sent more of ${TEXT_MODEL} than the 1.0 MB any file of this pack can have once unpacked (it came compressed), so the download was stopped and the file deleted. Check the hub address in Settings: it does not serve the pack's files as the hub does.`,
    );
    expect(store.mostStored.get(TEXT_MODEL)).toBeLessThanOrEqual(1_000_000);
  });

  it('a damaged file list is refused, not taken for "no list"', async () => {
    hub.faults.treeBody = '{"oops": ';
    const notJson = await failure(planPackDownload(pack, url, ['q8'], fetchImpl));
    expect(notJson.message).toBe(
      `The file list ${url.slice(7)} gave for ${pack.repo} is damaged (it is not JSON), so sizes and hashes cannot be checked and nothing was downloaded. Check the hub address in Settings.`,
    );
    hub.faults.treeBody = JSON.stringify([{ type: 'file', path: 'config.json', size: -5 }]);
    const negative = await failure(planPackDownload(pack, url, ['q8'], fetchImpl));
    expect(negative.message).toBe(
      `The file list ${url.slice(7)} gave for ${pack.repo} is damaged (it gives config.json the size -5, which is not a number of bytes), so sizes and hashes cannot be checked and nothing was downloaded. Check the hub address in Settings.`,
    );
  });

  it('passes on the page\'s own explanation of a failed request instead of "Could not reach"', async () => {
    const explaining: HttpFetch = async () => {
      throw new PackDownloadError('redirect', 'the hub redirects in a loop');
    };
    const error = await failure(planPackDownload(pack, url, ['q8'], explaining));
    expect(error.kind).toBe('redirect');
    expect(error.message).toBe('the hub redirects in a loop');
  });
});
