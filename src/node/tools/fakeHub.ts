import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { join, relative, sep } from 'node:path';

/**
 * A stand-in for the Hugging Face hub on loopback, for tests without a network: it speaks the hub's
 * URL scheme ({repo}/resolve/{revision}/{file}, with LFS files redirected to a CDN path as the real
 * hub does), Range requests, ETag / X-Linked-Etag / X-Linked-Size, the tree API and CORS, and serves
 * the project's own packs under real repo names. Faults are set per test: a transfer cut after N
 * bytes, a 404, slow streaming, a server that ignores Range, a damaged byte; and hubs that are not
 * one: no tree API, a damaged tree, web pages for every file, endless or inflating bodies, redirect loops.
 */
export interface FakeHubRepo {
  /** e.g. "Xenova/clip-vit-base-patch32". */
  repo: string;
  /** The folder whose files are served. */
  dir: string;
  /** Files to serve, relative to dir with forward slashes; default: every file outside fixture/ folders. */
  files?: string[];
}

export interface FakeHubFaults {
  /** Close the connection after this many bytes of the body of these files, once each. */
  cutAfter: Map<string, number>;
  /** Answer 404 for these files. */
  notFound: Set<string>;
  /** Pause this long after each 64 kB sent (0: no pause). */
  slowMsPerChunk: number;
  /** Answer 200 with the whole file even when asked for a range. */
  ignoreRange: boolean;
  /** Flip one byte of these files' bodies (their listed size and hash stay right). */
  damaged: Set<string>;
  /** Answer 404 for the tree API, as a plain file mirror does. */
  noTree: boolean;
  /** Answer the tree API with this body (200, application/json) instead of the real list. */
  treeBody: string | null;
  /** Answer 200 text/html (a web page) for every file, as a web server that is not a hub does. */
  htmlEverywhere: boolean;
  /** Serve this many bytes for these files instead of their own, without a Content-Length. */
  oversize: Map<string, number>;
  /** Serve these files as a gzip (Content-Encoding) of this many zero bytes. */
  gzipBomb: Map<string, number>;
  /** Serve these bytes for these files instead (octet-stream; the tree still lists the real ones). */
  replaced: Map<string, Buffer>;
  /** Redirect these files to this address ("loop": to themselves, for ever). */
  redirect: Map<string, string>;
}

export interface FakeHubRequest {
  path: string;
  range: string | null;
  status: number;
}

interface ServedFile {
  bytes: Buffer;
  sha256: string;
  lfs: boolean;
}

