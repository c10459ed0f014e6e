// onnxruntime-web's plain WASM build (no WebGPU glue), emitted as files of their own by Vite.
import plainMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import plainWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import type { ExecutionPlan } from '../engine/onnx/executionPlan';

/**
 * Which onnxruntime-web artifacts the worker runs: the bundle's own (the WebGPU-capable JSEP build)
 * where WebGPU may be used, and the plain WASM build where it will not be, which runs the same WASM
 * kernels without the WebGPU glue: measured 2.5-3x faster on a batch of 32 texts and ~20% on images
 * (`npm run bench -- vs-transformers`). The JS of onnxruntime-web stays one copy; only the .wasm
 * and its loader differ. The choice is made once per worker: onnxruntime initialises once.
 */
export type OrtArtifacts = 'webgpu-capable' | 'plain-wasm';

/** Absolute URLs, as onnxruntime-web's file overrides require. */
export function plainWasmFiles(base: string): { mjs: string; wasm: string } {
  return { mjs: new URL(plainMjsUrl, base).href, wasm: new URL(plainWasmUrl, base).href };
}

export function artifactsFor(plan: ExecutionPlan): OrtArtifacts {
  return plan.provider === 'webgpu' ? 'webgpu-capable' : 'plain-wasm';
}
