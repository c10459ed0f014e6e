import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from '../../engine/clock';
import { resizeBicubicLikePillow } from '../../engine/image/pilResize';
import type { RgbaImage } from '../../engine/image/rgbaImage';
import { analyzeVideo } from '../../engine/video/videoAnalyzer';
import { sampleTimes } from '../../engine/video/videoFeatures';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer } from './benchAnalyzer';
import { integerOption, parseCommandLine } from '../tools/cliArgs';
import { decodeAnyImageFile } from '../tools/decodeImageFile';

const VIDEO_SCENES_USAGE = 'npm run bench -- video-scenes [--pack mini-clip] [--images ../shared/data/coco-mini/images] [--clips 30]';

/** The page hands frames to the worker at most this wide (videoDecoder.ts). */
const FRAME_WIDTH = 320;
const CLIP_SECONDS = 10;

/** The part of a photo a frame shows, as fractions of its width and height. */
interface View {
  x: number;
  y: number;
  w: number;
  h: number;
}

function cropResized(photo: RgbaImage, view: View, noiseSeed: number): RgbaImage {
  const x0 = Math.round(view.x * photo.width);
  const y0 = Math.round(view.y * photo.height);
  const w = Math.max(1, Math.round(view.w * photo.width));
  const h = Math.max(1, Math.round(view.h * photo.height));
  const crop = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) crop.set(photo.data.subarray(((y0 + y) * photo.width + x0) * 4, ((y0 + y) * photo.width + x0 + w) * 4), y * w * 4);
  const width = Math.min(FRAME_WIDTH, w);
  const frame = resizeBicubicLikePillow({ width: w, height: h, data: crop }, width, Math.max(1, Math.round((h * width) / w)));
  // Re-encoding noise of a few grey levels, as a phone's video has.
  let s = noiseSeed;
  const data = Uint8ClampedArray.from(frame.data, (v, i) => {
    if (i % 4 === 3) return v;
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return v + Math.round(((s / 2 ** 31) * 2 - 1) * 4);
  });
  return { ...frame, data };
}

const WHOLE: View = { x: 0, y: 0, w: 1, h: 1 };

/** The clips a visitor's phone makes, from real photos: one scene held, a cut, a pan, a zoom, and a slideshow. */
const CLIP_KINDS: Record<string, { photos: number; view: (frame: number) => { photo: number; view: View } }> = {
  still: { photos: 1, view: () => ({ photo: 0, view: WHOLE }) },
  cut: { photos: 2, view: (f) => ({ photo: f < 4 ? 0 : 1, view: WHOLE }) },
  pan: { photos: 1, view: (f) => ({ photo: 0, view: { x: (f / 7) * 0.4, y: 0, w: 0.6, h: 1 } }) },
  zoom: { photos: 1, view: (f) => ({ photo: 0, view: { x: f * 0.04, y: f * 0.04, w: 1 - f * 0.08, h: 1 - f * 0.08 } }) },
  slideshow: { photos: 4, view: (f) => ({ photo: Math.floor(f / 2), view: WHOLE }) },
};

/**
 * What choosing a video's frames by scene change (sceneFrames.ts) costs and changes: clips made from
 * real photos (coco-mini, evaluation only: the threshold was set by reasoning, not on these) go through
 * analyzeVideo with every frame through the photo path and with the chosen ones, and the description
 * and the answer to "what is in it" of the two are compared.
 */
export async function videoScenesBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    {
      pack: { type: 'string', default: 'mini-clip' },
      images: { type: 'string', default: join('..', 'shared', 'data', 'coco-mini', 'images') },
      clips: { type: 'string', default: '30' },
    },
    VIDEO_SCENES_USAGE,
  );
  const clipCount = integerOption(values.clips, 'clips', VIDEO_SCENES_USAGE);
  const files = readdirSync(values.images)
    .filter((f) => /\.(jpe?g|png|webp)$/i.test(f))
    .sort();
  if (files.length < 4) throw new Error(`${values.images} has ${files.length} photos; the clips need at least 4.`);
  const loaded = await loadWasmPhotoAnalyzer(values.pack);
  if (!loaded.detector) console.log(`note: ${loaded.detectorNote}`);
  const kinds = Object.keys(CLIP_KINDS);
  const rows: { kind: string; every: number; chosen: number; analysed: number; sameDescription: boolean; sameAnswer: boolean }[] = [];
  const differences: string[] = [];
  let next = 0;
  try {
    for (let c = 0; c < clipCount; c++) {
      const kind = kinds[c % kinds.length]!;
      const spec = CLIP_KINDS[kind]!;
      const photos = await Promise.all(Array.from({ length: spec.photos }, () => decodeAnyImageFile(join(values.images, files[next++ % files.length]!))));
      const frames = sampleTimes(CLIP_SECONDS).map((time, f) => {
        const { photo, view } = spec.view(f);
        return { time, image: cropResized(photos[photo]!, view, c * 8 + f + 1) };
      });
      const input = { seconds: CLIP_SECONDS, frames, audio: null };
      const parts = { photos: loaded.analyzer, speech: null };
      let start = nowMs();
      const every = await analyzeVideo(input, parts, undefined, { everyFrame: true });
      const everyMs = nowMs() - start;
      start = nowMs();
      const chosen = await analyzeVideo(input, parts);
      const chosenMs = nowMs() - start;
      const sameDescription = every.description === chosen.description;
      const sameAnswer = every.shown.answer === chosen.shown.answer;
      rows.push({ kind, every: everyMs, chosen: chosenMs, analysed: chosen.timings.analysedFrames, sameDescription, sameAnswer });
      if (!sameDescription || !sameAnswer)
        differences.push(
          `  ${kind} clip ${c + 1} (${chosen.timings.analysedFrames} of 8 frames analysed):\n    every frame: ${every.description} | "${every.shown.answer}"\n    chosen:      ${chosen.description} | "${chosen.shown.answer}"`,
        );
    }
  } finally {
    await releasePhotoAnalyzer(loaded);
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
  console.log(`pack ${values.pack} · ${rows.length} clips of ${CLIP_SECONDS} s from ${values.images} · WASM, Node, one thread`);
  console.log('kind        clips  frames analysed (mean of 8)  analysis every frame  chosen frames  same description  same "what is in it"');
  for (const kind of [...kinds, 'all']) {
    const of = rows.filter((r) => kind === 'all' || r.kind === kind);
    if (of.length === 0) continue;
    console.log(
      `${kind.padEnd(11)} ${String(of.length).padStart(5)}  ${(of.reduce((n, r) => n + r.analysed, 0) / of.length).toFixed(1).padStart(26)}  ${median(
        of.map((r) => r.every),
      )
        .toFixed(0)
        .padStart(17)} ms  ${median(of.map((r) => r.chosen))
        .toFixed(0)
        .padStart(
          10,
        )} ms  ${`${of.filter((r) => r.sameDescription).length}/${of.length}`.padStart(16)}  ${`${of.filter((r) => r.sameAnswer).length}/${of.length}`.padStart(19)}`,
    );
  }
  if (differences.length > 0) console.log(`what changed:\n${differences.join('\n')}`);
}
