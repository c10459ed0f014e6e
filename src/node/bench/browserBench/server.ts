import { resolve } from 'node:path';
import type { ViteDevServer } from 'vite';
import { CROSS_ORIGIN_ISOLATION_HEADERS } from '../../../engine/securityPolicy';
import { modelsPlugin } from '../../tools/viteModelsPlugin';

/**
 * A Vite dev server for the pages under src/node/bench/browserBench (benchmarks and the WebGPU ranking
 * check): the packs under /models/, cross-origin isolation (so WASM threads can be asked for), and not
 * the app's config: there every import of onnxruntime is the worker's one copy (its aliases), while a
 * bench page must let transformers.js import its own onnxruntime-web/webgpu, as an app using it would.
 */
export async function startBenchServer(port: number): Promise<ViteDevServer> {
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: false,
    logLevel: 'warn',
    plugins: [modelsPlugin(resolve('models'))],
    resolve: { alias: [{ find: /^onnxruntime-common$/, replacement: resolve('src/node/bench/browserBench/transformersOrtCommon.ts') }] },
    optimizeDeps: { exclude: ['onnxruntime-web', '@huggingface/transformers'] },
    server: { port, strictPort: true, open: false, headers: CROSS_ORIGIN_ISOLATION_HEADERS },
  });
  await server.listen();
  return server;
}
