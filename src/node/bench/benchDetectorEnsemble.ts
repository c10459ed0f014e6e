import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { type EnsembleRule, type PhotoDetector, mergeDetections } from '../../engine/detection/detectorEnsemble';
import { NANODET_CONFIG_FILE, NANODET_DIR, NanoDetector } from '../../engine/detection/nanoDetector';
import type { DetectionTimings } from '../../engine/detection/objectDetector';
import type { Detection, DetectionResult } from '../../engine/detection/types';
import type { RgbaImage } from '../../engine/image/rgbaImage';
import { objectMentionScores } from '../../engine/metrics/objectMentions';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { PhotoAnalyzer } from '../../engine/perception/photoAnalyzer';
import { UsageError, parseCommandLine, requireOptions } from '../tools/cliArgs';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { loadCaptionSet, progress } from './benchRetrieval';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { FsPackSource } from '../tools/fsPackSource';

export const DETECTOR_ENSEMBLE_USAGE =
  'npm run bench -- detector-ensemble --pack ID --images DIR --captions FILE [--nanodet models/nanodet] [--json out.json] [--recorded earlier.json]   (choose on our own held-out photos only)';

/** The rules tried (issue 27): how to score a class both detectors found, and what to do with NanoDet's own finds. */
const ENSEMBLE_RULES: readonly EnsembleRule[] = (['noisy-or', 'max-bonus'] as const).flatMap((combine) =>
  (combine === 'noisy-or' ? [0] : [0.05, 0.1]).flatMap((bonus) =>
    [0.3, 0.5].flatMap((matchIou) =>
      [0, 0.4, 0.5, 0.55, 0.6].flatMap((secondMinScore) =>
        [0, 0.5, 1].map((secondOnlyWeight) => ({ combine, bonus, matchIou, secondMinScore, secondOnlyWeight })),
      ),
    ),
  ),
);
/** The bar a rule must keep, as the caption sweep's. */
const MIN_PRECISION = 0.8;

interface RecordedPhoto {
  file: string;
  centernetMs: number;
  nanodetMs: number;
  centernet: Detection[];
  nanodet: Detection[];
}

interface RecordedJson {
  photos: RecordedPhoto[];
}

/** A detector that answers with findings already computed for each photo, so every rule runs the app's own PhotoAnalyzer. */
class RecordedDetector implements PhotoDetector {
  constructor(
    readonly fingerprint: string,
    private readonly found: ReadonlyMap<RgbaImage, Detection[]>,
  ) {}

  detect(image: RgbaImage): Promise<DetectionResult & { timings: DetectionTimings }> {
    const detections = this.found.get(image);
    if (!detections) throw new Error('RecordedDetector was given a photo it has no findings for.');
    return Promise.resolve({
      width: image.width,
      height: image.height,
      detections: detections.map((d) => ({ ...d, box: { ...d.box } })),
      timings: { preprocessMs: 0, inferenceMs: 0 },
    });
  }
}

const pct = (x: number) => (100 * x).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ruleName = (r: EnsembleRule) =>
  `${r.combine === 'noisy-or' ? 'noisy-or' : `max+${r.bonus}`} iou>=${r.matchIou} nanodet>=${r.secondMinScore} nanodet-only x${r.secondOnlyWeight}`;

/**
 * npm run bench -- detector-ensemble: NanoDet as a second COCO detector beside the CenterNet (issue 27).
 * Both run once per photo on WASM (one thread) and are timed; then the CenterNet alone, NanoDet alone
 * and each ensemble rule caption every photo through the app's PhotoAnalyzer (detections, grounded
 * caption, the image tower's vote), scored by object-mention precision and recall against the human
 * captions. Run it on our own held-out photos only: coco-mini is evaluation-only.
 */
