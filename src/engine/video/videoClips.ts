/**
 * The generated AVSD-style clips: a few coloured shapes that appear, move and leave over a plain
 * background, and one sound (a beep, knocking, music or spoken words) that starts at the beginning,
 * the middle or the end. Each clip is an event list; frames and audio are drawn from it, so the
 * question generator (videoDialogs.ts) knows the truth of everything a question can ask.
 */
import type { RgbaImage } from '../image/rgbaImage';
import { randomInt, randomPick, seededRandom, shuffled } from '../random';

export const CLIP_SECONDS = 4;
export const AUDIO_SAMPLE_RATE = 16000;

export const SHAPE_COLORS = ['red', 'orange', 'yellow', 'green', 'blue', 'purple'] as const;
export type ShapeColor = (typeof SHAPE_COLORS)[number];
export const SHAPE_KINDS = ['circle', 'square', 'triangle'] as const;
export type ShapeKind = (typeof SHAPE_KINDS)[number];
/** RGB of each colour, chosen far apart in hue so videoFeatures.ts can tell them apart after compression. */
const COLOR_RGB: Record<ShapeColor, readonly [number, number, number]> = {
  red: [220, 30, 35],
  orange: [245, 140, 20],
  yellow: [235, 215, 25],
  green: [40, 170, 60],
  blue: [35, 80, 225],
  purple: [150, 50, 200],
};

const SOUND_KINDS = ['none', 'beep', 'knock', 'music', 'speech'] as const;
type SoundKind = (typeof SOUND_KINDS)[number];
const SOUND_TIMES = ['beginning', 'middle', 'end'] as const;
type SoundTime = (typeof SOUND_TIMES)[number];
/** What the speaker of a clip says; models/avsd/speech/ holds espeak-ng's recording of each. */
export const SPOKEN_PHRASES = [
  'hello there',
  'look at this',
  'good morning',
  'watch closely',
  'here it comes',
  'thank you',
  'oh wow',
  'see you later',
] as const;

type Motion = 'still' | 'left' | 'right';

export interface ClipObject {
  color: ShapeColor;
  shape: ShapeKind;
  /** Seconds: when it comes into view and when it leaves (CLIP_SECONDS when it stays). */
  enter: number;
  leave: number;
  /** Centre at `enter`, as fractions of the frame. */
  x: number;
  y: number;
  motion: Motion;
  /** Radius as a fraction of the frame's height. */
  size: number;
}

interface ClipSound {
  kind: SoundKind;
  time: SoundTime;
  /** Seconds from the start of the clip (0 for none). */
  start: number;
  loud: boolean;
  /** For speech: the phrase said. */
  phrase?: string;
  /** False for a quarter of the silent clips: a video with no sound track at all, as screen recordings often are. */
  track: boolean;
}

export interface VideoClip {
  id: string;
  seconds: number;
  objects: ClipObject[];
  sound: ClipSound;
}

/** Motion speed: a tenth of the frame's width per second, so a moving shape stays in view. */
const SPEED = 0.1;

export function generateClip(seed: number, index: number, split: string): VideoClip {
  const random = seededRandom(hashSeed(`${split}:${seed}:${index}`));
  const count = 1 + randomInt(random, 3);
  const slots = shuffled(
    random,
    SHAPE_COLORS.flatMap((color) => SHAPE_KINDS.map((shape) => ({ color, shape }))),
  ).slice(0, count);
  const columns = shuffled(random, [0.2, 0.5, 0.8]);
  const objects = slots.map(({ color, shape }, i): ClipObject => {
    const enter = i === 0 && random() < 0.5 ? 0 : Math.round(random() * 20) / 10;
    const leaves = random() < 0.3 && enter < 2;
    const motion: Motion = random() < 0.45 ? 'still' : random() < 0.5 ? 'left' : 'right';
    return {
      color,
      shape,
      enter,
      leave: leaves ? Math.round((enter + 1 + random()) * 10) / 10 : CLIP_SECONDS,
      x: motion === 'left' ? Math.min(0.85, columns[i]! + 0.2) : motion === 'right' ? Math.max(0.15, columns[i]! - 0.2) : columns[i]!,
      y: 0.3 + 0.4 * random(),
      motion,
      size: 0.12 + 0.04 * random(),
    };
  });
  const kind = randomPick(random, SOUND_KINDS);
  const time = randomPick(random, SOUND_TIMES);
  const sound: ClipSound =
    kind === 'none'
      ? // Drawn from the clip's own hash, not the stream, so adding it changed no other clip.
        { kind, time: 'beginning', start: 0, loud: false, track: hashSeed(`track:${split}:${seed}:${index}`) % 4 !== 0 }
      : {
          kind,
          time,
          start: { beginning: 0.2, middle: 1.6, end: 2.8 }[time] + 0.4 * random(),
          loud: random() < 0.5,
          ...(kind === 'speech' ? { phrase: randomPick(random, SPOKEN_PHRASES) } : {}),
          track: true,
        };
  return { id: `${split}-${seed}-${index}`, seconds: CLIP_SECONDS, objects, sound };
}

function hashSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Where an object is at time t, or null when it is not in view. */
function objectAt(object: ClipObject, t: number): { x: number; y: number } | null {
  if (t < object.enter || t >= object.leave) return null;
  const dx = object.motion === 'still' ? 0 : (object.motion === 'left' ? -SPEED : SPEED) * (t - object.enter);
  return { x: object.x + dx, y: object.y };
}

