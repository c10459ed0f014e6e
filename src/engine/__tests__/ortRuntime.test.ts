import { describe, expect, it } from 'vitest';
import { IDENTITY_MODEL, configureWasm, ort, startRuntime } from '../onnx/ortSessions';

describe("starting onnxruntime's runtime ahead of the first session", () => {
  it('uses a model onnxruntime accepts and runs (y = x), and resolves', async () => {
    configureWasm(1);
    await expect(startRuntime()).resolves.toBeUndefined();
    const session = await ort.InferenceSession.create(IDENTITY_MODEL, { executionProviders: ['wasm'] });
    const { y } = await session.run({ x: new ort.Tensor('float32', Float32Array.from([2.5]), [1]) });
    expect([...(y!.data as Float32Array)]).toEqual([2.5]);
    await session.release();
  });
});
