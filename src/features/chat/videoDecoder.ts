import { type ContainerProbe, pictureTooLarge, probeWebm, videoCodecMime, videoCodecName, videoContainer } from '../../engine/video/videoContainer';
import { SAMPLED_FRAMES, sampleTimes } from '../../engine/video/videoFeatures';
import { VIDEO_SHEET_COLUMNS } from '../../shared/conversation';
import type { VideoPayload } from '../../protocol/protocol';

const MAX_VIDEO_BYTES = 100 * 1024 * 1024;
const MAX_VIDEO_SECONDS = 60;
/** Frames are handed to the worker at most this wide (the detector letterboxes to 512 anyway). */
const FRAME_WIDTH = 320;
const SHEET_FRAME_WIDTH = 160;
const AUDIO_RATE = 16000;
const METADATA_TIMEOUT_MS = 20_000;

export const VIDEO_ACCEPT = 'video/mp4,video/webm,video/quicktime,.mp4,.webm,.mov,.m4v';
const VIDEO_EXTENSIONS = /\.(mp4|m4v|webm|mov|mkv|avi|wmv|flv|3gp)$/i;
const AUDIO_EXTENSIONS = /\.(mp3|wav|ogg|oga|opus|m4a|aac|flac|weba)$/i;

/** A video that cannot be shared, with a sentence that says why and what to do. */
export class VideoInputError extends Error {}

export interface DecodedVideo {
  payload: VideoPayload;
  poster: Blob;
  /** The sampled frames side by side, for the Inspector. */
  sheet: Blob;
  width: number;
  height: number;
  seconds: number;
  hasAudio: boolean;
}

