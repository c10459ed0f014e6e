import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = join(root, 'dist', 'assets');

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

test("the build holds exactly one copy of onnxruntime-web's JS, inside the worker only, and its two WebAssembly builds", () => {
  // Every copy of onnxruntime-web embeds onnxruntime-common's version string once (env.versions.common).
  const commonVersion = (JSON.parse(readFileSync(join(root, 'node_modules', 'onnxruntime-common', 'package.json'), 'utf8')) as { version: string }).version;
  const files = readdirSync(assets);
  const counts = files.filter((f) => f.endsWith('.js')).map((f) => ({ file: f, copies: occurrences(readFileSync(join(assets, f), 'utf8'), commonVersion) }));
  const withOrt = counts.filter((c) => c.copies > 0);
  expect(withOrt).toHaveLength(1);
  expect(withOrt[0]!.copies).toBe(1);
  expect(withOrt[0]!.file).toMatch(/^model\.worker-/);
  // Two WebAssembly builds under that one JS: the WebGPU-capable (JSEP) one, and the WASM-only one the
  // worker runs where the browser offers no WebGPU (half the code to compile; src/worker/ortArtifacts.ts),
  // with its loader emitted as .js. Nothing else.
  const wasm = files.filter((f) => f.endsWith('.wasm')).sort();
  expect(wasm).toHaveLength(2);
  expect(wasm[0]).toMatch(/^ort-wasm-simd-threaded-[\w-]+\.wasm$/);
  expect(wasm[1]).toMatch(/^ort-wasm-simd-threaded\.jsep-[\w-]+\.wasm$/);
  expect(files.filter((f) => /^ort-wasm-simd-threaded-[\w-]+\.js$/.test(f))).toHaveLength(1);
});
