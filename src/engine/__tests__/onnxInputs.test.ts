import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { onnxInputNames } from '../onnx/onnxInputs';

/** Every ONNX model the app ships: the packs' towers, heads and chat encoders, and the detector. */
function shippedModels(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'fixture' && entry.name !== 'scripts') walk(path);
      else if (entry.name.endsWith('.onnx')) found.push(path);
    }
  };
  walk('models');
  return found;
}

describe('the inputs of an ONNX file, read without a session', () => {
  const models = shippedModels();

  it('are the inputs onnxruntime reports, for every model the app ships', async () => {
    expect(models.length).toBeGreaterThan(5);
    ort.env.wasm.numThreads = 1;
    for (const path of models) {
      const bytes = new Uint8Array(readFileSync(path));
      const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
      expect(onnxInputNames(bytes, path), path).toEqual([...session.inputNames]);
      await session.release();
    }
  }, 120_000);

  it('refuses a truncated file or one that is not ONNX, naming it', () => {
    const bytes = new Uint8Array(readFileSync(models.find((m) => m.includes('vision_model'))!));
    expect(() => onnxInputNames(bytes.subarray(0, 5000), 'onnx/vision_model.onnx')).toThrow(EngineError);
    expect(() => onnxInputNames(new TextEncoder().encode('this is not an onnx model'), 'onnx/vision_model.onnx')).toThrow(
      /^onnx\/vision_model\.onnx could not be loaded as an ONNX model \(.+\)\. The file is damaged or incomplete: restore it and reload\.$/,
    );
  });
});
