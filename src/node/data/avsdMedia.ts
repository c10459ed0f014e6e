/**
 * Pictures and sound of the generated clips in Node: the sampled frames and the 16 kHz audio the page
 * would hand the worker, and the espeak-ng recordings the speaking clips say (models/avsd/speech/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIO_SAMPLE_RATE, SPOKEN_PHRASES, type VideoClip, renderClipFrame, resampleLinear, synthesizeClipAudio } from '../../engine/video/videoClips';
import type { VideoInput } from '../../engine/video/videoAnalyzer';
import { sampleTimes } from '../../engine/video/videoFeatures';

const SPEECH_DIR = 'models/avsd/speech';

/**
 * Mono float samples of a 16-bit PCM WAV (what espeak-ng writes). By hand: the one format read here
 * is a 44-byte header and samples, and the chunk walk below is all a library would do for it.
 */
function readWav(bytes: Uint8Array, where: string): { sampleRate: number; samples: Float32Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (o: number) => String.fromCharCode(...bytes.subarray(o, o + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error(`${where} is not a WAV file (no RIFF/WAVE header).`);
  let offset = 12;
  let format: { channels: number; sampleRate: number; bits: number } | null = null;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    if (id === 'fmt ')
      format = { channels: view.getUint16(offset + 10, true), sampleRate: view.getUint32(offset + 12, true), bits: view.getUint16(offset + 22, true) };
    if (id === 'data') {
      if (!format || format.bits !== 16) throw new Error(`${where}: only 16-bit PCM WAV is read here.`);
      // espeak-ng leaves the data size at 0x7fffffff when it streams; the file's end bounds it.
      const end = Math.min(bytes.length, offset + 8 + size);
      const frames = Math.floor((end - offset - 8) / (2 * format.channels));
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = view.getInt16(offset + 8 + i * 2 * format.channels, true) / 32768;
      return { sampleRate: format.sampleRate, samples };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${where} has no data chunk.`);
}

/** Each spoken phrase's recording at 16 kHz. */
export function loadSpeech(dir = SPEECH_DIR): Map<string, Float32Array> {
  return new Map(
    SPOKEN_PHRASES.map((phrase) => {
      const file = join(dir, `${phrase.replaceAll(' ', '-')}.wav`);
      const wav = readWav(readFileSync(file), file);
      return [phrase, resampleLinear(wav.samples, wav.sampleRate, AUDIO_SAMPLE_RATE)];
    }),
  );
}

/** The clip's sound, or null for a clip with no sound track. */
export function clipAudio(clip: VideoClip, speech: ReadonlyMap<string, Float32Array>): Float32Array | null {
  return clip.sound.track ? synthesizeClipAudio(clip, clip.sound.phrase ? (speech.get(clip.sound.phrase) ?? null) : null) : null;
}

/** The clip as the page would hand it to the worker: frames sampled evenly, and its sound. */
export function clipVideoInput(clip: VideoClip, speech: ReadonlyMap<string, Float32Array>): VideoInput {
  return {
    seconds: clip.seconds,
    frames: sampleTimes(clip.seconds).map((time) => ({ time, image: renderClipFrame(clip, time, 320, 240) })),
    audio: clipAudio(clip, speech),
  };
}
