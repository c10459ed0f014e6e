import { describe, expect, it } from 'vitest';
import { type BackendCapabilities, chooseExecutionPlan, pickOnnxFile, runtimeBuild, wasmFallbackPlan, wasmPlanBecause } from '../onnx/executionPlan';

const caps = (over: Partial<BackendCapabilities>): BackendCapabilities => ({
  webgpuAdapter: false,
  shaderF16: false,
  crossOriginIsolated: true,
  hardwareConcurrency: 8,
  forceWasm: false,
  ...over,
});

const ALL_VARIANTS = new Set([
  'onnx/text_model.onnx',
  'onnx/text_model_fp16.onnx',
  'onnx/text_model_quantized.onnx',
  'onnx/vision_model.onnx',
  'onnx/vision_model_fp16.onnx',
  'onnx/vision_model_quantized.onnx',
]);

describe('chooseExecutionPlan', () => {
  it('uses WebGPU with fp16 when the adapter has shader-f16', () => {
    const plan = chooseExecutionPlan(caps({ webgpuAdapter: true, shaderF16: true }));
    expect(plan).toMatchObject({ provider: 'webgpu', dtypes: ['fp16', 'fp32'] });
    expect(pickOnnxFile('text_model', plan.dtypes, ALL_VARIANTS)).toEqual({ file: 'onnx/text_model_fp16.onnx', dtype: 'fp16' });
  });

  it('uses WebGPU with fp32 when shader-f16 is missing', () => {
    const plan = chooseExecutionPlan(caps({ webgpuAdapter: true }));
    expect(plan).toMatchObject({ provider: 'webgpu', dtypes: ['fp32'] });
    expect(pickOnnxFile('vision_model', plan.dtypes, ALL_VARIANTS)?.file).toBe('onnx/vision_model.onnx');
  });

  it('uses WASM with the quantized files when there is no adapter, or the user asks', () => {
    for (const plan of [chooseExecutionPlan(caps({})), chooseExecutionPlan(caps({ webgpuAdapter: true, shaderF16: true, forceWasm: true }))]) {
      expect(plan.provider).toBe('wasm');
      expect(pickOnnxFile('text_model', plan.dtypes, ALL_VARIANTS)).toEqual({ file: 'onnx/text_model_quantized.onnx', dtype: 'q8' });
    }
    expect(chooseExecutionPlan(caps({ forceWasm: true })).reason).toBe('WASM chosen in settings');
  });

  it('falls back to fp32 when a pack has only fp32 files, and to nothing when it has none', () => {
    const fp32Only = new Set(['onnx/text_model.onnx']);
    expect(pickOnnxFile('text_model', ['q8'], fp32Only)).toEqual({ file: 'onnx/text_model.onnx', dtype: 'fp32' });
    expect(pickOnnxFile('vision_model', ['q8', 'fp32'], fp32Only)).toBeNull();
  });

  it('runs WASM multi-threaded only when cross-origin isolated, leaving a core for the page', () => {
    expect(chooseExecutionPlan(caps({ crossOriginIsolated: false })).wasmThreads).toBe(1);
    expect(chooseExecutionPlan(caps({ hardwareConcurrency: 2 })).wasmThreads).toBe(1);
    expect(chooseExecutionPlan(caps({ hardwareConcurrency: 8 })).wasmThreads).toBe(4);
  });

  it('says why after a WebGPU failure', () => {
    const plan = wasmFallbackPlan(chooseExecutionPlan(caps({ webgpuAdapter: true })), 'device lost');
    expect(plan).toMatchObject({ provider: 'wasm', reason: 'WASM: WebGPU failed (device lost)' });
  });

  it('moves to WASM for a reason given, keeping the threads and the quantized variant first', () => {
    const plan = wasmPlanBecause(chooseExecutionPlan(caps({ webgpuAdapter: true })), 'WASM: reload the page to use WebGPU');
    expect(plan).toEqual({
      provider: 'wasm',
      dtypes: ['q8', 'fp32'],
      wasmThreads: chooseExecutionPlan(caps({ webgpuAdapter: true })).wasmThreads,
      reason: 'WASM: reload the page to use WebGPU',
    });
  });
});

describe('runtimeBuild', () => {
  it("starts onnxruntime's WebGPU-capable build wherever there is an adapter, WASM chosen in settings or not, and the WASM-only build elsewhere", () => {
    expect(runtimeBuild(caps({ webgpuAdapter: true }))).toBe('webgpu-capable');
    // The settings can move the tab back to WebGPU without a restart: onnxruntime starts once per worker.
    expect(runtimeBuild(caps({ webgpuAdapter: true, forceWasm: true }))).toBe('webgpu-capable');
    expect(chooseExecutionPlan(caps({ webgpuAdapter: true, forceWasm: true })).provider).toBe('wasm');
    expect(runtimeBuild(caps({ webgpuAdapter: false }))).toBe('wasm-only');
    expect(runtimeBuild(caps({ webgpuAdapter: false, forceWasm: true }))).toBe('wasm-only');
  });
});
