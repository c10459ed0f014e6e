import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { beforeAll, describe, expect, it } from 'vitest';
import { ObjectDetector } from '../detection/objectDetector';
import { letterboxInput } from '../detection/letterbox';
import { chooseExecutionPlan } from '../onnx/executionPlan';
import { configureWasm } from '../onnx/ortSessions';
import { decodeImageFile } from '../../node/tools/decodeImageFile';
import { folderSource } from './fixture';

/**
 * The ONNX port of the detector (models/scripts/detector/port_centernet.py) against the TF.js graph
 * it was made from, run by TF.js itself on the same input: every output must agree. TF.js is a
 * devDependency for this test only.
 */
const DIR = 'models/detector';

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: string };
}

/**
 * The constants TF froze for its 512 x 512 input, for a height x width one (as port_centernet.py's
 * size_constants): TF.js can then run the graph at the input sizes the app feeds the ONNX port.
 */
function sizeConstants(height: number, width: number): Record<string, number | number[]> {
  return {
    'tower_0/BatchGather/concat': [(height / 4) * (width / 4), 4],
    'tower_0/strided_slice_6': width / 4,
    'tower_0/CenternetHead/c5_upsample/up_sampling2d/mul': [height / 16, width / 16],
    'tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul': [height / 8, width / 8],
    'tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul': [height / 4, width / 4],
  };
}

/** The TF.js model, its frozen size constants rewritten for a height x width input. */
async function loadTfjsModel(height: number, width: number) {
  const frozen = sizeConstants(height, width);
  const spec = JSON.parse(readFileSync(join(DIR, 'source', 'centernet.json'), 'utf8')) as {
    modelTopology: { node: { name: string; op: string; attr: { shape?: { shape: { dim: { size: string }[] } } } }[] };
    weightsManifest: { weights: WeightSpec[] }[];
  };
  const bin = new Uint8Array(readFileSync(join(DIR, 'source', 'centernet.bin')));
  const weights = spec.weightsManifest[0]!.weights;
  let offset = 0;
  for (const w of weights) {
    const count = w.shape.reduce((a, b) => a * b, 1);
    const bytes = w.quantization?.dtype === 'float16' ? 2 : 4;
    const value = frozen[w.name];
    if (value !== undefined) new Int32Array(bin.buffer, bin.byteOffset + offset, count).set([value].flat());
    offset += count * bytes;
  }
  for (const node of spec.modelTopology.node) {
    if (node.op === 'Placeholder') node.attr.shape!.shape.dim = [1, height, width, 3].map((d) => ({ size: String(d) }));
  }
  await tf.setBackend('cpu');
  return loadGraphModel(tf.io.fromMemory({ modelTopology: spec.modelTopology, weightSpecs: weights as never, weightData: bin.slice().buffer }));
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('object detector: the ONNX port computes what the TF.js model computes', () => {
  let detector: ObjectDetector;
  beforeAll(async () => {
    configureWasm(1);
    const source = folderSource(DIR);
    detector = await ObjectDetector.load(
      source,
      await source.listFiles(),
      chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true }),
    );
  }, 120_000);

  // The app pads every photo to the 512 square TF froze; the port also takes other multiples of 32,
  // checked here on chelsea (451 x 300) padded only to 512 x 352.
  it.each([
    ['chelsea.jpg', 'cat', 32, 352, 512],
    ['astronaut.jpg', 'person', null, 512, 512],
    ['chelsea.jpg', 'cat', null, 512, 512],
  ] as const)(
    '%s: heatmaps, sizes and the top detections agree, and the main object is a %s (padded to %s)',
    async (file, main, padTo, height, width) => {
      const image = decodeImageFile(join(DIR, 'fixture', file));
      const input = letterboxInput(image, detector.config.maxSide, padTo ?? detector.config.multiple);
      expect([input.inputHeight, input.inputWidth]).toEqual([height, width]);
      const tfjs = await loadTfjsModel(height, width);
      const [detections, keypoints, wh] = tfjs.execute(tf.tensor(input.pixels, [1, height, width, 3]), [
        'tower_0/detections',
        'tower_0/keypoints',
        'tower_0/wh',
      ]) as tf.Tensor[];
      const ours = padTo === null ? (await detector.run(image)).outputs : await detector.runInput(input);
      // Class heatmaps are probabilities; sizes are in input pixels (up to the input side).
      expect(maxAbsDiff(ours['keypoints']!.data as Float32Array, await keypoints!.data())).toBeLessThan(1e-4);
      expect(maxAbsDiff(ours['wh']!.data as Float32Array, await wh!.data())).toBeLessThan(0.05);
      // The rows the app reads (score above 0.1): same class, same score, same box.
      const a = ours['detections']!.data as Float32Array;
      const b = await detections!.data();
      let compared = 0;
      for (let r = 0; r < 100 && b[r * 6 + 4]! > 0.1; r++, compared++) {
        expect(a[r * 6 + 5]).toBe(b[r * 6 + 5]);
        expect(Math.abs(a[r * 6 + 4]! - b[r * 6 + 4]!)).toBeLessThan(1e-4);
        for (let c = 0; c < 4; c++) expect(Math.abs(a[r * 6 + c]! - b[r * 6 + c]!)).toBeLessThan(0.05);
      }
      expect(compared).toBeGreaterThan(0);
      const found = await detector.detect(image);
      expect(found.detections[0]?.label).toBe(main);
    },
    120_000,
  );
});
