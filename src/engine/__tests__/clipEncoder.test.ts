import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClipEncoder } from '../clip/clipEncoder';
import { ClipTokenizer } from '../clip/tokenizer';
import { EngineError } from '../errors';
import { normalizeCrop, resizedCenterCrop } from '../image/clipPreprocess';
import { chooseExecutionPlan } from '../onnx/executionPlan';
import { createOrtSession } from '../onnx/ortSessions';
import { parseImageConfig } from '../pack/packConfig';
import { MODELS_DIR, TEST_PACK_DIR, folderSource, loadReference, maxAbsDiff, maxUnitDiff, readBytes, readPng } from './fixture';

const reference = loadReference();
const wasmPlan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 2, forceWasm: false });

describe('CLIP tokenizer of the pack', () => {
  const tokenizer = new ClipTokenizer(
    JSON.parse(readFileSync(join(TEST_PACK_DIR, 'tokenizer.json'), 'utf8')),
    JSON.parse(readFileSync(join(TEST_PACK_DIR, 'tokenizer_config.json'), 'utf8')),
    77,
  );

  it('encodes "a photo of a cat" as CLIP does', () => {
    expect(tokenizer.encode('a photo of a cat')).toEqual([49406, 320, 1125, 539, 320, 2368, 49407]);
  });

  it.each(reference.texts.map((t) => [t.text.slice(0, 40), t] as const))('matches the reference tokenizer on %j', (_, t) => {
    expect(tokenizer.encode(t.text)).toEqual(t.input_ids);
  });

  it('truncates at 77 tokens and keeps end-of-text last', () => {
    const ids = tokenizer.encode('word '.repeat(200));
    expect(ids).toHaveLength(77);
    expect(ids[76]).toBe(49407);
  });

  it('pads a batch with end-of-text and masks the padding', () => {
    const batch = tokenizer.encodeBatch(['a cat', 'a photo of a cat']);
    expect(batch.sequenceLength).toBe(7);
    expect(Array.from(batch.inputIds.slice(0, 7), Number)).toEqual([49406, 320, 2368, 49407, 49407, 49407, 49407]);
    expect(Array.from(batch.attentionMask.slice(0, 7), Number)).toEqual([1, 1, 1, 1, 0, 0, 0]);
  });
});

describe('CLIP image preprocessing', () => {
  const config = parseImageConfig(JSON.parse(readFileSync(join(TEST_PACK_DIR, 'preprocessor_config.json'), 'utf8')));

  it.each(reference.images.map((img) => [img.file, img] as const))("reproduces Pillow's resize and crop of %s byte for byte", (_, img) => {
    const crop = resizedCenterCrop(readPng(img.file), config);
    const expected = readBytes(img.crop_file);
    expect(crop.length).toBe(224 * 224 * 3);
    let differing = 0;
    for (let i = 0; i < crop.length; i++) if (crop[i] !== expected[i]) differing++;
    expect(differing).toBe(0);
  });

  it('normalizes with CLIP mean and std into CHW order', () => {
    const crop = new Uint8Array(224 * 224 * 3).fill(255);
    const out = new Float32Array(3 * 224 * 224);
    normalizeCrop(crop, config, out);
    expect(out[0]).toBeCloseTo((1 - 0.48145466) / 0.26862954, 5);
    expect(out[224 * 224]).toBeCloseTo((1 - 0.4578275) / 0.26130258, 5);
    expect(out[2 * 224 * 224]).toBeCloseTo((1 - 0.40821073) / 0.27577711, 5);
  });
});

