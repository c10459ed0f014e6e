// onnxruntime-web's WASM-only build, emitted by Vite as files of their own beside the bundle's WebGPU-capable one.
import wasmOnlyMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import wasmOnlyWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import type { RuntimeBuild } from '../engine/onnx/executionPlan';
import type { WasmFiles } from '../engine/onnx/ortSessions';

/**
 * The files onnxruntime loads for a build (runtimeBuild): the WASM-only build's loader and module as
 * absolute URLs (onnxruntime's file overrides require them), or undefined for the bundle's own.
 */
export function wasmFilesFor(build: RuntimeBuild, base: string): WasmFiles | undefined {
  return build === 'wasm-only' ? { mjs: new URL(wasmOnlyMjsUrl, base).href, wasm: new URL(wasmOnlyWasmUrl, base).href } : undefined;
}
