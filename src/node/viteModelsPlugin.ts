import { createReadStream, statSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { type PackListing, isServablePackPath, listModelPacks } from './modelPacks.ts';

/** /models/index.json: the same bytes from the dev server, the preview server and the build (the offline copy hashes them). */
export function packIndexJson(packs: PackListing[]): string {
  return JSON.stringify({ packs });
}

/**
 * Serves the packs under models/ at /models/ (dev server and preview), with /models/index.json
 * listing them, and copies them into the production build. Test fixtures inside packs stay out.
 */
export function modelsPlugin(modelsDir: string): Plugin {
  const middleware: Connect.NextHandleFunction = (req, res, next) => {
    const url = (req.url ?? '').split('?')[0]!;
    if (!url.startsWith('/models/')) return next();
    const rest = decodeURIComponent(url.slice('/models/'.length));
    if (rest === 'index.json') {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(packIndexJson(listModelPacks(modelsDir)));
      return;
    }
    const file = isServablePackPath(modelsDir, rest);
    if (!file) {
      res.statusCode = 404;
      res.end('Not found');
      return;
    }
    res.setHeader('Content-Length', String(statSync(file).size));
    res.setHeader('Content-Type', file.endsWith('.json') ? 'application/json' : 'application/octet-stream');
    res.setHeader('Cache-Control', 'no-cache');
    createReadStream(file).pipe(res);
  };
  let outDir = 'dist';
  return {
    name: 'mmdialog-models',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use(middleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware);
    },
    async closeBundle() {
      const packs = listModelPacks(modelsDir);
      await mkdir(join(outDir, 'models'), { recursive: true });
      for (const pack of packs) {
        for (const file of pack.files) {
          await mkdir(join(outDir, 'models', pack.id, file.path, '..'), { recursive: true });
          await cp(join(modelsDir, pack.id, file.path), join(outDir, 'models', pack.id, file.path));
        }
      }
      await writeFile(join(outDir, 'models', 'index.json'), packIndexJson(packs));
    },
  };
}