// Each pack's script computed reference embeddings in PyTorch; the ONNX files in the engine must match them.
describe.each([
  ['test-tiny-clip', 'models/scripts/make_test_pack.py'],
  ['mini-clip', 'models/scripts/mini_clip/train.py'],
  ['mini-clip-v1', 'models/scripts/mini_clip/train.py (before v2)'],
])('ClipEncoder on %s (WASM in Node) against %s', (packId) => {
  const packDir = join(MODELS_DIR, packId);
  const packReference = loadReference(packDir);
  const imageConfig = parseImageConfig(JSON.parse(readFileSync(join(packDir, 'preprocessor_config.json'), 'utf8')));
  let encoder: ClipEncoder;
  beforeAll(async () => {
    const source = folderSource(packDir);
    encoder = await ClipEncoder.load(source, await source.listFiles(), wasmPlan);
  });

  it('runs on WASM with the fp32 files (neither pack has quantized ones)', () => {
    expect(encoder.backend).toMatchObject({ provider: 'wasm', dtypes: { text_model: 'fp32', vision_model: 'fp32' }, fallbackFrom: null });
  });

  it('tokenizes the fixture texts as the reference tokenizer did', () => {
    for (const t of packReference.texts) expect(encoder.tokenizer.encode(t.text)).toEqual(t.input_ids);
  });

  it('reproduces the Pillow crops of the fixture images byte for byte', () => {
    for (const img of packReference.images) {
      const crop = resizedCenterCrop(readPng(img.file, packDir), imageConfig);
      expect(Buffer.from(crop).equals(Buffer.from(readBytes(img.crop_file, packDir)))).toBe(true);
    }
  });

  it('matches the PyTorch text embeddings within 1e-4 (as unit vectors), batched and padded', async () => {
    const embeds = await encoder.encodeTexts(packReference.texts.map((t) => t.text));
    packReference.texts.forEach((t, i) => expect(maxUnitDiff(embeds[i]!, t.text_embeds)).toBeLessThan(1e-4));
  });

  it('matches the PyTorch image embeddings within 1e-4 (as unit vectors), from the PNG files', async () => {
    // A tower that reads the detector's grounded caption is fed the one the reference was computed with.
    const grounding = packReference.images.every((img) => img.grounding) ? packReference.images.map((img) => img.grounding!) : undefined;
    expect(encoder.takesGrounding).toBe(grounding !== undefined);
    const embeds = await encoder.encodeImages(
      packReference.images.map((img) => readPng(img.file, packDir)),
      grounding,
    );
    packReference.images.forEach((img, i) => expect(maxUnitDiff(embeds[i]!, img.image_embeds)).toBeLessThan(1e-4));
  });
});

