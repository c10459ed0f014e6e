import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine, runCommand } from '../tools/cliArgs';
import { nsfwjsModelFiles } from './nsfwjsModel';

/**
 * npm run photo-check:port -- [--out models/photo-check]
 * Ports nsfwjs's MobileNetV2 photo classifier (MIT, shipped inside the npm package as a TF.js layers
 * model with uint8 weights) to ONNX for the worker: the package's model.json and weights are written
 * to models/.cache/nsfwjs, and models/scripts/photo_check/keras_to_onnx.py builds the ONNX graph
 * from them with Debian's python3-onnx. `npm run bench -- photo-check` then checks it against nsfwjs
 * run by TF.js.
 */
const USAGE = 'npm run photo-check:port -- [--out models/photo-check]';
const NSFWJS_CACHE = join('models', '.cache', 'nsfwjs');

function main(): void {
  const values = parseCommandLine(process.argv.slice(2), { out: { type: 'string', default: join('models', 'photo-check') } }, USAGE);
  const { modelJson, weights } = nsfwjsModelFiles();
  mkdirSync(NSFWJS_CACHE, { recursive: true });
  mkdirSync(values.out, { recursive: true });
  const modelPath = join(NSFWJS_CACHE, 'model.json');
  const weightsPath = join(NSFWJS_CACHE, 'weights.bin');
  writeFileSync(modelPath, JSON.stringify(modelJson));
  writeFileSync(weightsPath, weights);
  const onnxPath = join(values.out, 'nsfw-mobilenet-v2.onnx');
  execFileSync('/usr/bin/python3', [join('models', 'scripts', 'photo_check', 'keras_to_onnx.py'), modelPath, weightsPath, onnxPath], { stdio: 'inherit' });
  // The file that makes the folder a photo check for the build's index (modelPacks.ts) and names the model for the worker.
  writeFileSync(
    join(values.out, 'photo-check.json'),
    `${JSON.stringify({ model: 'nsfw-mobilenet-v2.onnx', source: 'nsfwjs 4.4.0 (MIT), see SOURCE.md', classes: ['drawing', 'hentai', 'neutral', 'porn', 'sexy'] })}\n`,
  );
}

await runCommand('photo-check:port', main);