export async function detectorEnsembleBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string' },
      images: { type: 'string' },
      captions: { type: 'string' },
      nanodet: { type: 'string', default: join('models', NANODET_DIR) },
      json: { type: 'string' },
      recorded: { type: 'string' },
    },
    DETECTOR_ENSEMBLE_USAGE,
  );
  requireOptions(values, ['pack', 'images', 'captions'], DETECTOR_ENSEMBLE_USAGE);
  if (values.json === '') throw new UsageError('--json needs a file name.', DETECTOR_ENSEMBLE_USAGE);
  const nanodetDir = values.nanodet;
  const set = loadCaptionSet(values.captions!);
  const loaded = await loadWasmPhotoAnalyzer(values.pack!, { detector: true });
  if (!loaded.detector) throw new Error(`The comparison needs the CenterNet: ${loaded.detectorNote}.`);
  const centernet = loaded.detector;
  // --recorded: both detectors' findings and timings from an earlier --json of the same photos, so a
  // new rule costs no detector run; the captions are still made by PhotoAnalyzer.
  const recorded = values.recorded ? (JSON.parse(readFileSync(values.recorded, 'utf8')) as RecordedJson) : null;
  if (recorded && recorded.photos.length !== set.images.length)
    throw new Error(`${values.recorded} holds ${recorded.photos.length} photos, and ${values.captions} ${set.images.length}.`);
  let nanodet: NanoDetector | null = null;
  if (!recorded) {
    if (!existsSync(join(nanodetDir, NANODET_CONFIG_FILE)))
      throw new Error(
        `${join(nanodetDir, NANODET_CONFIG_FILE)} is missing: run /usr/bin/python3 models/scripts/detector/port_nanodet.py --fetch first (it is not in the repository).`,
      );
    const source = new FsPackSource(nanodetDir);
    nanodet = await NanoDetector.load(
      source,
      await source.listFiles(),
      chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true }),
    );
  }
  console.log(
    `pack ${values.pack} · ${loaded.detectorNote} · NanoDet ${recorded ? `findings recorded in ${values.recorded}` : `${nanodetDir}/ (${nanodet!.config.name}, ${nanodet!.config.inputSize} x ${nanodet!.config.inputSize})`}`,
  );

  const pixels: RgbaImage[] = [];
  const byCenternet = new Map<RgbaImage, Detection[]>();
  const byNanodet = new Map<RgbaImage, Detection[]>();
  const ms = { centernet: [] as number[], nanodet: [] as number[] };
  for (const [i, image] of set.images.entries()) {
    const photo = await decodeAnyImageFile(join(values.images!, image.file));
    pixels.push(photo);
    if (recorded) {
      const r = recorded.photos[i]!;
      if (r.file !== image.file) throw new Error(`${values.recorded} lists ${r.file} where ${values.captions} has ${image.file}.`);
      byCenternet.set(photo, r.centernet);
      byNanodet.set(photo, r.nanodet);
      ms.centernet.push(r.centernetMs);
      ms.nanodet.push(r.nanodetMs);
      continue;
    }
    // The first photo once more before it counts: the sessions' first runs are slower.
    if (i === 0) {
      await centernet.detect(photo);
      await nanodet!.detect(photo);
    }
    let start = nowMs();
    byCenternet.set(photo, (await centernet.detect(photo)).detections);
    ms.centernet.push(nowMs() - start);
    start = nowMs();
    byNanodet.set(photo, (await nanodet!.detect(photo)).detections);
    ms.nanodet.push(nowMs() - start);
    progress('detected', i + 1, set.images.length);
  }

  const variants: { name: string; rule: EnsembleRule | null; found: Map<RgbaImage, Detection[]> }[] = [
    { name: 'CenterNet alone (the app now)', rule: null, found: byCenternet },
    { name: 'NanoDet alone', rule: null, found: byNanodet },
    ...ENSEMBLE_RULES.map((rule) => ({
      name: ruleName(rule),
      rule,
      found: new Map(pixels.map((p) => [p, mergeDetections(byCenternet.get(p)!, byNanodet.get(p)!, rule)])),
    })),
  ];
  // Every variant runs the same tower on the same photos, fed the same grounding wherever its caption did
  // not change: the embeddings are remembered per (photo, grounding) so 20 variants cost about one.
  const encodeImages = loaded.encoder.encodeImages.bind(loaded.encoder);
  const photoIndex = new Map(pixels.map((p, i) => [p, i]));
  const remembered = new Map<string, Float32Array>();
  loaded.encoder.encodeImages = async (images, grounding) => {
    const keys = images.map((image, i) => JSON.stringify([photoIndex.get(image) ?? -1, grounding?.[i] ?? null]));
    const missing = images.flatMap((image, i) => (remembered.has(keys[i]!) ? [] : [i]));
    if (missing.length > 0) {
      const fresh = await encodeImages(
        missing.map((i) => images[i]!),
        grounding ? missing.map((i) => grounding[i]!) : undefined,
      );
      missing.forEach((i, k) => remembered.set(keys[i]!, fresh[k]!));
    }
    return keys.map((key) => remembered.get(key)!);
  };
  const rows: {
    name: string;
    rule: EnsembleRule | null;
    precision: number;
    recall: number;
    matched: number;
    said: number;
    inReferences: number;
    captions: string[];
  }[] = [];
  for (const [v, variant] of variants.entries()) {
    const analyzer = new PhotoAnalyzer(loaded.encoder, new RecordedDetector(variant.name, variant.found));
    const captions: string[] = [];
    for (const photo of pixels) captions.push((await analyzer.analyze([photo])).photos[0]!.description!.caption);
    const m = objectMentionScores(captions.map((candidate, i) => ({ candidate, references: set.images[i]!.captions })));
    rows.push({
      name: variant.name,
      rule: variant.rule,
      precision: m.precision,
      recall: m.recall,
      matched: m.matched,
      said: m.candidateMentions,
      inReferences: m.referenceMentions,
      captions,
    });
    progress('variants', v + 1, variants.length);
  }
  await nanodet?.release();
  await releasePhotoAnalyzer(loaded);

  const ensembleMs = ms.centernet.map((c, i) => c + ms.nanodet[i]!);
  console.log(`\n${set.images.length} photos · ${values.captions} · grounded caption through PhotoAnalyzer · mentions x100`);
  console.log(
    `ms per photo (detection incl. preprocessing and decoding, WASM one thread): CenterNet mean ${mean(ms.centernet).toFixed(0)} median ${median(ms.centernet).toFixed(0)}; NanoDet mean ${mean(ms.nanodet).toFixed(0)} median ${median(ms.nanodet).toFixed(0)}; both mean ${mean(ensembleMs).toFixed(0)} median ${median(ensembleMs).toFixed(0)}`,
  );
  const base = rows[0]!;
  const chosen =
    rows
      .slice(2)
      .filter((r) => r.precision >= MIN_PRECISION)
      .sort((a, b) => b.recall - a.recall || b.precision - a.precision)[0] ?? null;
  console.log(`${'detectors'.padEnd(48)} ${'P (right/said)'.padEnd(16)} ${'R (right/in refs)'.padEnd(18)} captions changed`);
  for (const r of rows) {
    const changed = r.captions.filter((c, i) => c !== base.captions[i]).length;
    console.log(
      `${r.name.padEnd(48)} ${`${pct(r.precision)} (${r.matched}/${r.said})`.padEnd(16)} ${`${pct(r.recall)} (${r.matched}/${r.inReferences})`.padEnd(18)} ${changed}${r === chosen ? '  <- best ensemble at P >= 80' : ''}`,
    );
  }
  if (chosen) {
    console.log(
      `\nchosen ensemble vs the app: recall ${pct(chosen.recall - base.recall)} points, precision ${pct(chosen.precision - base.precision)} points, for +${mean(ms.nanodet).toFixed(0)} ms per photo`,
    );
    console.log('captions it changes:');
    for (const [i, c] of chosen.captions.entries())
      if (c !== base.captions[i]) console.log(`  ${set.images[i]!.file}: "${base.captions[i]}" -> "${c}"   (refs: ${set.images[i]!.captions.join(' | ')})`);
  } else console.log(`\nno ensemble rule keeps mention precision at ${pct(MIN_PRECISION)} or more`);
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ pack: values.pack, images: values.images, captions: values.captions, rows: rows.map(({ captions: _, ...r }) => r), chosen: chosen?.name ?? null, photos: pixels.map((p, i): RecordedPhoto => ({ file: set.images[i]!.file, centernetMs: ms.centernet[i]!, nanodetMs: ms.nanodet[i]!, centernet: byCenternet.get(p)!, nanodet: byNanodet.get(p)! })) }, null, 2)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
}
