/**
 * The one place that decides which execution provider runs a pack and which ONNX variant of each
 * tower is loaded (Transformers.js naming: text_model.onnx, text_model_fp16.onnx, text_model_quantized.onnx).
 */
export type ExecutionProvider = 'webgpu' | 'wasm';
export type ModelDtype = 'fp32' | 'fp16' | 'q8';

export interface BackendCapabilities {
  /** navigator.gpu.requestAdapter() returned an adapter (looked for even when WASM is chosen: see runtimeBuild). */
  webgpuAdapter: boolean;
  /** The adapter lists the 'shader-f16' feature. */
  shaderF16: boolean;
  /** SharedArrayBuffer is usable, so WASM can run multi-threaded. */
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** The user (or a fallback) asked for WASM. */
  forceWasm: boolean;
}

export interface ExecutionPlan {
  provider: ExecutionProvider;
  /** Variants to try, best first; the first one the pack has is used. */
  dtypes: ModelDtype[];
  wasmThreads: number;
  /** Why this provider, in words for the status area. */
  reason: string;
}

function wasmThreadCount(caps: Pick<BackendCapabilities, 'crossOriginIsolated' | 'hardwareConcurrency'>): number {
  // Threads need SharedArrayBuffer; leave one core for the page.
  if (!caps.crossOriginIsolated) return 1;
  return Math.max(1, Math.min(4, caps.hardwareConcurrency - 1));
}

/**
 * Which of onnxruntime-web's WebAssembly builds a worker starts, once: the WebGPU-capable one (28 MB)
 * where the browser offers a WebGPU adapter, so the tab moves between WebGPU and WASM (the settings, a
 * failure) without a restart; elsewhere the WASM-only one (14 MB), half the code to compile, which
 * brought Ready from cache from 4.1 to 2.7 s on a 2-core machine (docs/speed.md). The offline copy
 * keeps the build this rule picks (src/sw/sw.ts).
 */
export type RuntimeBuild = 'webgpu-capable' | 'wasm-only';

export function runtimeBuild(caps: Pick<BackendCapabilities, 'webgpuAdapter'>): RuntimeBuild {
  return caps.webgpuAdapter ? 'webgpu-capable' : 'wasm-only';
}

export function chooseExecutionPlan(caps: BackendCapabilities): ExecutionPlan {
  const wasmThreads = wasmThreadCount(caps);
  if (!caps.forceWasm && caps.webgpuAdapter) {
    return {
      provider: 'webgpu',
      dtypes: caps.shaderF16 ? ['fp16', 'fp32'] : ['fp32'],
      wasmThreads,
      reason: caps.shaderF16 ? 'WebGPU adapter with shader-f16' : 'WebGPU adapter without shader-f16, so fp32',
    };
  }
  const reason = caps.forceWasm ? 'WASM chosen in settings' : 'WASM: this browser offers no WebGPU adapter';
  return { provider: 'wasm', dtypes: ['q8', 'fp32'], wasmThreads, reason };
}

/** A fallback plan after WebGPU failed; the reason says what failed. */
export function wasmFallbackPlan(plan: ExecutionPlan, failure: string): ExecutionPlan {
  return wasmPlanBecause(plan, `WASM: WebGPU failed (${failure})`);
}

/** The same threads on WASM, for the reason given (in words for the status area). */
export function wasmPlanBecause(plan: ExecutionPlan, reason: string): ExecutionPlan {
  return { provider: 'wasm', dtypes: ['q8', 'fp32'], wasmThreads: plan.wasmThreads, reason };
}

export type ClipTower = 'text_model' | 'vision_model';

const DTYPE_SUFFIX: Record<ModelDtype, string> = { fp32: '', fp16: '_fp16', q8: '_quantized' };

/** onnx/<model>.onnx and its variants, e.g. onnx/text_model_fp16.onnx. */
export function onnxFileName(model: string, dtype: ModelDtype): string {
  return `onnx/${model}${DTYPE_SUFFIX[dtype]}.onnx`;
}

/** The first variant of the plan that the pack has, or null when it has none of them. */
export function pickOnnxFile(model: string, dtypes: readonly ModelDtype[], packFiles: ReadonlySet<string>): { file: string; dtype: ModelDtype } | null {
  for (const dtype of dtypes) {
    const file = onnxFileName(model, dtype);
    if (packFiles.has(file)) return { file, dtype };
  }
  // Any plan can run fp32, the variant every pack has.
  const fp32 = onnxFileName(model, 'fp32');
  return packFiles.has(fp32) ? { file: fp32, dtype: 'fp32' } : null;
}
