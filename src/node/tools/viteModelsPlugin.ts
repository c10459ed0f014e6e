import { createReadStream, statSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { type ModelsListing, isServablePackPath, listModels } from './modelPacks.ts';

/** /models/index.json: the same bytes from the dev server, the preview server and the build (the offline copy hashes them). */
export function packIndexJson({ packs, detector, captioners, clevr, avsd, photoCheck }: ModelsListing): string {
  return JSON.stringify({ packs, detector, captioners, clevr, avsd, photoCheck });
}

/**
 * Serves the packs and the object detector under models/ at /models/ (dev server and preview), with
 * /models/index.json listing them (the detector beside the packs, not as one), and copies them into
 * the production build. Test fixtures and the detector's source model stay out.
 */
export function modelsPlugin(modelsDir: string): Plugin {
  const middleware: Connect.NextHandleFunction = (req, res, next) => {
    const url = (req.url ?? '').split('?')[0]!;
    if (!url.startsWith('/models/')) return next();
    const rest = decodeURIComponent(url.slice('/models/'.length));
    if (rest === 'index.json') {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(packIndexJson(listModels(modelsDir)));
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
      const models = listModels(modelsDir);
      await mkdir(join(outDir, 'models'), { recursive: true });
      const folders = [
        ...[...models.packs, ...models.captioners].map((p) => ({ dir: p.id, files: p.files })),
        ...(models.detector ? [models.detector] : []),
        ...(models.clevr ? [models.clevr] : []),
        ...(models.avsd ? [models.avsd] : []),
        ...(models.photoCheck ? [models.photoCheck] : []),
      ];
      for (const { dir, files } of folders) {
        for (const file of files) {
          await mkdir(join(outDir, 'models', dir, file.path, '..'), { recursive: true });
          await cp(join(modelsDir, dir, file.path), join(outDir, 'models', dir, file.path));
        }
      }
      await writeFile(join(outDir, 'models', 'index.json'), packIndexJson(models));
    },
  };
}
