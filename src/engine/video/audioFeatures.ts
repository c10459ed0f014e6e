/**
 * What the video models hear, defined once for the Node exporter, the benchmark and the worker:
 * loudness and speech over time, how much is silent, how noise-like it is (spectral flatness), and a
 * log-mel summary (the mean and spread of 32 mel bands), from 16 kHz mono samples.
 */
import FFT from 'fft.js';
import { AUDIO_SAMPLE_RATE } from './videoClips';

/** Silero VAD reads 512-sample frames at 16 kHz (32 ms). */
export const VAD_FRAME = 512;
const FFT_SIZE = 512;
const MEL_BANDS = 32;
/** Loudness and speech are summarized over this many equal spans of the clip. */
export const TIME_BINS = 8;
/** Windows quieter than this (dBFS) are silence. */
export const SILENCE_DB = -45;
export const AUDIO_FEATURES = 2 * TIME_BINS + 5 + 2 * MEL_BANDS;
/** Where the features hold the mean spectral flatness of the frames that are not silent. */
export const FLATNESS_FEATURE = 2 * TIME_BINS + 4;

/** The audio track over time, as the Inspector draws it: one value per VAD frame (32 ms). */
export interface AudioTimeline {
  frameSeconds: number;
  /** RMS loudness in dBFS, floored at -100. */
  loudnessDb: number[];
  /** Silero VAD's speech probability. */
  speech: number[];
}

export function loudnessDb(samples: Float32Array): number[] {
  const frames = Math.floor(samples.length / VAD_FRAME);
  return Array.from({ length: frames }, (_, f) => {
    let sum = 0;
    for (let i = f * VAD_FRAME; i < (f + 1) * VAD_FRAME; i++) sum += samples[i]! * samples[i]!;
    return Math.max(-100, 10 * Math.log10(sum / VAD_FRAME + 1e-12));
  });
}

let melFilters: Float32Array[] | null = null;

/** Triangular mel filters over the FFT bins, 0 to 8 kHz (HTK mel scale). */
function filters(): Float32Array[] {
  if (melFilters) return melFilters;
  const mel = (f: number) => 2595 * Math.log10(1 + f / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const top = mel(AUDIO_SAMPLE_RATE / 2);
  const edges = Array.from({ length: MEL_BANDS + 2 }, (_, i) => (hz((top * i) / (MEL_BANDS + 1)) * FFT_SIZE) / AUDIO_SAMPLE_RATE);
  melFilters = Array.from({ length: MEL_BANDS }, (_, b) => {
    const row = new Float32Array(FFT_SIZE / 2 + 1);
    for (let k = 0; k < row.length; k++) {
      const rise = (k - edges[b]!) / (edges[b + 1]! - edges[b]!);
      const fall = (edges[b + 2]! - k) / (edges[b + 2]! - edges[b + 1]!);
      row[k] = Math.max(0, Math.min(rise, fall));
    }
    return row;
  });
  return melFilters;
}

/** Per VAD frame: log-mel energies and spectral flatness (geometric over arithmetic mean of the power). */
function spectra(samples: Float32Array): { logMel: Float32Array[]; flatness: number[] } {
  const fft = new FFT(FFT_SIZE);
  const out = fft.createComplexArray() as number[];
  const frame = new Array<number>(FFT_SIZE);
  const bank = filters();
  const logMel: Float32Array[] = [];
  const flatness: number[] = [];
  const frames = Math.floor(samples.length / FFT_SIZE);
  for (let f = 0; f < frames; f++) {
    for (let i = 0; i < FFT_SIZE; i++) frame[i] = samples[f * FFT_SIZE + i]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FFT_SIZE - 1)));
    fft.realTransform(out, frame);
    const power = new Float32Array(FFT_SIZE / 2 + 1);
    let logSum = 0;
    let sum = 0;
    for (let k = 0; k < power.length; k++) {
      power[k] = out[2 * k]! * out[2 * k]! + out[2 * k + 1]! * out[2 * k + 1]!;
      logSum += Math.log(power[k]! + 1e-12);
      sum += power[k]!;
    }
    flatness.push(Math.exp(logSum / power.length) / (sum / power.length + 1e-12));
    logMel.push(Float32Array.from(bank, (row) => Math.log(row.reduce((s, w, k) => s + w * power[k]!, 0) + 1e-6)));
  }
  return { logMel, flatness };
}

/** Mean of values[i] for the frames of each of TIME_BINS equal spans (the clip shorter than 8 frames repeats). */
export function spanMeans(values: readonly number[]): number[] {
  return Array.from({ length: TIME_BINS }, (_, b) => {
    const from = Math.floor((b * values.length) / TIME_BINS);
    const to = Math.max(from + 1, Math.floor(((b + 1) * values.length) / TIME_BINS));
    const span = values.slice(from, to);
    return span.length === 0 ? 0 : span.reduce((a, v) => a + v, 0) / span.length;
  });
}

/**
 * The audio features (AUDIO_FEATURES floats). `speech` holds Silero VAD's probability per VAD frame;
 * `samples` null means the video has no sound track, which reads as silence with the first flag off.
 */
export function audioFeatures(samples: Float32Array | null, speech: readonly number[]): { features: Float32Array; timeline: AudioTimeline } {
  const out = new Float32Array(AUDIO_FEATURES);
  const loudness = samples ? loudnessDb(samples) : [];
  const timeline: AudioTimeline = { frameSeconds: VAD_FRAME / AUDIO_SAMPLE_RATE, loudnessDb: loudness, speech: [...speech] };
  if (!samples || loudness.length === 0) return { features: out, timeline };
  const loudBins = spanMeans(loudness.map((db) => Math.min(1, Math.max(0, (db + 60) / 60))));
  const speechBins = spanMeans(speech.length > 0 ? speech : [0]);
  out.set(loudBins, 0);
  out.set(speechBins, TIME_BINS);
  const { logMel, flatness } = spectra(samples);
  const heard = logMel.map((_, f) => (loudness[f] ?? -100) > SILENCE_DB);
  const silentShare = heard.filter((h) => !h).length / Math.max(1, heard.length);
  const heardFlatness = flatness.filter((_, f) => heard[f]);
  let g = 2 * TIME_BINS;
  out[g++] = 1; // has a sound track
  out[g++] = silentShare;
  out[g++] = Math.min(1, Math.max(0, (Math.max(...loudness) + 60) / 60));
  out[g++] = speech.length === 0 ? 0 : Math.max(...speech);
  out[g++] = heardFlatness.length === 0 ? 0 : heardFlatness.reduce((a, v) => a + v, 0) / heardFlatness.length;
  // The log-mel summary of the frames that are not silent (all frames when every one is).
  const rows = logMel.filter((_, f) => heard[f]);
  const used = rows.length > 0 ? rows : logMel;
  for (let b = 0; b < MEL_BANDS; b++) {
    const values = used.map((r) => r[b]!);
    const mean = values.reduce((a, v) => a + v, 0) / Math.max(1, values.length);
    const spread = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, values.length));
    out[g + b] = mean / 10;
    out[g + MEL_BANDS + b] = spread / 10;
  }
  return { features: out, timeline };
}
