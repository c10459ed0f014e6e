import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [
      // transformers.js's Node build runs on onnxruntime-node; here that is the engine's own onnxruntime-web
      // (its Node build, WASM), one instance with the CLIP towers' (package.json overrides it the same way).
      { find: /^onnxruntime-node$/, replacement: 'onnxruntime-web' },
      { find: /^onnxruntime-web\/webgpu$/, replacement: 'onnxruntime-web' },
    ],
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // Sized for a loaded 2-core machine: loading an ONNX model in a beforeAll took over Vitest's 10 s
    // default there, which skipped the file's tests and failed the run.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Inlined so the aliases above apply inside the library.
    server: { deps: { inline: ['@huggingface/transformers'] } },
  },
});
