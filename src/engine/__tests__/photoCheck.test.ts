import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { configureWasm, createOrtSession, ort } from '../onnx/ortSessions';
import { PHOTO_CHECK_BAR, PHOTO_CHECK_CLASSES, PhotoChecker, checkVideoFrames, isUnfitPhoto, photoCheckInput } from '../perception/photoCheck';
import { decodeImageFile } from '../../node/tools/decodeImageFile';
import { nsfwjsModelFiles } from '../../node/data/nsfwjsModel';

describe('the photo check input', () => {
  it("resizes as TF.js's resizeBilinear with alignCorners: corners stay, the middle is the mean, values divided by 255", () => {
    // 2 x 2, red channel 0, 255 / 255, 0; green and blue constant.
    const data = new Uint8Array([0, 10, 20, 255, 255, 10, 20, 255, 255, 10, 20, 255, 0, 10, 20, 255]);
    const input = photoCheckInput({ width: 2, height: 2, data }, 3);
    expect(Array.from(input.slice(0, 9)).map((v) => Number(v.toFixed(6)))).toEqual([0, 0.5, 1, 0.5, 0.5, 0.5, 1, 0.5, 0].map((v) => Number(v.toFixed(6))));
    expect(input[9]).toBeCloseTo(10 / 255, 7);
    expect(input[18]).toBeCloseTo(20 / 255, 7);
  });

  it('calls a photo unfit at the bar on porn + hentai, never below it', () => {
    const p = (porn: number, hentai: number) => ({ drawing: 0, neutral: 1 - porn - hentai, sexy: 0, porn, hentai });
    expect(isUnfitPhoto(p(PHOTO_CHECK_BAR, 0))).toBe(true);
    expect(isUnfitPhoto(p(0.4, PHOTO_CHECK_BAR - 0.4))).toBe(true);
    expect(isUnfitPhoto(p(PHOTO_CHECK_BAR - 0.01, 0))).toBe(false);
  });
});

describe('the ported photo check (models/photo-check, npm run photo-check:port)', () => {
  let checker: PhotoChecker;
  let nsfwjs: tf.LayersModel;
  beforeAll(async () => {
    configureWasm(1);
    const session = await createOrtSession(new Uint8Array(readFileSync(join('models', 'photo-check', 'nsfw-mobilenet-v2.onnx'))), 'wasm');
    checker = new PhotoChecker(
      async (input) => (await session.run({ pixels: new ort.Tensor('float32', input, [1, 3, 224, 224]) }))['probabilities']!.data as Float32Array,
    );
    await tf.setBackend('cpu');
    const { modelJson, weights } = nsfwjsModelFiles();
    nsfwjs = await tf.loadLayersModel(
      tf.io.fromMemory({
        modelTopology: modelJson.modelTopology as tf.io.ModelArtifacts['modelTopology'],
        weightSpecs: modelJson.weightsManifest.flatMap((g) => g.weights) as tf.io.WeightsManifestEntry[],
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
      }),
    );
  }, 120_000);

  it('gives what nsfwjs gives on TF.js, within 1e-4, and calls the e2e photos fit', async () => {
    for (const name of ['meadow.jpg', 'coffee.jpg']) {
      const image = decodeImageFile(join('e2e', 'assets', name));
      const result = await checker.check(image);
      const input = photoCheckInput(image);
      const reference = tf.tidy(() => (nsfwjs.predict(tf.tensor4d(input, [1, 3, 224, 224]).transpose([0, 2, 3, 1])) as tf.Tensor).dataSync());
      PHOTO_CHECK_CLASSES.forEach((c, i) => expect(Math.abs(result.probabilities[c] - reference[i]!), `${name} ${c}`).toBeLessThanOrEqual(1e-4));
      expect(PHOTO_CHECK_CLASSES.reduce((s, c) => s + result.probabilities[c], 0)).toBeCloseTo(1, 5);
      expect(result.unfit).toBe(false);
    }
  }, 120_000);
});

describe("a video's frames", () => {
  // A frame's first pixel says what the fake model answers: 255 unfit (porn 0.8), 0 fit, 7 a failing run.
  const frame = (value: number) => ({ width: 2, height: 2, data: new Uint8ClampedArray(16).map((_, i) => (i % 4 === 3 ? 255 : value)) });
  const checked: number[] = [];
  const checker = new PhotoChecker(async (input) => {
    const value = Math.round(input[0]! * 255);
    checked.push(value);
    if (value === 7) throw new Error('the session failed');
    return value === 255 ? Float32Array.from([0.1, 0.05, 0.05, 0.8, 0]) : Float32Array.from([0.9, 0.05, 0.05, 0, 0]);
  });

  it('are unfit when any one is, checked in order up to it; fit when none is', async () => {
    checked.length = 0;
    expect(await checkVideoFrames(checker, [frame(0), frame(255), frame(0)])).toBe('unfit');
    expect(checked).toEqual([0, 255]);
    expect(await checkVideoFrames(checker, [frame(0), frame(0)])).toBe('fit');
  });

  it('are unchecked without a checker or when a run fails, never fit', async () => {
    expect(await checkVideoFrames(null, [frame(0)])).toBe('unchecked');
    expect(await checkVideoFrames(checker, [frame(0), frame(7)])).toBe('unchecked');
  });
});
