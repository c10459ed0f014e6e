/**
 * The short description under a shared video, built like the grounded photo captions: what is seen
 * (the detector's objects, or coloured shapes when it finds none) in the order it appears, what moves,
 * and what is heard. "a person, then a dog appears; someone speaks".
 */
import { CONFIDENT_SCORE } from '../detection/groundedCaption';
import { SILENCE_DB, TIME_BINS, type AudioTimeline, spanMeans } from './audioFeatures';
import type { ColorBlob } from './videoFeatures';

export interface DescribedFrame {
  blobs: readonly ColorBlob[];
  /** Labels the detector found with confidence; empty without a detector. */
  objects: readonly string[];
}

function withArticle(thing: string): string {
  return `${/^[aeiou]/.test(thing) ? 'an' : 'a'} ${thing}`;
}

/** Coloured shapes are named only in frames that look drawn: every blob shape-like, and few of them. */
function frameLooksDrawn(blobs: readonly ColorBlob[]): boolean {
  return blobs.length > 0 && blobs.length <= 4 && blobs.every((b) => b.shapeLike);
}

/**
 * Whether the video is drawn shapes (the generated AVSD-style clips) rather than a real scene: the
 * detector named nothing with confidence in any frame, and some frame looks drawn. The description
 * then names coloured shapes; otherwise it names the detector's objects, or nothing.
 */
export function videoLooksDrawn(frames: readonly DescribedFrame[]): boolean {
  return !frames.some((f) => f.objects.length > 0) && frames.some((f) => frameLooksDrawn(f.blobs));
}

/** Things in the order they are first seen, each with the frame it appears in. */
function appearances(frames: readonly DescribedFrame[]): { thing: string; first: number; xs: number[] }[] {
  const drawnVideo = videoLooksDrawn(frames);
  const seen = new Map<string, { thing: string; first: number; xs: number[] }>();
  frames.forEach((frame, f) => {
    const things = !drawnVideo
      ? frame.objects.map((o) => ({ thing: o, x: NaN }))
      : frameLooksDrawn(frame.blobs)
        ? frame.blobs.map((b) => ({ thing: `${b.color} ${b.shape}`, x: b.x }))
        : [];
    for (const { thing, x } of things) {
      const entry = seen.get(thing) ?? { thing, first: f, xs: [] };
      if (!Number.isNaN(x)) entry.xs.push(x);
      seen.set(thing, entry);
    }
  });
  return [...seen.values()].sort((a, b) => a.first - b.first);
}

function seenPart(frames: readonly DescribedFrame[]): string {
  const things = appearances(frames).slice(0, 4);
  if (things.length === 0) return 'nothing I can name';
  const atStart = things.filter((t) => t.first === 0).map((t) => withArticle(t.thing));
  const later = things.filter((t) => t.first > 0).map((t) => withArticle(t.thing));
  const join = (list: string[]) => (list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`);
  let text = atStart.length > 0 ? join(atStart) : '';
  if (later.length > 0)
    text = text ? `${text}, then ${join(later)} ${later.length > 1 ? 'appear' : 'appears'}` : `${join(later)} ${later.length > 1 ? 'appear' : 'appears'}`;
  const moving = things.find((t) => t.xs.length >= 3 && Math.abs(t.xs[t.xs.length - 1]! - t.xs[0]!) > 0.1);
  if (moving) text += `; the ${moving.thing} moves ${moving.xs[moving.xs.length - 1]! > moving.xs[0]! ? 'right' : 'left'}`;
  return text;
}

/** Silero VAD's probability above which a frame is speech; on our held-out clips music peaks at 0.84 and speech at 0.99. */
const SPEECH_PROBABILITY = 0.9;

function when(index: number, total: number): string {
  const at = index / Math.max(1, total);
  return at < 0.33 ? 'at the start' : at < 0.66 ? 'in the middle' : 'near the end';
}

/** A sound heard in this many of the clip's TIME_BINS spans (three quarters) lasts throughout; it has no one start to place. */
const THROUGHOUT_SPANS = 6;
/** Heard spans whose mean loudness stays within this many dB of each other are one steady level (a tone, a hum), not events. */
const STEADY_SPREAD_DB = 6;
/** Below this mean spectral flatness the sound is a few pure pitches: a sine measures about 0, white noise 0.56. */
const TONE_FLATNESS = 0.1;

/**
 * `flatness` is the mean spectral flatness of the frames that are heard (audioFeatures' FLATNESS_FEATURE),
 * or null when unknown: it tells a tone from other steady sound.
 */
function heardPart(audio: AudioTimeline | null, flatness: number | null): string {
  if (!audio) return 'no sound track';
  const { loudnessDb, speech } = audio;
  const speechAt = speech.findIndex((_, i) => [0, 1, 2].every((k) => (speech[i + k] ?? 0) > SPEECH_PROBABILITY));
  if (speechAt >= 0) return `someone speaks ${when(speechAt, speech.length)}`;
  const heardAt = loudnessDb.findIndex((db) => db > SILENCE_DB);
  if (heardAt < 0) return 'silent';
  const peak = Math.max(...loudnessDb);
  const level = peak > -20 ? 'loud' : 'quiet';
  // A sound that fills the clip is placed by how long it lasts, not by where it starts.
  const heardSpans = loudnessDb.length === 0 ? [] : spanMeans(loudnessDb).filter((db) => db > SILENCE_DB);
  if (heardSpans.length >= Math.min(THROUGHOUT_SPANS, TIME_BINS)) {
    if (Math.max(...heardSpans) - Math.min(...heardSpans) > STEADY_SPREAD_DB) return `a ${level} sound throughout`;
    return `a ${level} steady ${flatness !== null && flatness < TONE_FLATNESS ? 'tone' : 'sound'} throughout`;
  }
  return `a ${level} sound ${when(heardAt, loudnessDb.length)}`;
}

/** `flatness`: the heard frames' mean spectral flatness (FLATNESS_FEATURE), null when unknown. */
export function describeVideo(frames: readonly DescribedFrame[], audio: AudioTimeline | null, flatness: number | null = null): string {
  return `${seenPart(frames)}; ${heardPart(audio, flatness)}`;
}

/** Detector labels worth naming in a description. */
export function confidentLabels(objects: readonly { label: string; score: number }[]): string[] {
  return [...new Set(objects.filter((o) => o.score >= CONFIDENT_SCORE).map((o) => o.label))];
}
