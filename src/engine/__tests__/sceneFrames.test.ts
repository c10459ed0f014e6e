import { describe, expect, it } from 'vitest';
import type { RgbaImage } from '../image/rgbaImage';
import type { PhotoAnalyzer } from '../perception/photoAnalyzer';
import { MAX_ANALYSED_FRAMES, SCENE_CHANGE, lumaCells, sceneKeyFrames } from '../video/sceneFrames';
import { analyzeVideo } from '../video/videoAnalyzer';
import { type VideoClip, renderClipFrame } from '../video/videoClips';
import { sampleTimes } from '../video/videoFeatures';

/** A 64 × 48 frame of one grey, with an optional bright square at (x, y). */
function frame(grey: number, square: { x: number; y: number; size: number; value: number } | null = null): RgbaImage {
  const width = 64;
  const height = 48;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inSquare = square && x >= square.x && x < square.x + square.size && y >= square.y && y < square.y + square.size;
      const v = inSquare ? square.value : grey;
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  return { width, height, data };
}

/** Every pixel moved by up to ±amount at random, as re-encoding and sensor noise do. */
function noisy(image: RgbaImage, amount: number, seed: number): RgbaImage {
  let s = seed;
  const data = Uint8ClampedArray.from(image.data, (v, i) => {
    if (i % 4 === 3) return v;
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return v + Math.round(((s / 2 ** 31) * 2 - 1) * amount);
  });
  return { ...image, data };
}

describe('frames chosen by scene change', () => {
  it('reads each of 16 × 16 cells as its mean luma', () => {
    const cells = lumaCells(frame(51));
    expect(cells).toHaveLength(256);
    expect(cells.every((c) => Math.abs(c - 0.2) < 1e-6)).toBe(true);
  });

  it('analyses one frame of a still scene, even with noise of ±12 grey levels in every pixel', () => {
    const still = Array.from({ length: 8 }, (_, i) => noisy(frame(120, { x: 20, y: 10, size: 16, value: 220 }), 12, i + 1));
    expect(sceneKeyFrames(still)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('analyses the frame after a cut, and the frames after it take its analysis', () => {
    const frames = [...Array.from({ length: 4 }, () => frame(40)), ...Array.from({ length: 4 }, () => frame(200))];
    expect(sceneKeyFrames(frames)).toEqual([0, 0, 0, 0, 4, 4, 4, 4]);
  });

  it('measures change from the last analysed frame, so a slow drift is caught once it adds up', () => {
    // Each step is well under SCENE_CHANGE; four of them are over it.
    const step = Math.round(SCENE_CHANGE * 255 * 0.4);
    const frames = Array.from({ length: 8 }, (_, i) => frame(60 + i * step));
    expect(sceneKeyFrames(frames)).toEqual([0, 0, 0, 3, 3, 3, 6, 6]);
  });

  it(`analyses at most ${MAX_ANALYSED_FRAMES} frames: the first, then the largest changes`, () => {
    const greys = [0, 255, 0, 120, 0, 255, 110, 0];
    const keys = sceneKeyFrames(greys.map((g) => frame(g)));
    expect(new Set(keys).size).toBe(MAX_ANALYSED_FRAMES);
    // Frames 1, 2 and 5 change by the full scale from the frame before them and beat the smaller changes; 3 and 4 take frame 2's analysis.
    expect(keys).toEqual([0, 1, 2, 2, 2, 5, 5, 5]);
  });

  it('has nothing to choose from no frames', () => {
    expect(sceneKeyFrames([])).toEqual([]);
  });
});

describe('analyzeVideo with frames chosen by scene change', () => {
  const still: VideoClip = {
    id: 'unit',
    seconds: 4,
    objects: [{ color: 'red', shape: 'circle', enter: 0, leave: 4, x: 0.5, y: 0.5, motion: 'still', size: 0.15 }],
    sound: { kind: 'none', time: 'beginning', start: 0, loud: false, track: false },
  };

  /** A photo path that names each image it is given by the order it got it, so the test sees which frame's analysis each frame took. */
  function countingPhotoPath() {
    const seen: RgbaImage[] = [];
    const photos = {
      async analyze(images: readonly RgbaImage[]) {
        const photos = images.map((image) => {
          seen.push(image);
          const n = seen.length;
          return {
            embedding: Float32Array.of(n, 0),
            description: { detections: { detections: [{ label: `thing ${n}`, score: 0.9, box: [0, 0, 1, 1] }], width: 1, height: 1 } },
            zeroShotRanks: null,
          };
        });
        return { photos, timings: { detectMs: 0, captionMs: 0, encodeMs: 0 } };
      },
    } as unknown as PhotoAnalyzer;
    return { photos, seen };
  }

  it('sends a still clip through the photo path once, and every frame keeps its own blobs', async () => {
    const frames = sampleTimes(still.seconds).map((time) => ({ time, image: renderClipFrame(still, time, 160, 120) }));
    const { photos, seen } = countingPhotoPath();
    const analysis = await analyzeVideo({ seconds: still.seconds, frames, audio: null }, { photos, speech: null });
    expect(seen).toEqual([frames[0]!.image]);
    expect(analysis.timings.analysedFrames).toBe(1);
    expect(analysis.frames.map((f) => f.detections?.detections[0]?.label)).toEqual(Array(8).fill('thing 1'));
    expect(analysis.frames.every((f) => f.blobs.map((b) => `${b.color} ${b.shape}`).join() === 'red circle')).toBe(true);
    expect(Array.from(analysis.embedding!)).toEqual([1, 0]);
  });

  it('weighs each analysed frame in the video embedding by the frames that take it', async () => {
    const frames = [0, 0, 0, 0, 0, 0, 200, 200].map((grey, i) => ({ time: i, image: frame(grey) }));
    const { photos, seen } = countingPhotoPath();
    const analysis = await analyzeVideo({ seconds: 8, frames, audio: null }, { photos, speech: null });
    expect(seen).toEqual([frames[0]!.image, frames[6]!.image]);
    expect(analysis.frames.map((f) => f.detections?.detections[0]?.label)).toEqual([...Array(6).fill('thing 1'), 'thing 2', 'thing 2']);
    // (6 × 1 + 2 × 2) / 8
    expect(analysis.embedding![0]).toBeCloseTo(1.25, 6);
  });

  it('takes speech probabilities heard ahead instead of running the speech model again', async () => {
    const frames = sampleTimes(still.seconds).map((time) => ({ time, image: renderClipFrame(still, time, 160, 120) }));
    const audio = new Float32Array(16000 * 4);
    let runs = 0;
    const speech = {
      async speechProbabilities() {
        runs++;
        return [0.1];
      },
    } as unknown as import('../video/speechDetector').SpeechDetector;
    const heard = Promise.resolve(Array(125).fill(0.95) as number[]);
    const analysis = await analyzeVideo({ seconds: still.seconds, frames, audio }, { photos: null, speech, heard });
    expect(runs).toBe(0);
    expect(analysis.timeline!.speech).toHaveLength(125);
    expect(analysis.timeline!.speech.every((p) => p === 0.95)).toBe(true);
  });
});
