import { createReadStream, existsSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown',
};

export interface BuildServer {
  url: string;
  /** Replaces what a path answers (e.g. a sw.js of a "newer build"); null serves the file again. */
  override(path: string, body: string | null): void;
  /** Requests answered so far, by path. */
  requests: string[];
  /** Each request as it arrived; `offlineCopy` is the service worker's stamp on a download of the offline copy (turnGate.ts), else null. */
  arrivals: { url: string; at: number; offlineCopy: string | null }[];
  /** From now on every request gets HTTP 503 ('error') or no answer at all ('hang'); null serves files again. */
  breakDown(how: 'error' | 'hang' | null): void;
  /** Stops listening and drops open connections: from now on the network is gone. */
  close(): Promise<void>;
}

/**
 * The production build (dist/) on a port of its own, with the isolation headers of `vite preview` (or, with
 * `isolation: false`, as a static host that sends none). The
 * offline tests start one per test, so they can take the network away completely and so a service
 * worker left from one test never answers another.
 */
export async function serveBuild(options: { isolation?: boolean } = {}): Promise<BuildServer> {
  // A plain static host sends neither cross-origin isolation nor a security policy.
  const isolation = options.isolation ?? true;
  const overrides = new Map<string, string>();
  const requests: string[] = [];
  const arrivals: { url: string; at: number; offlineCopy: string | null }[] = [];
  const sockets = new Set<Socket>();
  let broken: 'error' | 'hang' | null = null;
  const headers = (type: string, length: number) => ({
    'Content-Type': type,
    'Content-Length': String(length),
    ...(isolation ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
    'Cache-Control': 'no-cache',
  });
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const stamp = req.headers['x-offline-copy'];
    arrivals.push({ url: req.url ?? '/', at: Date.now(), offlineCopy: typeof stamp === 'string' ? stamp : null });
    if (broken === 'hang') return;
    if (broken === 'error') {
      res.writeHead(503, headers('text/plain', 4)).end('Down');
      return;
    }
    const override = overrides.get(path);
    if (override !== undefined) {
      const body = Buffer.from(override);
      res.writeHead(200, headers(TYPES[extname(path)] ?? 'application/octet-stream', body.length)).end(body);
      return;
    }
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    if (!file.startsWith(DIST + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, headers('text/plain', 9)).end('Not found');
      return;
    }
    res.writeHead(200, headers(TYPES[extname(file)] ?? 'application/octet-stream', statSync(file).size));
    createReadStream(file).pipe(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('The build server has no address.');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    arrivals,
    override: (path, body) => (body === null ? overrides.delete(path) : overrides.set(path, body)),
    breakDown: (how) => {
      broken = how;
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