/** Files the chat treats as videos (and sound files, so they get the audio-only message rather than the photo one). */
export function isVideoLike(file: File): boolean {
  return file.type.startsWith('video/') || file.type.startsWith('audio/') || VIDEO_EXTENSIONS.test(file.name) || AUDIO_EXTENSIONS.test(file.name);
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(0)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function durationText(seconds: number): string {
  if (seconds < 90) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min ${Math.round(seconds % 60)} s`;
}

/** Whether the first bytes are a container a browser can read (MP4/MOV "ftyp", or WebM/Matroska's EBML header). */
async function containerOf(file: File): Promise<'mp4' | 'webm' | null> {
  return videoContainer(new Uint8Array(await file.slice(0, 12).arrayBuffer()));
}

/** How much of a WebM file its structure is read from: the header, the tracks and the first cluster sit well inside it. */
const PROBE_BYTES = 4 * 1024 * 1024;

/** What the container's own structure says (WebM only; MP4/MOV is left to the browser), or null. */
async function probeOf(file: File, container: 'mp4' | 'webm' | null): Promise<ContainerProbe | null> {
  if (container !== 'webm') return null;
  try {
    return probeWebm(new Uint8Array(await file.slice(0, PROBE_BYTES).arrayBuffer()), file.size);
  } catch {
    return null;
  }
}

/**
 * The sentence for a video the browser could not open, or whose picture it could not show, by what
 * the container says: damaged first (a broken structure), then a picture too large to decode, then a
 * codec this browser plays (so the frames themselves are damaged), then a codec it does not play.
 */
function undecodableVideo(name: string, container: 'mp4' | 'webm', probe: ContainerProbe | null, video: HTMLVideoElement): string {
  if (probe?.damage) return `${name} is damaged: ${probe.damage}. Copy or export it again from where it was recorded, then share the new file.`;
  const track = probe?.video;
  if (track && pictureTooLarge(track.width, track.height)) {
    return `${name} cannot be decoded: its file says the picture is ${track.width} × ${track.height} pixels, larger than this browser can decode (up to 4K, 3840 × 2160, is safe). Export it at a normal size (1080p, for example) and share it again.`;
  }
  const mime = track ? videoCodecMime(track.codec) : null;
  if (track && mime && video.canPlayType(mime) !== '') {
    return `${name} could not be decoded, though its codec (${videoCodecName(track.codec)}) is one this browser plays: its frames are damaged. Export it again and share the new file.`;
  }
  const codec = track ? `its video codec (${videoCodecName(track.codec)})` : 'its video codec (HEVC/H.265 from a phone, for example)';
  return `This browser cannot decode ${name}: it is ${container === 'mp4' ? 'an MP4/MOV' : 'a WebM'} file, but ${codec} is not one this browser plays, or the file is damaged. Export it as MP4 (H.264) or WebM (VP9) and share it again.`;
}

/** The longest wait for a seeked frame to be presented, where the browser does not say it was. */
const FRAME_WAIT_MS = 200;

/**
 * Resolves once the video presents its next frame (requestVideoFrameCallback), or after FRAME_WAIT_MS.
 * Asked before a seek: drawn at 'seeked' alone, a loaded machine sometimes gave the frame before the
 * seek (a clip's square missing from its first sample in e2e/video.spec.ts).
 */
function nextFramePresented(video: HTMLVideoElement): Promise<void> {
  if (typeof video.requestVideoFrameCallback !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FRAME_WAIT_MS);
    video.requestVideoFrameCallback(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function once(target: EventTarget, ok: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (f: () => void) => {
      clearTimeout(timer);
      target.removeEventListener(ok, onOk);
      target.removeEventListener('error', onError);
      f();
    };
    const onOk = () => done(resolve);
    const onError = () => done(() => reject(new Error('error')));
    const timer = setTimeout(() => done(() => reject(new Error('timeout'))), timeoutMs);
    target.addEventListener(ok, onOk);
    target.addEventListener('error', onError);
  });
}

/** WebM files written by MediaRecorder often say their duration is Infinity until the end has been seen. */
async function knownDuration(video: HTMLVideoElement): Promise<number> {
  if (Number.isFinite(video.duration)) return video.duration;
  video.currentTime = 1e7;
  await once(video, 'seeked', METADATA_TIMEOUT_MS).catch(() => undefined);
  const duration = video.duration;
  video.currentTime = 0;
  return duration;
}

/**
 * Decodes a video in the page with the browser's own decoders: a <video> element seeks to each sample
 * time and the frame is drawn to a canvas (each seek is asynchronous, so the page never stalls), and
 * WebAudio's decodeAudioData (which decodes off the main thread) reads the sound at 16 kHz.
 * `onAudio` gets the sound as soon as it is decoded, before the last frame.
 * Throws VideoInputError with a sentence for the person when the file cannot be shared.
 */
export async function decodeVideo(file: File, options: { onAudio?: (audio: Float32Array) => void } = {}): Promise<DecodedVideo> {
  const name = file.name || 'the video';
  if (file.size === 0) throw new VideoInputError(`${name} is empty (0 bytes), so there is nothing to watch. Share the video again from where it is saved.`);
  if (file.size > MAX_VIDEO_BYTES)
    throw new VideoInputError(
      `${name} is ${sizeText(file.size)}, over the ${MAX_VIDEO_BYTES / 1024 / 1024} MB a shared video may be. Trim it or export it at a lower quality, then share it again.`,
    );
  if (file.type.startsWith('audio/') || AUDIO_EXTENSIONS.test(file.name)) {
    throw new VideoInputError(`${name} is a sound file with no picture. Share a video (MP4, WebM or MOV) or a photo instead.`);
  }
  const container = await containerOf(file);
  const probe = await probeOf(file, container);
  // A broken structure is said at once: the browser would stall on it (a seek waits its full timeout) or blame the codec.
  if (container && probe?.damage) throw new VideoInputError(undecodableVideo(name, container, probe, document.createElement('video')));
  const url = URL.createObjectURL(file);
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  video.playsInline = true;
  try {
    video.src = url;
    try {
      await once(video, 'loadeddata', METADATA_TIMEOUT_MS);
    } catch (error) {
      const timedOut = error instanceof Error && error.message === 'timeout';
      if (container) {
        throw new VideoInputError(
          timedOut && !probe?.damage
            ? `${name} did not open within ${METADATA_TIMEOUT_MS / 1000} s, so it was not shared. Try a shorter video, or export it as MP4 (H.264) or WebM.`
            : undecodableVideo(name, container, probe, video),
        );
      }
      throw new VideoInputError(`${name} could not be opened as a video: it is damaged or not a video file. Share an MP4, WebM or MOV video.`);
    }
    if (video.videoWidth === 0 || video.videoHeight === 0) {
      // A picture the container declares but the browser could not show is not "no picture".
      if (container && probe?.video) throw new VideoInputError(undecodableVideo(name, container, probe, video));
      throw new VideoInputError(`${name} has sound but no picture. Share a video (MP4, WebM or MOV) or a photo instead.`);
    }
    const seconds = await knownDuration(video);
    if (!Number.isFinite(seconds) || seconds < 0.1)
      throw new VideoInputError(`${name} is 0 seconds long, so there is nothing to watch. Share a video that plays.`);
    if (seconds > MAX_VIDEO_SECONDS)
      throw new VideoInputError(
        `${name} is ${durationText(seconds)} long; a shared video may be up to ${MAX_VIDEO_SECONDS} s. Trim it to the moment you want to talk about and share that.`,
      );

    const width = Math.min(FRAME_WIDTH, video.videoWidth);
    const height = Math.max(1, Math.round((video.videoHeight * width) / video.videoWidth));
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    const sheetHeight = Math.round((height * SHEET_FRAME_WIDTH) / width);
    const sheet = document.createElement('canvas');
    sheet.width = SHEET_FRAME_WIDTH * VIDEO_SHEET_COLUMNS;
    sheet.height = sheetHeight * Math.ceil(SAMPLED_FRAMES / VIDEO_SHEET_COLUMNS);
    const sheetContext = sheet.getContext('2d')!;
    // The sound decodes off the main thread while the frames are sought (it was read after the last frame).
    const audioRead = decodeAudio(file);
    void audioRead.then((audio) => audio && options.onAudio?.(audio));
    audioRead.catch(() => undefined);
    const frames: VideoPayload['frames'] = [];
    let poster: Blob | null = null;
    for (const [i, time] of sampleTimes(seconds).entries()) {
      const presented = nextFramePresented(video);
      video.currentTime = time;
      await once(video, 'seeked', METADATA_TIMEOUT_MS).catch(() => {
        throw new VideoInputError(`${name} stopped decoding at ${time.toFixed(1)} s: the file is damaged. Export it again and share the new file.`);
      });
      await presented;
      context.drawImage(video, 0, 0, width, height);
      frames.push({ time, width, height, pixels: context.getImageData(0, 0, width, height).data });
      sheetContext.drawImage(
        canvas,
        (i % VIDEO_SHEET_COLUMNS) * SHEET_FRAME_WIDTH,
        Math.floor(i / VIDEO_SHEET_COLUMNS) * sheetHeight,
        SHEET_FRAME_WIDTH,
        sheetHeight,
      );
      if (i === 0) poster = await canvasBlob(canvas);
    }
    const audio = await audioRead;
    return {
      payload: { seconds, frames, audio },
      poster: poster!,
      sheet: await canvasBlob(sheet),
      width: video.videoWidth,
      height: video.videoHeight,
      seconds,
      hasAudio: audio !== null,
    };
  } finally {
    video.removeAttribute('src');
    video.load();
    URL.revokeObjectURL(url);
  }
}

function canvasBlob(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The frame could not be encoded.'))), 'image/jpeg', 0.85));
}

/** The sound track at 16 kHz mono, or null when the file has none (decodeAudioData then rejects). */
async function decodeAudio(file: File): Promise<Float32Array | null> {
  const context = new OfflineAudioContext(1, 1, AUDIO_RATE);
  let buffer: AudioBuffer;
  try {
    buffer = await context.decodeAudioData(await file.arrayBuffer());
  } catch {
    return null;
  }
  if (buffer.length === 0) return null;
  const mono = new Float32Array(buffer.length);
  for (let c = 0; c < buffer.numberOfChannels; c++) {
    const channel = buffer.getChannelData(c);
    for (let i = 0; i < mono.length; i++) mono[i] = mono[i]! + channel[i]! / buffer.numberOfChannels;
  }
  return mono;
}
