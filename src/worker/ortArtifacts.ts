// How the worker starts onnxruntime-web, and its WASM-only build, emitted by Vite as files of their own beside the bundle's WebGPU-capable one.
import wasmOnlyMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import wasmOnlyWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import { type ExecutionPlan, type RuntimeBuild, chooseExecutionPlan, runtimeBuild } from '../engine/onnx/executionPlan';
import { type WasmFiles, configureWasm, startRuntime } from '../engine/onnx/ortSessions';
import { detectCapabilities } from '../protocol/capabilities';

/**
 * The files onnxruntime loads for a build (runtimeBuild): the WASM-only build's loader and module as
 * absolute URLs (onnxruntime's file overrides require them), or undefined for the bundle's own.
 */
function wasmFilesFor(build: RuntimeBuild, base: string): WasmFiles | undefined {
  return build === 'wasm-only' ? { mjs: new URL(wasmOnlyMjsUrl, base).href, wasm: new URL(wasmOnlyWasmUrl, base).href } : undefined;
}

/**
 * Chooses WebGPU or WASM and starts onnxruntime: its WebGPU-capable build where the browser offers
 * WebGPU, its WASM-only build elsewhere (runtimeBuild). onnxruntime starts once per worker, so a later
 * load keeps the build the first one chose.
 */
export async function startInWorker(forceWasm: boolean): Promise<ExecutionPlan> {
  const caps = await detectCapabilities(forceWasm);
  const plan = chooseExecutionPlan(caps);
  configureWasm(plan.wasmThreads, wasmFilesFor(runtimeBuild(caps), self.location.href));
  // Only for WASM: a first session on the wasm provider keeps onnxruntime from setting up WebGPU
  // afterwards (the pack then fell back to WASM in e2e/backends.spec.ts).
  if (plan.provider === 'wasm') void startRuntime();
  return plan;
}
