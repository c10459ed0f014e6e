import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClipEncoder } from '../clip/clipEncoder';
import { type ExecutionPlan, type ModelDtype, chooseExecutionPlan } from '../onnx/executionPlan';
import { configureWasm } from '../onnx/ortSessions';
import { MODELS_DIR, folderSource, loadReference, maxUnitDiff, readPng } from './fixture';

/**
 * The real-CLIP-shaped fixture (models/scripts/make_hub_fixtures.py) that the fake hub serves as
 * Xenova/clip-vit-base-patch32: every variant loads through the engine and agrees with PyTorch's
 * embeddings of the fp32 towers it was made from (test-tiny-clip's reference), within what its
 * weight rounding allows.
 */
const HUB_PACK = join(MODELS_DIR, 'hub-fixtures', 'Xenova', 'clip-vit-base-patch32');
const reference = loadReference(join(MODELS_DIR, 'test-tiny-clip'));

// Unit-vector tolerances: fp32 is the same file; fp16 and int8 round each weight.
const CASES: [string, ModelDtype[], ModelDtype, number][] = [
  ['WASM (q8 first)', chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: false }).dtypes, 'q8', 0.05],
  ['WebGPU with shader-f16 (fp16 first)', chooseExecutionPlan({ webgpuAdapter: true, shaderF16: true, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: false }).dtypes, 'fp16', 5e-3],
  ['WebGPU without shader-f16 (fp32)', chooseExecutionPlan({ webgpuAdapter: true, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: false }).dtypes, 'fp32', 1e-4],
];

describe.each(CASES)('the real-CLIP-shaped fixture, variants for %s', (_, dtypes, expected, tolerance) => {
  let encoder: ClipEncoder;
  beforeAll(async () => {
    configureWasm(1);
    // The variant the plan picks, run on WASM (Node has no WebGPU).
    const plan: ExecutionPlan = { provider: 'wasm', dtypes, wasmThreads: 1, reason: 'test' };
    const source = folderSource(HUB_PACK);
    encoder = await ClipEncoder.load(source, await source.listFiles(), plan);
  });
  afterAll(() => encoder?.release());

  it(`loads the ${expected} files`, () => {
    expect(encoder.backend.dtypes).toEqual({ text_model: expected, vision_model: expected });
  });

  it(`matches PyTorch's text embeddings within ${tolerance}`, async () => {
    const embeds = await encoder.encodeTexts(reference.texts.map((t) => t.text));
    const worst = Math.max(...reference.texts.map((t, i) => maxUnitDiff(embeds[i]!, t.text_embeds)));
    expect(worst).toBeLessThan(tolerance);
  });

  it(`matches PyTorch's image embeddings within ${tolerance}`, async () => {
    const embeds = await encoder.encodeImages(reference.images.map((img) => readPng(img.file, join(MODELS_DIR, 'test-tiny-clip'))));
    const worst = Math.max(...reference.images.map((img, i) => maxUnitDiff(embeds[i]!, img.image_embeds)));
    expect(worst).toBeLessThan(tolerance);
  });
});
