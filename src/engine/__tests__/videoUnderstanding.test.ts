import { describe, expect, it } from 'vitest';
import { AUDIO_FEATURES, FLATNESS_FEATURE, SILENCE_DB, TIME_BINS, audioFeatures, loudnessDb } from '../video/audioFeatures';
import { type VideoClip, AUDIO_SAMPLE_RATE, renderClipFrame, synthesizeClipAudio } from '../video/videoClips';
import { describeVideo } from '../video/videoDescription';
import { SAMPLED_FRAMES, VIDEO_FEATURES, colorBlobs, sampleTimes, videoFeatures } from '../video/videoFeatures';

const clip = (
  objects: VideoClip['objects'],
  sound: VideoClip['sound'] = { kind: 'none', time: 'beginning', start: 0, loud: false, track: true },
): VideoClip => ({ id: 'unit', seconds: 4, objects, sound });
const redCircle = { color: 'red', shape: 'circle', enter: 0, leave: 4, x: 0.15, y: 0.5, motion: 'right', size: 0.15 } as const;
const blueSquare = { color: 'blue', shape: 'square', enter: 2, leave: 4, x: 0.75, y: 0.4, motion: 'still', size: 0.14 } as const;
const greenTriangle = { color: 'green', shape: 'triangle', enter: 0, leave: 1.5, x: 0.5, y: 0.6, motion: 'still', size: 0.16 } as const;

describe('what the video models see', () => {
  it('finds each drawn shape with its colour, kind and centre', () => {
    const blobs = colorBlobs(renderClipFrame(clip([redCircle, blueSquare, greenTriangle]), 1, 320, 240));
    // At 1 s the square has not come in yet; the circle has moved a tenth of the width to the right.
    expect(blobs.map((b) => `${b.color} ${b.shape}`).sort()).toEqual(['green triangle', 'red circle']);
    const circle = blobs.find((b) => b.shape === 'circle')!;
    expect(circle.x).toBeCloseTo(0.25, 1);
    expect(circle.y).toBeCloseTo(0.5, 1);
  });

  it('sums up when each slot is seen and where it moves, and the blobs per frame', () => {
    const c = clip([redCircle, blueSquare, greenTriangle]);
    const frames = sampleTimes(c.seconds).map((t) => colorBlobs(renderClipFrame(c, t)));
    const f = videoFeatures(frames);
    expect(f).toHaveLength(VIDEO_FEATURES);
    const slot = (color: number, shape: number) => Array.from(f.subarray((color * 3 + shape) * 5, (color * 3 + shape) * 5 + 5));
    // red (colour 0) circle (shape 0): in all 8 frames, from the first to the last, 0.1 of the width per second to the right.
    const red = slot(0, 0);
    expect(red.slice(0, 3)).toEqual([1, 0, 1]);
    expect(red[3]).toBeCloseTo(0.35, 1);
    // blue (4) square (1): frames 4..7 of 8 (the samples at 2.25 s and after).
    expect(
      slot(4, 1)
        .slice(0, 3)
        .map((v) => Number(v.toFixed(3))),
    ).toEqual([0.5, Number((4 / 7).toFixed(3)), 1]);
    // green (3) triangle (2): frames 0..2 (it leaves at 1.5 s).
    expect(
      slot(3, 2)
        .slice(0, 3)
        .map((v) => Number(v.toFixed(3))),
    ).toEqual([0.375, 0, Number((2 / 7).toFixed(3))]);
    expect(Array.from(f.subarray(90, 90 + SAMPLED_FRAMES))).toEqual([0.5, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.5]);
  });

  it('measures loudness in dBFS: a 0.5 sine is -9.03, the noise floor is silence', () => {
    const sine = Float32Array.from({ length: 1024 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / AUDIO_SAMPLE_RATE));
    expect(loudnessDb(sine)[0]).toBeCloseTo(-9.03, 1);
    const quiet = synthesizeClipAudio(clip([]), null);
    expect(Math.max(...loudnessDb(quiet))).toBeLessThan(SILENCE_DB);
  });

  it('gives a silent clip zero loudness bins and a sound track flag, and no sound track all zeros', () => {
    const silent = audioFeatures(synthesizeClipAudio(clip([]), null), []);
    expect(silent.features).toHaveLength(AUDIO_FEATURES);
    expect(silent.features[2 * TIME_BINS]).toBe(1);
    expect(silent.features[2 * TIME_BINS + 1]).toBe(1); // all of it is silent
    const none = audioFeatures(null, []);
    expect(Array.from(none.features).every((v) => v === 0)).toBe(true);
  });

  it('hears when a beep starts: the loudness bins rise in the middle', () => {
    const beep = audioFeatures(synthesizeClipAudio(clip([], { kind: 'beep', time: 'middle', start: 1.8, loud: true, track: true }), null), []);
    const bins = Array.from(beep.features.subarray(0, TIME_BINS));
    expect(bins.slice(0, 3).every((v) => v < 0.15)).toBe(true);
    expect(Math.max(bins[3]!, bins[4]!)).toBeGreaterThan(0.5);
    expect(beep.features[2 * TIME_BINS + 1]).toBeGreaterThan(0.6); // most of the clip is still silent
  });

  it('describes what appears in order, what moves, and what is heard', () => {
    const c = clip([redCircle, blueSquare]);
    const frames = sampleTimes(c.seconds).map((t) => ({ blobs: colorBlobs(renderClipFrame(c, t)), objects: [] }));
    const frameSeconds = 0.032;
    const speech = {
      frameSeconds,
      loudnessDb: new Array<number>(125).fill(-20),
      speech: [...new Array<number>(100).fill(0.1), 0.95, 0.97, 0.99, ...new Array<number>(22).fill(0.2)],
    };
    expect(describeVideo(frames, speech)).toBe('a red circle, then a blue square appears; the red circle moves right; someone speaks near the end');
    expect(describeVideo(frames, { frameSeconds, loudnessDb: new Array<number>(125).fill(-70), speech: [] })).toBe(
      'a red circle, then a blue square appears; the red circle moves right; silent',
    );
    expect(describeVideo(frames, null)).toBe('a red circle, then a blue square appears; the red circle moves right; no sound track');
    const people = [
      { blobs: [], objects: ['person'] },
      { blobs: [], objects: ['person', 'dog'] },
    ];
    expect(describeVideo(people, { frameSeconds, loudnessDb: [-70, -10, -12], speech: [0, 0, 0] })).toBe(
      'a person, then a dog appears; a loud sound in the middle',
    );
  });
});

