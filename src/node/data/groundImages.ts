import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { GROUNDED_CAPTION_VERSION, groundedCaption } from '../../engine/detection/groundedCaption';
import type { Detection } from '../../engine/detection/types';
import { DETECTOR_DIR, ObjectDetector } from '../../engine/detection/objectDetector';
import { errorMessage } from '../../engine/errors';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { configureWasm } from '../../engine/onnx/ortSessions';
import { type PhotoDescription, describePhoto, photoDescription, photoGrounding } from '../../engine/perception/photoAnalyzer';
import { UsageError, parseCommandLine, requireOptions, runCommand } from '../tools/cliArgs';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { FsPackSource } from '../tools/fsPackSource';
import { ProgressLine } from '../tools/progressLine';

/**
 * The detector and the grounded captioner of the app, run over the images of a training set, so the
 * mini-clip recipe trains its image tower on exactly the grounding the app will feed it. One JSON
 * line per image: {file, sha256, detector, captioner, caption (null when nothing confident), score,
 * text, detections}. A line already in the output for the same file bytes and detector is reused (its
 * caption rewritten from its detections if the captioner changed), so a rerun only detects new images.
 *
 *   npx tsx src/node/data/groundImages.ts --images list.json --out grounding.jsonl [--shard 0/2]
 *
 * list.json: a JSON array of image paths. --shard i/n takes every n-th image from the i-th: two
 * shards in two processes use both cores (onnxruntime-web runs one thread per process here).
 */
const USAGE = 'npx tsx src/node/data/groundImages.ts --images list.json --out grounding.jsonl [--shard i/n]';

function readOptions(args: readonly string[]) {
  const values = parseCommandLine(args, { images: { type: 'string' }, out: { type: 'string' }, shard: { type: 'string', default: '0/1' } }, USAGE);
  requireOptions(values, ['images', 'out'], USAGE);
  const [shard, shards] = values.shard.split('/').map(Number) as [number, number];
  if (!Number.isInteger(shard) || !Number.isInteger(shards) || shards < 1 || shard < 0 || shard >= shards) {
    throw new UsageError(`--shard must be i/n with 0 <= i < n, not "${values.shard}".`, USAGE);
  }
  return { values: { images: values.images!, out: values.out! }, shard, shards };
}

const { values, shard, shards } = await runCommand('grounding', () => readOptions(process.argv.slice(2)));

configureWasm(1);
const source = new FsPackSource(`models/${DETECTOR_DIR}`);
const detector = await ObjectDetector.load(
  source,
  await source.listFiles(),
  chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true }),
);
type CompactDetection = [classIndex: number, score: number, x1: number, y1: number, x2: number, y2: number];
interface Row {
  file: string;
  sha256: string;
  detector: string;
  captioner: string;
  width: number;
  height: number;
  caption: string | null;
  score: number;
  text: string;
  detections: CompactDetection[];
}

function row(file: string, sha256: string, description: PhotoDescription): Row {
  const grounding = photoGrounding(description);
  const { width, height, detections } = description.detections;
  return {
    file,
    sha256,
    detector: detector.fingerprint,
    captioner: GROUNDED_CAPTION_VERSION,
    width,
    height,
    caption: grounding.caption,
    score: +grounding.score.toFixed(4),
    text: description.caption,
    detections: detections.map((d) => [
      d.classIndex,
      +d.score.toFixed(4),
      ...([d.box.x1, d.box.y1, d.box.x2, d.box.y2].map((v) => +v.toFixed(1)) as [number, number, number, number]),
    ]),
  };
}

/** A row of an older captioner, captioned again from its stored detections (the detector's part is the slow one). */
function recaption(old: Row): Row {
  const detections: Detection[] = old.detections.map(([classIndex, score, x1, y1, x2, y2]) => ({
    classIndex,
    label: detector.config.classes[classIndex]!,
    score,
    box: { x1, y1, x2, y2 },
  }));
  const result = { width: old.width, height: old.height, detections };
  const caption = groundedCaption(result);
  return row(old.file, old.sha256, photoDescription(result, caption, false));
}

const files = (JSON.parse(readFileSync(values.images, 'utf8')) as string[]).filter((_, i) => i % shards === shard);
const done = new Map<string, Row>();
if (existsSync(values.out)) {
  for (const line of readFileSync(values.out, 'utf8').split('\n')) {
    if (!line) continue;
    const old = JSON.parse(line) as Row;
    if (old.detector === detector.fingerprint) done.set(`${old.file}|${old.sha256}`, old.captioner === GROUNDED_CAPTION_VERSION ? old : recaption(old));
  }
}
writeFileSync(values.out, '');
let computed = 0;
let failed = 0;
const start = Date.now();
const progress = new ProgressLine();
for (const [i, file] of files.entries()) {
  const bytes = readFileSync(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const kept = done.get(`${file}|${sha256}`);
  if (kept) {
    appendFileSync(values.out, `${JSON.stringify(kept)}\n`);
    continue;
  }
  try {
    const { description } = await describePhoto(detector, await decodeAnyImageFile(file));
    appendFileSync(values.out, `${JSON.stringify(row(file, sha256, description))}\n`);
    computed++;
  } catch (error) {
    failed++;
    progress.end();
    console.error(`${file}: ${errorMessage(error)}`);
  }
  progress.update(`grounding ${i + 1}/${files.length}`, i + 1, files.length);
}
progress.end();
console.log(
  `grounding shard ${shard}/${shards}: ${files.length} images, ${computed} computed, ${files.length - computed - failed} kept, ${failed} unreadable, ${((Date.now() - start) / 1000).toFixed(0)} s`,
);