/** The clip's picture at time t: a light grey gradient with the shapes in view, in the order they entered. */
export function renderClipFrame(clip: VideoClip, t: number, width = 160, height = 120): RgbaImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    const shade = 200 - Math.round((30 * y) / height);
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data[o] = shade;
      data[o + 1] = shade;
      data[o + 2] = shade + 6;
      data[o + 3] = 255;
    }
  }
  for (const object of clip.objects) {
    const at = objectAt(object, t);
    if (!at) continue;
    const [r, g, b] = COLOR_RGB[object.color];
    const cx = at.x * width;
    const cy = at.y * height;
    const radius = object.size * height;
    for (let y = Math.max(0, Math.floor(cy - radius)); y < Math.min(height, Math.ceil(cy + radius)); y++) {
      for (let x = Math.max(0, Math.floor(cx - radius)); x < Math.min(width, Math.ceil(cx + radius)); x++) {
        if (!insideShape(object.shape, (x + 0.5 - cx) / radius, (y + 0.5 - cy) / radius)) continue;
        const o = (y * width + x) * 4;
        data[o] = r;
        data[o + 1] = g;
        data[o + 2] = b;
      }
    }
  }
  return { width, height, data };
}

/** u, v in [-1, 1] around the centre. */
function insideShape(shape: ShapeKind, u: number, v: number): boolean {
  if (shape === 'circle') return u * u + v * v <= 1;
  if (shape === 'square') return Math.abs(u) <= 0.85 && Math.abs(v) <= 0.85;
  // An upward triangle: apex at the top, base at the bottom.
  return v <= 0.9 && v >= -0.9 && Math.abs(u) <= (v + 0.9) / 1.8;
}

/**
 * The clip's sound at AUDIO_SAMPLE_RATE, mono, with a faint noise floor everywhere (a real room is
 * never digital silence). `speech` is the phrase's recording at AUDIO_SAMPLE_RATE, for speech clips.
 */
export function synthesizeClipAudio(clip: VideoClip, speech: Float32Array | null): Float32Array {
  const rate = AUDIO_SAMPLE_RATE;
  const out = new Float32Array(Math.round(clip.seconds * rate));
  const random = seededRandom(hashSeed(`audio:${clip.id}`));
  for (let i = 0; i < out.length; i++) out[i] = (random() * 2 - 1) * 0.002;
  const { sound } = clip;
  const gain = sound.loud ? 0.6 : 0.08;
  const start = Math.round(sound.start * rate);
  const add = (offset: number, value: number) => {
    const i = start + offset;
    if (i >= 0 && i < out.length) out[i] = out[i]! + value;
  };
  switch (sound.kind) {
    case 'none':
      break;
    case 'beep':
      // Two 0.25 s beeps at 880 Hz with soft edges.
      for (const at of [0, 0.4]) {
        const n = Math.round(0.25 * rate);
        for (let i = 0; i < n; i++) add(Math.round(at * rate) + i, gain * envelope(i, n) * Math.sin((2 * Math.PI * 880 * i) / rate));
      }
      break;
    case 'knock':
      // Three short, decaying noise bursts.
      for (const at of [0, 0.25, 0.5]) {
        const n = Math.round(0.08 * rate);
        for (let i = 0; i < n; i++) add(Math.round(at * rate) + i, gain * Math.exp(-i / (0.015 * rate)) * (random() * 2 - 1));
      }
      break;
    case 'music':
      // Four chords (root, third and fifth together) of 0.35 s: several steady pitches at once, unlike a voice.
      [
        [261.63, 329.63, 392],
        [349.23, 440, 523.25],
        [392, 493.88, 587.33],
        [261.63, 329.63, 392],
      ].forEach((chord, k) => {
        const n = Math.round(0.35 * rate);
        for (let i = 0; i < n; i++) {
          const value = chord.reduce((sum, f) => sum + Math.sin((2 * Math.PI * f * i) / rate), 0) / chord.length;
          add(Math.round(k * 0.35 * rate) + i, gain * envelope(i, n) * value);
        }
      });
      break;
    case 'speech': {
      if (!speech) throw new Error(`Clip ${clip.id} speaks "${sound.phrase}", but no recording of it was given.`);
      let peak = 1e-6;
      for (const v of speech) peak = Math.max(peak, Math.abs(v));
      for (let i = 0; i < speech.length; i++) add(i, (gain * speech[i]!) / peak);
      break;
    }
  }
  return out;
}

function envelope(i: number, n: number): number {
  const edge = Math.min(i, n - 1 - i) / (0.02 * AUDIO_SAMPLE_RATE);
  return Math.min(1, edge);
}

/** Linear resampling (espeak-ng speaks at 22,050 Hz); enough for speech features, not for listening. */
export function resampleLinear(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples;
  const out = new Float32Array(Math.floor((samples.length * to) / from));
  for (let i = 0; i < out.length; i++) {
    const p = (i * from) / to;
    const j = Math.floor(p);
    const f = p - j;
    out[i] = (samples[j] ?? 0) * (1 - f) + (samples[j + 1] ?? samples[j] ?? 0) * f;
  }
  return out;
}