describe('a steady sound is described as lasting, not by its start', () => {
  const seconds = 4;
  const samples = (from: number, to: number, hz: number) =>
    Float32Array.from({ length: seconds * AUDIO_SAMPLE_RATE }, (_, i) =>
      i >= from * AUDIO_SAMPLE_RATE && i < to * AUDIO_SAMPLE_RATE ? 0.5 * Math.sin((2 * Math.PI * hz * i) / AUDIO_SAMPLE_RATE) : 0,
    );
  const heard = (audio: Float32Array) => {
    const { features, timeline } = audioFeatures(audio, timelineSpeech(audio));
    return describeVideo([], timeline, features[FLATNESS_FEATURE]);
  };
  const timelineSpeech = (audio: Float32Array) => Array<number>(Math.floor(audio.length / 512)).fill(0.02);

  it('a 440 Hz sine over the whole clip is a steady tone throughout', () => {
    expect(heard(samples(0, seconds, 440))).toBe('nothing I can name; a loud steady tone throughout');
  });

  it('a short beep in the first quarter is still at the start', () => {
    expect(heard(samples(0.2, 0.7, 440))).toBe('nothing I can name; a loud sound at the start');
  });
});

describe('video containers', () => {
  it('are told by their first bytes', async () => {
    const { readFileSync } = await import('node:fs');
    const { videoContainer } = await import('../video/videoContainer');
    expect(videoContainer(readFileSync('e2e/assets/video/speech-test-1-15.webm').subarray(0, 12))).toBe('webm');
    expect(videoContainer(readFileSync('e2e/assets/video/mpeg4-part2.mp4').subarray(0, 12))).toBe('mp4');
    expect(videoContainer(readFileSync('e2e/assets/coffee.jpg').subarray(0, 12))).toBeNull();
    expect(videoContainer(new Uint8Array(0))).toBeNull();
  });
});
