import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClipEncoder } from '../clip/clipEncoder';
import { type BackendCapabilities, type ModelDtype, chooseExecutionPlan } from '../onnx/executionPlan';
import { float16BitsToFloat32, float32ToFloat16Bits } from '../onnx/float16';
import { createOrtSession } from '../onnx/ortSessions';
import { MODELS_DIR, folderSource, maxUnitDiff, readPng } from './fixture';

/** The real-CLIP-shaped fixture (models/scripts/make_hub_fixtures.py): Xenova/clip-vit-base-patch32's layout, tiny weights. */
const REPO_DIR = join(MODELS_DIR, 'hub-fixtures', 'Xenova', 'clip-vit-base-patch32');
const REF_DIR = `${REPO_DIR}.reference`;
interface Row {
  fp32: number[];
  fp16_weights: number[];
}
const reference = JSON.parse(readFileSync(join(REF_DIR, 'reference.json'), 'utf8')) as {
  texts: (Row & { text: string; input_ids: number[] })[];
  images: (Row & { file: string })[];
};

const caps = (over: Partial<BackendCapabilities>): BackendCapabilities => ({
  webgpuAdapter: false,
  shaderF16: false,
  crossOriginIsolated: false,
  hardwareConcurrency: 2,
  forceWasm: false,
  ...over,
});
const PLANS: { name: string; caps: BackendCapabilities; dtype: ModelDtype; file: string }[] = [
  { name: 'WASM', caps: caps({}), dtype: 'q8', file: '_quantized' },
  { name: 'WebGPU with shader-f16', caps: caps({ webgpuAdapter: true, shaderF16: true }), dtype: 'fp16', file: '_fp16' },
  { name: 'WebGPU without shader-f16', caps: caps({ webgpuAdapter: true }), dtype: 'fp32', file: '' },
];
/**
 * Stated tolerances on unit vectors: fp32 matches PyTorch to float rounding; fp16 is compared with
 * PyTorch run on the fp16-rounded weights (the inputs and outputs are rounded to fp16 too); q8 holds
 * int8 weights, so it is only close to fp32.
 */
const TOLERANCE: Record<ModelDtype, number> = { fp32: 1e-4, fp16: 2e-3, q8: 0.03 };

describe('the real-CLIP-shaped hub fixture', () => {
  const source = folderSource(REPO_DIR);

  it('has the file names and interface of the Xenova export', async () => {
    const files = await source.listFiles();
    for (const f of [
      'config.json',
      'preprocessor_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'vocab.json',
      'merges.txt',
    ])
      expect(files).toContain(f);
    for (const tower of ['text_model', 'vision_model'])
      for (const suffix of ['', '_quantized', '_fp16']) expect(files).toContain(`onnx/${tower}${suffix}.onnx`);
    const config = JSON.parse(readFileSync(join(REPO_DIR, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config['_name_or_path']).toBe('openai/clip-vit-base-patch32');
    expect(config['architectures']).toEqual(['CLIPModel']);
    const text = await createOrtSession(readFileSync(join(REPO_DIR, 'onnx/text_model_fp16.onnx')), 'wasm');
    const vision = await createOrtSession(readFileSync(join(REPO_DIR, 'onnx/vision_model_fp16.onnx')), 'wasm');
    expect([text.inputNames, text.outputNames]).toEqual([['input_ids'], ['text_embeds', 'last_hidden_state']]);
    expect([vision.inputNames, vision.outputNames]).toEqual([['pixel_values'], ['image_embeds', 'last_hidden_state']]);
    expect(vision.inputMetadata[0]).toMatchObject({ name: 'pixel_values', type: 'float16' });
  });

  it.each(PLANS)('$name loads the $dtype files and matches the PyTorch reference', async ({ caps: c, dtype, file }) => {
    const loaded: number[] = [];
    const encoder = await ClipEncoder.load(source, await source.listFiles(), chooseExecutionPlan(c), {
      // Node has no WebGPU: a "WebGPU" session is a WASM one over the same file.
      createSession: (model) => {
        loaded.push(model.byteLength);
        return createOrtSession(model, 'wasm');
      },
    });
    expect(encoder.backend.dtypes).toEqual({ text_model: dtype, vision_model: dtype });
    const sizes = ['text_model', 'vision_model'].map((t) => readFileSync(join(REPO_DIR, `onnx/${t}${file}.onnx`)).byteLength);
    expect(loaded.sort()).toEqual(sizes.sort());
    const want = (row: Row) => (dtype === 'fp16' ? row.fp16_weights : row.fp32);
    const texts = await encoder.encodeTexts(reference.texts.map((t) => t.text));
    reference.texts.forEach((t, i) => expect(maxUnitDiff(texts[i]!, want(t))).toBeLessThan(TOLERANCE[dtype]));
    const images = await encoder.encodeImages(reference.images.map((img) => readPng(img.file, REF_DIR)));
    reference.images.forEach((img, i) => expect(maxUnitDiff(images[i]!, want(img))).toBeLessThan(TOLERANCE[dtype]));
    await encoder.release();
  });

  it('pads a batch of texts without a mask input and gets the unpadded embeddings', async () => {
    const encoder = await ClipEncoder.load(source, await source.listFiles(), chooseExecutionPlan(caps({ webgpuAdapter: true })), {
      createSession: (model) => createOrtSession(model, 'wasm'),
    });
    const [longer, shorter] = await encoder.encodeTexts([reference.texts[1]!.text, reference.texts[0]!.text]);
    expect(maxUnitDiff(shorter!, reference.texts[0]!.fp32)).toBeLessThan(1e-4);
    expect(maxUnitDiff(longer!, reference.texts[1]!.fp32)).toBeLessThan(1e-4);
    await encoder.release();
  });
});

describe('float16 conversion', () => {
  it('rounds to nearest even and round-trips exact halves', () => {
    const values = Float32Array.from([0, -0, 1, -2.5, 65504, 1e-7, 6.1035156e-5, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000, -Infinity]);
    const bits = float32ToFloat16Bits(values);
    expect(Array.from(bits, (b) => b.toString(16))).toEqual(['0', '8000', '3c00', 'c100', '7bff', '2', '400', '3c00', '3c02', '7c00', 'fc00']);
    expect(Array.from(float16BitsToFloat32(bits))).toEqual([0, -0, 1, -2.5, 65504, 2 * 2 ** -24, 2 ** -14, 1, 1 + 2 ** -9, Infinity, -Infinity]);
  });
});