describe('ClipEncoder failures', () => {
  const source = folderSource(TEST_PACK_DIR);
  const packReferenceImage = () => readPng(reference.images[0]!.file);
  const webgpuPlan = chooseExecutionPlan({ webgpuAdapter: true, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 2, forceWasm: false });

  it('falls back to WASM when WebGPU fails at session creation, and says why', async () => {
    const encoder = await ClipEncoder.load(source, await source.listFiles(), webgpuPlan, {
      createSession: (model, provider) => (provider === 'webgpu' ? Promise.reject(new Error('no GPU device')) : createOrtSession(model, provider)),
    });
    expect(encoder.backend.provider).toBe('wasm');
    expect(encoder.backend.fallbackFrom).toBe('webgpu');
    expect(encoder.backend.reason).toContain('no GPU device');
    const [embed] = await encoder.encodeTexts([reference.texts[0]!.text]);
    expect(maxAbsDiff(embed!, reference.texts[0]!.text_embeds)).toBeLessThan(1e-4);
  });

  it('falls back to WASM when a WebGPU run fails, and still answers that request', async () => {
    const states: string[] = [];
    const encoder = await ClipEncoder.load(source, await source.listFiles(), webgpuPlan, {
      warmUp: false, // this test is about the first run
      onBackendChange: (s) => states.push(s.provider),
      // A "WebGPU" session that loads but fails at run time, as a lost device does.
      createSession: async (model, provider) => {
        const session = await createOrtSession(model, 'wasm');
        if (provider === 'webgpu') session.run = () => Promise.reject(new Error('GPU device lost'));
        return session;
      },
    });
    expect(encoder.backend.provider).toBe('webgpu');
    const [embed] = await encoder.encodeTexts([reference.texts[1]!.text]);
    expect(maxAbsDiff(embed!, reference.texts[1]!.text_embeds)).toBeLessThan(1e-4);
    expect(encoder.backend).toMatchObject({ provider: 'wasm', fallbackFrom: 'webgpu' });
    expect(encoder.backend.reason).toContain('GPU device lost');
    expect(states).toEqual(['webgpu', 'wasm']);
  });

  it('defers the image tower: created at its first run, with the same fingerprint, inputs and embeddings', async () => {
    const created: string[] = [];
    const counting = (model: Uint8Array, provider: 'webgpu' | 'wasm') => {
      created.push(model.length === textBytes ? 'text' : 'vision');
      return createOrtSession(model, provider);
    };
    const textBytes = (await source.readBytes('onnx/text_model.onnx')).length;
    const files = await source.listFiles();
    const eager = await ClipEncoder.load(source, files, wasmPlan);
    const lazy = await ClipEncoder.load(source, files, wasmPlan, { createSession: counting, deferred: ['vision_model'] });
    expect(created).toEqual(['text']);
    expect(lazy.fingerprint).toBe(eager.fingerprint);
    expect(lazy.takesGrounding).toBe(eager.takesGrounding);
    const image = packReferenceImage();
    const [a, b] = await Promise.all([lazy.encodeImages([image]), lazy.encodeImages([image])]);
    expect(created).toEqual(['text', 'vision']); // two runs waiting, one session
    expect(maxAbsDiff(a[0]!, (await eager.encodeImages([image]))[0]!)).toBe(0);
    expect(maxAbsDiff(a[0]!, b[0]!)).toBe(0);
  });

  it('falls back to WASM when WebGPU fails to create a deferred tower at its first run', async () => {
    const encoder = await ClipEncoder.load(source, await source.listFiles(), webgpuPlan, {
      deferred: ['vision_model'],
      createSession: async (model, provider) => {
        if (provider === 'webgpu' && model.length !== (await source.readBytes('onnx/text_model.onnx')).length) throw new Error('out of GPU memory');
        return createOrtSession(model, 'wasm');
      },
    });
    expect(encoder.backend.provider).toBe('webgpu');
    const [embed] = await encoder.encodeImages([packReferenceImage()]);
    expect(embed).toHaveLength(encoder.config.projectionDim);
    expect(encoder.backend).toMatchObject({ provider: 'wasm', fallbackFrom: 'webgpu' });
    expect(encoder.backend.reason).toContain('out of GPU memory');
  });

  it('names the missing file when a pack has no vision model', async () => {
    const files = (await source.listFiles()).filter((f) => !f.startsWith('onnx/vision_model'));
    await expect(ClipEncoder.load(source, files, wasmPlan)).rejects.toThrow(/onnx\/vision_model\.onnx is missing/);
  });

  it('says a corrupt ONNX file is damaged instead of crashing', async () => {
    const corrupt = {
      location: 'corrupt-pack/',
      readBytes: async (path: string) => (path.endsWith('.onnx') ? new Uint8Array([1, 2, 3, 4]) : source.readBytes(path)),
    };
    const error = await ClipEncoder.load(corrupt, await source.listFiles(), wasmPlan).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('pack-file-corrupt');
    expect((error as EngineError).message).toMatch(/corrupt-pack\/onnx\/(text|vision)_model\.onnx could not be loaded/);
  });

  it('has a fingerprint that stays for the same files and changes when one weight byte or the tokenizer changes', async () => {
    const files = await source.listFiles();
    const fingerprint = async (edit: (path: string, bytes: Uint8Array) => Uint8Array) => {
      const edited = { location: source.location, readBytes: async (path: string) => edit(path, await source.readBytes(path)) };
      // Sessions are faked: only the bytes read matter for the fingerprint.
      const encoder = await ClipEncoder.load(edited, files, wasmPlan, {
        createSession: async () => ({ run: async () => ({}), release: async () => {} }) as never,
      });
      return encoder.fingerprint;
    };
    const same = (_: string, b: Uint8Array) => b;
    const base = await fingerprint(same);
    expect(await fingerprint(same)).toBe(base);
    const flipWeight = (p: string, b: Uint8Array) => (p.startsWith('onnx/vision') ? b.map((x, i) => (i === b.length - 7 ? x ^ 1 : x)) : b);
    expect(await fingerprint(flipWeight)).not.toBe(base);
    const otherTokenizer = (p: string, b: Uint8Array) =>
      p === 'tokenizer_config.json' ? new TextEncoder().encode(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(b)), model_max_length: 76 })) : b;
    expect(await fingerprint(otherTokenizer)).not.toBe(base);
  });
});