const CHUNK = 64 * 1024;
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range, Content-Type',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, ETag, X-Linked-Etag, X-Linked-Size, Accept-Ranges, Location',
};

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'fixture') walk(full);
      } else if (entry.isFile()) out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export class FakeHub {
  readonly faults: FakeHubFaults = {
    cutAfter: new Map(),
    notFound: new Set(),
    slowMsPerChunk: 0,
    ignoreRange: false,
    damaged: new Set(),
    noTree: false,
    treeBody: null,
    htmlEverywhere: false,
    oversize: new Map(),
    gzipBomb: new Map(),
    replaced: new Map(),
    redirect: new Map(),
  };
  readonly requests: FakeHubRequest[] = [];
  /** Body bytes written per file (before compression), to see where a client stopped reading. */
  readonly sentBytes = new Map<string, number>();
  /**
   * Oversize files whose connection the client closed before the server had sent all it meant to.
   * How many bytes got through first depends on the machine's speed and socket buffers; this does not.
   */
  readonly closedByClient = new Set<string>();
  private readonly repos = new Map<string, Map<string, ServedFile>>();
  private server: Server | null = null;
  url = '';

  constructor(repos: readonly FakeHubRepo[]) {
    for (const { repo, dir, files } of repos) {
      const served = new Map<string, ServedFile>();
      for (const path of files ?? listFiles(dir)) {
        const bytes = readFileSync(join(dir, ...path.split('/')));
        // Like the hub: large and binary files live in LFS, which is what carries a SHA-256.
        served.set(path, {
          bytes,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          lfs: path.endsWith('.onnx') || statSync(join(dir, ...path.split('/'))).size > 10_000_000,
        });
      }
      this.repos.set(repo, served);
    }
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
    return this.url;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  /** Clears the faults and the request log between tests. */
  reset(): void {
    this.faults.cutAfter.clear();
    this.faults.notFound.clear();
    this.faults.damaged.clear();
    this.faults.slowMsPerChunk = 0;
    this.faults.ignoreRange = false;
    this.faults.noTree = false;
    this.faults.treeBody = null;
    this.faults.htmlEverywhere = false;
    this.faults.oversize.clear();
    this.faults.gzipBomb.clear();
    this.faults.replaced.clear();
    this.faults.redirect.clear();
    this.requests.length = 0;
    this.sentBytes.clear();
    this.closedByClient.clear();
  }

  /** The files of a repo as the hub would list them: path, size, sha256. */
  filesOf(repo: string): { path: string; bytes: number; sha256: string }[] {
    return [...(this.repos.get(repo) ?? new Map<string, ServedFile>()).entries()].map(([path, f]) => ({ path, bytes: f.bytes.length, sha256: f.sha256 }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://hub');
    const path = decodeURIComponent(url.pathname);
    const range = req.headers.range ?? null;
    const log = (status: number) => this.requests.push({ path, range, status });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/.exec(path);
    if (tree && (this.faults.noTree || this.faults.htmlEverywhere)) {
      log(404);
      res.writeHead(404, { ...CORS, 'Content-Type': 'text/html' }).end('<!doctype html><title>Not found</title>');
      return;
    }
    if (tree && this.faults.treeBody !== null) {
      log(200);
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end(this.faults.treeBody);
      return;
    }
    if (tree) {
      const files = this.repos.get(tree[1]!);
      log(files ? 200 : 404);
      if (!files) {
        res.writeHead(404, { ...CORS, 'Content-Type': 'application/json' }).end('{"error":"Repository not found"}');
        return;
      }
      const dirs = new Set([...files.keys()].flatMap((p) => (p.includes('/') ? [p.slice(0, p.lastIndexOf('/'))] : [])));
      const entries = [
        ...[...dirs].map((d) => ({ type: 'directory', oid: createHash('sha1').update(d).digest('hex'), size: 0, path: d })),
        ...[...files.entries()].map(([p, f]) => ({
          type: 'file',
          oid: createHash('sha1').update(f.bytes).digest('hex'),
          size: f.bytes.length,
          path: p,
          ...(f.lfs ? { lfs: { oid: f.sha256, size: f.bytes.length, pointerSize: 134 } } : {}),
        })),
      ];
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end(JSON.stringify(entries));
      return;
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/(.+)$/.exec(path);
    const repo = resolve?.[1] ?? cdn?.[1];
    const file = resolve?.[3] ?? cdn?.[2];
    if (this.faults.htmlEverywhere) {
      log(200);
      res
        .writeHead(200, { ...CORS, 'Content-Type': 'text/html; charset=utf-8' })
        .end('<!doctype html><html><head><title>Welcome</title></head><body>It works!</body></html>');
      return;
    }
    const redirect = file !== undefined ? this.faults.redirect.get(file) : undefined;
    if (redirect !== undefined) {
      log(302);
      res.writeHead(302, { ...CORS, Location: redirect === 'loop' ? (req.url ?? '/') : redirect }).end();
      return;
    }
    if (file !== undefined && (this.faults.oversize.has(file) || this.faults.gzipBomb.has(file))) {
      await this.sendEndless(res, file, log);
      return;
    }
    const served = repo && file ? this.repos.get(repo)?.get(file) : undefined;
    if (!served || !file || this.faults.notFound.has(file)) {
      log(404);
      res.writeHead(404, { ...CORS, 'Content-Type': 'text/plain', 'X-Error-Code': 'EntryNotFound' }).end('Entry not found');
      return;
    }
    if (resolve && served.lfs) {
      // The real hub answers LFS files with a redirect to its CDN, naming the hash and size.
      log(302);
      res
        .writeHead(302, {
          ...CORS,
          Location: `/cdn/${repo}/${file}`,
          'X-Linked-Etag': `"${served.sha256}"`,
          'X-Linked-Size': String(served.bytes.length),
          ETag: `"${served.sha256}"`,
        })
        .end();
      return;
    }
    await this.sendBody(res, file, served, range, log);
  }

  /** An oversized body without Content-Length, or a gzip that inflates to many times its size. */
  private async sendEndless(res: ServerResponse, file: string, log: (status: number) => void): Promise<void> {
    log(200);
    const bomb = this.faults.gzipBomb.get(file);
    if (bomb !== undefined) {
      const gzip = gzipSync(Buffer.alloc(bomb));
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'gzip', 'Content-Length': String(gzip.length) });
      this.sentBytes.set(file, gzip.length);
      res.end(gzip);
      return;
    }
    const total = this.faults.oversize.get(file)!;
    res.writeHead(200, { ...CORS, 'Content-Type': 'application/octet-stream' });
    const chunk = Buffer.alloc(CHUNK, 7);
    let sent = 0;
    while (sent < total && !res.destroyed) {
      const part = chunk.subarray(0, Math.min(CHUNK, total - sent));
      const drained = res.write(part);
      sent += part.length;
      this.sentBytes.set(file, sent);
      if (!drained) {
        const ok = await new Promise<boolean>((resolve) => {
          const settle = (drained: boolean) => () => {
            res.off('drain', onDrain).off('close', onClose);
            resolve(drained);
          };
          const onDrain = settle(true);
          const onClose = settle(false);
          res.on('drain', onDrain).on('close', onClose);
        });
        if (!ok) break;
      }
    }
    if (sent < total) {
      this.closedByClient.add(file);
      return;
    }
    res.end();
  }

  private async sendBody(res: ServerResponse, file: string, served: ServedFile, range: string | null, log: (status: number) => void): Promise<void> {
    let body = this.faults.replaced.get(file) ?? served.bytes;
    if (this.faults.damaged.has(file)) {
      body = Buffer.from(body);
      body[Math.floor(body.length / 2)]! ^= 0xff;
    }
    const asked = !this.faults.ignoreRange && range ? /^bytes=(\d+)-$/.exec(range) : null;
    const start = asked ? Number(asked[1]) : 0;
    const headers: Record<string, string> = { ...CORS, 'Accept-Ranges': 'bytes', ETag: `"${served.sha256}"`, 'Content-Type': 'application/octet-stream' };
    if (asked && start >= body.length) {
      log(416);
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(start);
    const status = asked ? 206 : 200;
    log(status);
    res.writeHead(status, {
      ...headers,
      'Content-Length': String(part.length),
      ...(asked ? { 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    const cut = this.faults.cutAfter.get(file);
    if (cut !== undefined) this.faults.cutAfter.delete(file);
    let sent = 0;
    while (sent < part.length) {
      const end = Math.min(part.length, sent + CHUNK, cut !== undefined ? Math.max(cut, sent + 1) : Infinity);
      if (cut !== undefined && sent >= cut) {
        // The connection drops mid-file, once the client has had time to read what was sent (a close
        // at once can make a browser discard the bytes still in flight).
        await new Promise((resolve) => setTimeout(resolve, 500));
        res.socket?.end();
        return;
      }
      if (!res.write(part.subarray(sent, end))) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
      sent = end;
      if (this.faults.slowMsPerChunk > 0) await new Promise((resolve) => setTimeout(resolve, this.faults.slowMsPerChunk));
      if (res.destroyed) return;
    }
    res.end();
  }
}
