import * as ort from 'onnxruntime-web';
import type { ExecutionProvider } from './executionPlan';

export type OrtSession = ort.InferenceSession;
export type OrtTensor = ort.Tensor;
export { ort };

/** Creates an inference session on one provider; split out so tests can inject a failing WebGPU. */
export type SessionFactory = (model: Uint8Array, provider: ExecutionProvider) => Promise<OrtSession>;

/** A URL prefix of onnxruntime's .wasm/.mjs files, or the two files themselves (absolute URLs). */
export type WasmFiles = string | { mjs: string; wasm: string };

export function configureWasm(threads: number, wasmPaths?: WasmFiles): void {
  // ORT's warnings about shape ops placed on the CPU are expected, not actionable.
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
}

export const createOrtSession: SessionFactory = (model, provider) =>
  ort.InferenceSession.create(model, {
    executionProviders: [provider],
    graphOptimizationLevel: 'all',
    // Keep outputs on the CPU: the engine reads every embedding it computes.
    ...(provider === 'webgpu' ? { preferredOutputLocation: 'cpu' as const } : {}),
  });
