import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { FsPackSource } from '../../node/tools/fsPackSource';
import { ImageCaptioner, chooseCaptionerDtype } from './imageCaptioner';

const pack = join(import.meta.dirname, '..', '..', '..', 'models', 'hub-fixtures', 'Xenova', 'vit-gpt2-image-captioning');
const reference = JSON.parse(readFileSync(join(pack, 'fixture', 'reference.json'), 'utf8')) as {
  images: Record<string, Record<'fp32' | 'q8', { token_ids: number[]; text: string }>>;
};

function readPng(name: string) {
  const png = PNG.sync.read(readFileSync(join(pack, 'fixture', name)));
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
}

describe('ImageCaptioner on the tiny captioner fixture', () => {
  it.each(['q8', 'fp32'] as const)('reproduces the PyTorch greedy token ids and text (%s, WASM)', async (dtype) => {
    const source = new FsPackSource(pack);
    const files = new Set((await source.listFiles()).filter((file) => !file.startsWith('fixture/')));
    const captioner = await ImageCaptioner.load(source, files, { provider: 'wasm', dtypes: [dtype] });
    expect(captioner.dtype).toBe(dtype);
    for (const [name, expected] of Object.entries(reference.images)) {
      const caption = await captioner.caption(readPng(name));
      expect({ name, ids: caption.tokenIds, text: caption.text }).toEqual({ name, ids: expected[dtype].token_ids, text: expected[dtype].text });
    }
    await captioner.dispose();
  });

  it('chooses q8 only when both _quantized files exist, else an explicit fp32', () => {
    const fp32 = new Set(['onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx']);
    expect(chooseCaptionerDtype({ dtypes: ['q8', 'fp32'] }, fp32)).toBe('fp32');
    expect(chooseCaptionerDtype({ dtypes: ['q8', 'fp32'] }, new Set([...fp32, 'onnx/encoder_model_quantized.onnx']))).toBe('fp32');
    expect(
      chooseCaptionerDtype({ dtypes: ['q8', 'fp32'] }, new Set([...fp32, 'onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'])),
    ).toBe('q8');
    expect(chooseCaptionerDtype({ dtypes: ['fp16', 'fp32'] }, fp32)).toBe('fp32');
  });
});

describe('ImageCaptioner.load refuses a broken pack with a sentence', () => {
  it('names the missing files', async () => {
    const source = new FsPackSource(pack);
    const files = new Set((await source.listFiles()).filter((file) => file !== 'tokenizer.json' && !file.includes('decoder_model_merged')));
    await expect(ImageCaptioner.load(source, files, { provider: 'wasm', dtypes: ['q8', 'fp32'] })).rejects.toThrow(
      /lacks tokenizer\.json, onnx\/decoder_model_merged\.onnx, so it cannot caption photos/,
    );
  });
});
