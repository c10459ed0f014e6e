import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REMOTE_PACKS, fetchPack } from './fetchModels';

/** A stand-in hub on loopback: serves every file of the pack, honours Range, can cut a file short once. */
function fakeHub(files: Record<string, Buffer>, cutOnce: Set<string>): Server {
  return createServer((req, res) => {
    const match = /^\/[^/]+\/[^/]+\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const body = match ? files[match[1]!] : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length && range) {
      res.writeHead(416).end();
      return;
    }
    const part = body.subarray(start);
    res.writeHead(range ? 206 : 200, { 'Content-Length': String(part.length) });
    if (cutOnce.delete(match![1]!)) {
      res.write(part.subarray(0, Math.floor(part.length / 2)));
      setTimeout(() => res.destroy(), 50); // the connection drops mid-file
      return;
    }
    res.end(part);
  });
}

describe('models:fetch', () => {
  const pack = REMOTE_PACKS['clip-vit-base-patch32']!;
  const files = Object.fromEntries(pack.files.map((f, i) => [f, Buffer.alloc(1000 + i * 137, i + 1)]));
  const cut = new Set<string>();
  let server: Server;
  let hub: string;
  beforeAll(async () => {
    server = fakeHub(files, cut);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    hub = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('downloads every file, checks sizes, writes a manifest and moves the pack into place', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'models-'));
    const seen = new Set<string>();
    const { dir } = await fetchPack('clip-vit-base-patch32', { modelsDir, hub, onProgress: (file) => seen.add(file) });
    expect(dir).toBe(join(modelsDir, 'clip-vit-base-patch32'));
    for (const [file, body] of Object.entries(files)) expect(readFileSync(join(dir, file)).equals(body)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string; bytes: number }[] };
    expect(manifest.files.map((f) => f.path)).toEqual(pack.files);
    expect(manifest.files.map((f) => f.bytes)).toEqual(pack.files.map((f) => files[f]!.length));
    expect(seen).toEqual(new Set(pack.files));
    expect(existsSync(join(modelsDir, '.download', 'clip-vit-base-patch32'))).toBe(false);
  });

  it('leaves nothing in models/<id> when a transfer breaks, and resumes from where it stopped', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'models-'));
    cut.add('onnx/vision_model.onnx');
    await expect(fetchPack('clip-vit-base-patch32', { modelsDir, hub })).rejects.toThrow(/^The download of onnx\/vision_model\.onnx broke off after \d+ of \d+ bytes/);
    expect(existsSync(join(modelsDir, 'clip-vit-base-patch32'))).toBe(false);
    const requests: string[] = [];
    const { dir } = await fetchPack('clip-vit-base-patch32', {
      modelsDir,
      hub,
      fetchImpl: (url, init) => {
        requests.push(`${String(url).split('/main/')[1]} ${new Headers(init?.headers).get('range') ?? 'full'}`);
        return fetch(url, init);
      },
    });
    expect(readFileSync(join(dir, 'onnx/vision_model.onnx')).equals(files['onnx/vision_model.onnx']!)).toBe(true);
    // Files finished in the first run are not fetched again; the broken one continues with a Range request.
    expect(requests.find((r) => r.startsWith('config.json'))).toBe(`config.json bytes=${files['config.json']!.length}-`);
    expect(requests.find((r) => r.startsWith('onnx/vision_model.onnx'))).toMatch(/^onnx\/vision_model\.onnx bytes=\d+-$/);
  });

  it('fails with a clear message, and writes nothing, when the hub cannot be reached', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'models-'));
    // Port 9 (discard) on loopback: connection refused at once, as with no network.
    await expect(fetchPack('clip-vit-base-patch32', { modelsDir, hub: 'http://127.0.0.1:9' })).rejects.toThrow(/^Could not reach 127\.0\.0\.1:9 \(/);
    expect(existsSync(join(modelsDir, 'clip-vit-base-patch32'))).toBe(false);
    expect(existsSync(join(modelsDir, '.download'))).toBe(false);
  });

  it('gives up on a hub that accepts the connection but never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      await expect(fetchPack('clip-vit-base-patch32', { modelsDir: mkdtempSync(join(tmpdir(), 'models-')), hub: `http://127.0.0.1:${port}`, connectTimeoutMs: 300 })).rejects.toThrow(
        `Could not reach 127.0.0.1:${port} (no answer within 0.3 s).`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses unknown packs by listing the known ones', async () => {
    await expect(fetchPack('gpt-7', { modelsDir: tmpdir(), hub })).rejects.toThrow('Unknown pack "gpt-7". Known packs: clip-vit-base-patch32.');
  });
});
