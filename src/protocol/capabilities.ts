import type { BackendCapabilities } from '../engine/onnx/executionPlan';

/**
 * What this browser offers the models: a WebGPU adapter (with shader-f16?), threads. The worker
 * chooses its execution plan from it, and the page the variant of a pack to download, so both agree.
 */
export async function detectCapabilities(forceWasm: boolean): Promise<BackendCapabilities> {
  const base = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency || 1, forceWasm };
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  // The adapter is looked for even when WASM is chosen: the onnxruntime build depends on it (runtimeBuild).
  if (!gpu) return { ...base, webgpuAdapter: false, shaderF16: false };
  try {
    const adapter = await gpu.requestAdapter();
    return { ...base, webgpuAdapter: adapter !== null, shaderF16: adapter?.features.has('shader-f16') ?? false };
  } catch {
    return { ...base, webgpuAdapter: false, shaderF16: false };
  }
}
