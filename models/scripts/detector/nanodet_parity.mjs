// The ONNX port of NanoDet (port_nanodet.py) against the TF.js graph it came from, run by TF.js itself
// (CPU backend, a devDependency) on the same input: prints the largest difference over all six outputs.
// NanoDet is not in the repository (issue 27 did not keep it), so this is a script and not a test.
// Usage: node models/scripts/detector/nanodet_parity.mjs SOURCE_DIR INPUT.f32
//   SOURCE_DIR holds nanodet.json and nanodet.bin; INPUT.f32 is a [1, 3, 416, 416] float32 input, raw.
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import * as ort from 'onnxruntime-node';

const [source, inputFile] = process.argv.slice(2);
if (!source || !inputFile) {
  console.error('Usage: node models/scripts/detector/nanodet_parity.mjs SOURCE_DIR INPUT.f32');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(`${source}/nanodet.json`, 'utf8'));
const bin = new Uint8Array(readFileSync(`${source}/nanodet.bin`));
await tf.setBackend('cpu');
const model = await loadGraphModel(tf.io.fromMemory({ modelTopology: spec.modelTopology, weightSpecs: spec.weightsManifest[0].weights, weightData: bin.slice().buffer }));
const session = await ort.InferenceSession.create('models/nanodet/onnx/model.onnx');
const outputs = { scores_8: 'Identity', scores_16: 'Identity_1', scores_32: 'Identity_2', boxes_8: 'Identity_3', boxes_16: 'Identity_4', boxes_32: 'Identity_5' };
const raw = readFileSync(inputFile);
const input = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
const ours = await session.run({ images: new ort.Tensor('float32', input, [1, 3, 416, 416]) });
const theirs = model.execute(tf.tensor(input, [1, 3, 416, 416]), Object.values(outputs).map((n) => `${n}:0`));
let worst = 0;
Object.keys(outputs).forEach((name, i) => {
  const a = ours[name].data;
  const b = theirs[i].dataSync();
  if (a.length !== b.length) throw new Error(`${name}: ${a.length} values in ONNX, ${b.length} in TF.js`);
  let diff = 0;
  for (let j = 0; j < a.length; j++) diff = Math.max(diff, Math.abs(a[j] - b[j]));
  console.log(`${name.padEnd(10)} max |ONNX - TF.js| = ${diff.toExponential(2)}`);
  worst = Math.max(worst, diff);
});
process.exit(worst <= 1e-4 ? 0 : 1);
