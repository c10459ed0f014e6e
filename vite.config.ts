import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { type Plugin, defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { modelsPlugin } from './src/node/tools/viteModelsPlugin.ts';
import { offlineInjectManifestOptions } from './src/node/tools/offlineManifest.ts';
import { CROSS_ORIGIN_ISOLATION_HEADERS, contentSecurityPolicy } from './src/engine/securityPolicy.ts';

const modelsDir = fileURLToPath(new URL('./models', import.meta.url));

// Cross-origin isolation lets onnxruntime-web use WASM threads (SharedArrayBuffer).
const isolation = CROSS_ORIGIN_ISOLATION_HEADERS;

/** The built index.html carries the policy as a meta tag too, for static hosts that send no headers (not in dev: React's refresh preamble is inline). */
const securityPolicyMeta: Plugin = {
  name: 'security-policy-meta',
  apply: 'build',
  transformIndexHtml: () => [
    { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy({ meta: true }) }, injectTo: 'head-prepend' },
  ],
};

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    securityPolicyMeta,
    modelsPlugin(modelsDir),
    // Production builds only: dist/sw.js from src/sw/sw.ts with this build's file list (docs/using-the-demo.md, "Offline").
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      // The page registers sw.js itself once the model has loaded (src/app/offlineController.ts); no web app manifest.
      injectRegister: false,
      manifest: false,
      injectManifest: {
        // A classic script, which every browser runs as a service worker.
        rollupFormat: 'iife',
        ...offlineInjectManifestOptions(modelsDir, (line) => console.info(line)),
      },
    }),
  ],
  // transformers.js imports onnxruntime-web/webgpu; the engine imports onnxruntime-web (whose default build
  // has WebGPU too): one copy of the runtime's JS in the worker (e2e/bundle.spec.ts), with its two .wasm
  // builds (src/worker/ortArtifacts.ts).
  resolve: {
    alias: [
      { find: /^onnxruntime-web\/webgpu$/, replacement: 'onnxruntime-web' },
      { find: /^onnxruntime-common$/, replacement: fileURLToPath(new URL('./src/worker/onnxruntimeCommon.ts', import.meta.url)) },
    ],
  },
  server: { headers: isolation, host: 'localhost' },
  preview: { headers: { ...isolation, 'Content-Security-Policy': contentSecurityPolicy() }, host: 'localhost' },
  worker: {
    format: 'es',
    rollupOptions: {
      output: {
        // onnxruntime's WASM-only loader is an .mjs module (src/worker/ortArtifacts.ts): named .js, because
        // many static hosts serve .mjs with no JavaScript type, and browsers refuse to run such a module.
        assetFileNames: (asset) => (asset.names.some((n) => n.endsWith('.mjs')) ? 'assets/[name]-[hash].js' : 'assets/[name]-[hash][extname]'),
      },
    },
  },
  optimizeDeps: { exclude: ['onnxruntime-web', '@huggingface/transformers'] },
  build: { target: 'es2022', chunkSizeWarningLimit: 2000 },
});
