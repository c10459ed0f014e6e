import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { configureWasm, createOrtSession, ort } from '../../engine/onnx/ortSessions';
import { PHOTO_CHECK_BAR, PHOTO_CHECK_CLASSES, PHOTO_CHECK_SIZE, PhotoChecker, nsfwjsTopClassUnfit, photoCheckInput } from '../../engine/perception/photoCheck';
import { type RgbaImage, flattenOnWhite } from '../../engine/image/rgbaImage';
import { integerOption, parseCommandLine } from '../tools/cliArgs';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { nsfwjsModelFiles } from '../data/nsfwjsModel';

export const PHOTO_CHECK_USAGE = 'npm run bench -- photo-check [--model models/photo-check/nsfw-mobilenet-v2.onnx] [--parity 12] [--data ../shared/data]';

/**
 * The ported photo check (issue 39): parity of the ONNX model with nsfwjs run by TF.js (the package's
 * own model and weights) on the same photos, and false alarms (photos nsfwjs's rule calls porn or
 * hentai) on every safe photo the project has: the e2e assets, the demo pool's images and coco-mini
 * (evaluation only: nothing is chosen on it). TF.js runs on its pure-JavaScript CPU backend, about
 * half a second a photo, so parity is checked on the first `--parity` photos of each set.
 */
export async function photoCheckBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    {
      model: { type: 'string', default: join('models', 'photo-check', 'nsfw-mobilenet-v2.onnx') },
      parity: { type: 'string', default: '12' },
      data: { type: 'string', default: join('..', 'shared', 'data') },
    },
    PHOTO_CHECK_USAGE,
  );
  const parityCount = integerOption(values.parity, 'parity', PHOTO_CHECK_USAGE);
  configureWasm(1);
  const session = await createOrtSession(new Uint8Array(readFileSync(values.model)), 'wasm');
  const checker = new PhotoChecker(async (input) => {
    const out = await session.run({ pixels: new ort.Tensor('float32', input, [1, 3, PHOTO_CHECK_SIZE, PHOTO_CHECK_SIZE]) });
    return out['probabilities']!.data as Float32Array;
  });
  await tf.setBackend('cpu');
  const { modelJson, weights } = nsfwjsModelFiles();
  const nsfwjs = await tf.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: modelJson.modelTopology as tf.io.ModelArtifacts['modelTopology'],
      weightSpecs: modelJson.weightsManifest.flatMap((g) => g.weights) as tf.io.WeightsManifestEntry[],
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
    }),
  );
  /** nsfwjs's own path (classify: fromPixels, divide by 255, resizeBilinear with alignCorners, predict), and the model alone on our input. */
  const tfjs = (image: RgbaImage, ours: Float32Array) =>
    tf.tidy(() => {
      // nsfwjs's own path, on the pixels as the check reads them (a transparent image on white, as shown).
      const flat = flattenOnWhite(image);
      const rgb = tf.tensor3d(
        Int32Array.from({ length: image.width * image.height * 3 }, (_, i) => flat.data[Math.floor(i / 3) * 4 + (i % 3)]!),
        [image.height, image.width, 3],
        'int32',
      );
      const resized = tf.image.resizeBilinear(rgb.toFloat().div<tf.Tensor3D>(255), [PHOTO_CHECK_SIZE, PHOTO_CHECK_SIZE], true);
      const pipeline = (nsfwjs.predict(resized.reshape([1, PHOTO_CHECK_SIZE, PHOTO_CHECK_SIZE, 3])) as tf.Tensor).dataSync();
      const nhwc = tf.tensor4d(ours, [1, 3, PHOTO_CHECK_SIZE, PHOTO_CHECK_SIZE]).transpose([0, 2, 3, 1]);
      const model = (nsfwjs.predict(nhwc) as tf.Tensor).dataSync();
      const input = resized.transpose([2, 0, 1]).dataSync();
      return { pipeline: Float32Array.from(pipeline), model: Float32Array.from(model), input: Float32Array.from(input) };
    });
  const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
  const images = (dir: string, keep: (name: string) => boolean) =>
    readdirSync(dir)
      .filter((n) => /\.(jpe?g|png|webp)$/i.test(n) && keep(n))
      .sort()
      .map((n) => join(dir, n));
  const sets: [string, string[]][] = [
    ['e2e assets', images(join('e2e', 'assets'), (n) => n !== 'broken.jpg')],
    ['demo pool images', images(join('public', 'pool', 'media'), () => true)],
    ['coco-mini (evaluation only)', images(join(values.data, 'coco-mini', 'images'), () => true)],
  ];
  for (const [label, files] of sets) {
    const parity = { model: 0, pipeline: 0, input: 0, checked: 0 };
    const alarms: string[] = [];
    let topClassAlarms = 0;
    const barAlarms = new Map<number, number>();
    const unfitScores: number[] = [];
    for (const [i, file] of files.entries()) {
      const image = await decodeAnyImageFile(file);
      const result = await checker.check(image);
      const score = result.probabilities.porn + result.probabilities.hentai;
      unfitScores.push(score);
      if (nsfwjsTopClassUnfit(result.probabilities)) topClassAlarms++;
      for (let bar = 0.5; bar < 0.99; bar += 0.05) if (score >= bar) barAlarms.set(Math.round(bar * 100), (barAlarms.get(Math.round(bar * 100)) ?? 0) + 1);
      if (result.unfit)
        alarms.push(`${file.split('/').pop()} (porn ${result.probabilities.porn.toFixed(2)}, hentai ${result.probabilities.hentai.toFixed(2)})`);
      if (i < parityCount) {
        const ours = photoCheckInput(image);
        const onnxOut = PHOTO_CHECK_CLASSES.map((c) => result.probabilities[c]);
        const reference = tfjs(image, ours);
        parity.model = Math.max(parity.model, maxDiff(onnxOut, reference.model));
        parity.pipeline = Math.max(parity.pipeline, maxDiff(onnxOut, reference.pipeline));
        parity.input = Math.max(parity.input, maxDiff(ours, reference.input));
        parity.checked++;
      }
    }
    unfitScores.sort((a, b) => b - a);
    const percent = (n: number) => `${((100 * n) / Math.max(1, files.length)).toFixed(2)}%`;
    console.log(
      `  nsfwjs's top-class rule: ${topClassAlarms} (${percent(topClassAlarms)}); by bar on porn+hentai: ${[...Array(10).keys()]
        .map((k) => 50 + 5 * k)
        .map((b) => `${(b / 100).toFixed(2)} ${barAlarms.get(b) ?? 0}`)
        .join(', ')}`,
    );
    console.log(
      `${label}: ${files.length} photos, ${alarms.length} called unfit at the bar ${PHOTO_CHECK_BAR} (${((100 * alarms.length) / Math.max(1, files.length)).toFixed(2)}%)${alarms.length ? `: ${alarms.slice(0, 5).join(', ')}` : ''}; highest porn+hentai ${unfitScores
        .slice(0, 3)
        .map((s) => s.toFixed(3))
        .join(', ')}`,
    );
    console.log(
      `  parity with nsfwjs on TF.js, ${parity.checked} photos: model alone max |diff| ${parity.model.toExponential(2)}; nsfwjs's whole path (its resize) ${parity.pipeline.toExponential(2)}; input ${parity.input.toExponential(2)}`,
    );
  }
}
