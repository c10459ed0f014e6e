import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Plugin, build } from 'vite';
import { listModels } from './modelPacks.ts';
import { buildOfflineManifest } from './offlineManifest.ts';
import { packIndexJson } from './viteModelsPlugin.ts';

/** sw.js starts with this, then the manifest as one line of JSON. */
export const OFFLINE_MANIFEST_LINE = 'self.__OFFLINE_MANIFEST__=';

/**
 * Production builds only: writes sw.js, the service worker that keeps the demo for offline use,
 * with this build's precache manifest (and version) as its first line. Dev servers get no service worker.
 */
export function offlinePlugin(options: { modelsDir: string; serviceWorkerEntry: string }): Plugin {
  let outDir = 'dist';
  let root = '.';
  return {
    name: 'mmdialog-offline',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = join(config.root, config.build.outDir);
    },
    async closeBundle() {
      const models = listModels(options.modelsDir);
      const manifest = buildOfflineManifest({ outDir, modelsDir: options.modelsDir, ...models, packIndexJson: packIndexJson(models) });
      // A separate build: one classic script with no imports, which every browser runs as a service worker.
      const output = await build({
        configFile: false,
        root,
        logLevel: 'warn',
        publicDir: false,
        build: {
          write: false,
          target: 'es2022',
          minify: true,
          lib: { entry: options.serviceWorkerEntry, formats: ['iife'], name: 'mmdialogServiceWorker', fileName: () => 'sw.js' },
        },
      });
      const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => ('output' in o ? o.output : []));
      const worker = chunks.find((c) => c.type === 'chunk' && c.fileName === 'sw.js');
      if (!worker || worker.type !== 'chunk') throw new Error('The service worker build produced no sw.js.');
      await writeFile(join(outDir, 'sw.js'), `${OFFLINE_MANIFEST_LINE}${JSON.stringify(manifest)};\n${worker.code}`);
      const megabytes = manifest.precache.reduce((n, f) => n + f.bytes, 0) / 1e6;
      this.environment.logger.info(`offline: sw.js version ${manifest.version}, ${manifest.precache.length} files (${megabytes.toFixed(1)} MB) kept at install, ${manifest.optional.length} on first use`);
    },
  };
}
