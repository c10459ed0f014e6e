import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { modelsPlugin } from './src/node/viteModelsPlugin.ts';
import { offlinePlugin } from './src/node/viteOfflinePlugin.ts';

const modelsDir = fileURLToPath(new URL('./models', import.meta.url));
const serviceWorkerEntry = fileURLToPath(new URL('./src/sw/sw.ts', import.meta.url));

// Cross-origin isolation lets onnxruntime-web use WASM threads (SharedArrayBuffer).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react(), tailwindcss(), modelsPlugin(modelsDir), offlinePlugin({ modelsDir, serviceWorkerEntry })],
  server: { headers: isolation, host: 'localhost' },
  preview: { headers: isolation, host: 'localhost' },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  build: { target: 'es2022', chunkSizeWarningLimit: 2000 },
});
