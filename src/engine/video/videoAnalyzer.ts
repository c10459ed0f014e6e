/**
 * The one way the app understands a video, in the worker and the benchmark: each sampled frame goes
 * through the photo path (object detector and image tower) and the coloured-blob finder, the sound
 * through Silero VAD and the audio features, and all of it becomes the description and the features
 * the answer rankers read.
 */
import { nowMs } from '../clock';
import type { DetectionResult } from '../detection/types';
import type { RgbaImage } from '../image/rgbaImage';
import type { PhotoAnalyzer } from '../perception/photoAnalyzer';
import { type AudioTimeline, FLATNESS_FEATURE, audioFeatures } from './audioFeatures';
import { type ShownInVideo, shownInVideo } from './shownInVideo';
import type { SpeechDetector } from './speechDetector';
import { confidentLabels, describeVideo } from './videoDescription';
import { type ColorBlob, colorBlobs, videoFeatures } from './videoFeatures';
import { sceneKeyFrames } from './sceneFrames';

export interface VideoInput {
  seconds: number;
  /** The sampled frames, in time order. */
  frames: readonly { time: number; image: RgbaImage }[];
  /** 16 kHz mono, or null when the video has no sound track. */
  audio: Float32Array | null;
}

interface AnalyzedFrame {
  time: number;
  blobs: ColorBlob[];
  /** Null without a detector. */
  detections: DetectionResult | null;
}

export interface VideoAnalysis {
  description: string;
  /** Whether it is drawn shapes, and for a real video the answer to "what is in it". */
  shown: ShownInVideo;
  video: Float32Array;
  audio: Float32Array;
  /** Null when there is no sound track. */
  timeline: AudioTimeline | null;
  frames: AnalyzedFrame[];
  /** The mean of the frames' image embeddings (raw image_embeds), the video's context for replies; null without a tower. */
  embedding: Float32Array | null;
  /** False when the voice-activity model was unavailable, so speech was not looked for. */
  speechChecked: boolean;
  /** audioMs overlaps the frames' time: the sound is read beside them. analysedFrames went through the photo path. */
  timings: { detectMs: number; encodeMs: number; audioMs: number; totalMs: number; analysedFrames: number };
}

/**
 * `signal` stops the analysis between its stages (frames, then sound): each stage is one model call that cannot be cut.
 * Frames of one scene share one photo-path analysis (sceneFrames.ts); the blobs are found in every frame.
 */
export async function analyzeVideo(
  input: VideoInput,
  parts: {
    photos: PhotoAnalyzer | null;
    speech: SpeechDetector | null;
    /** Speech probabilities already being found for input.audio (the sound sent ahead while the frames decoded). */
    heard?: Promise<number[]>;
  },
  signal?: AbortSignal,
  /** everyFrame: every frame through the photo path, as before scene choice; only for `bench -- video-scenes`, which measures what the choice changes. */
  options: { everyFrame?: boolean } = {},
): Promise<VideoAnalysis> {
  signal?.throwIfAborted();
  const start = nowMs();
  let detectMs = 0;
  let encodeMs = 0;
  let embedding: Float32Array | null = null;
  let detections: (DetectionResult | null)[] = input.frames.map(() => null);
  // The sound is read beside the frames: its model waits on its own runs, not behind the detector's.
  const audioStart = nowMs();
  let audioMs = 0;
  const speechRead = (parts.heard ?? (input.audio && parts.speech ? parts.speech.speechProbabilities(input.audio) : Promise.resolve([]))).finally(
    () => (audioMs = nowMs() - audioStart),
  );
  // A failed photo path must not leave the sound's promise unhandled.
  speechRead.catch(() => undefined);
  let analysedFrames = 0;
  if (parts.photos) {
    // Only frames that show a new scene go through the detector and the tower; the others take their scene's analysis.
    const sceneOf = options.everyFrame ? input.frames.map((_, i) => i) : sceneKeyFrames(input.frames.map((f) => f.image));
    const keys = [...new Set(sceneOf)];
    analysedFrames = keys.length;
    const analyzed = await parts.photos.analyze(keys.map((k) => input.frames[k]!.image));
    detectMs = analyzed.timings.detectMs + analyzed.timings.captionMs;
    encodeMs = analyzed.timings.encodeMs;
    const photoOf = (frame: number) => analyzed.photos[keys.indexOf(sceneOf[frame]!)]!;
    detections = input.frames.map((_, i) => photoOf(i).description?.detections ?? null);
    const dim = analyzed.photos[0]?.embedding.length ?? 0;
    if (dim > 0) {
      const sum = new Float32Array(dim);
      input.frames.forEach((_, f) => photoOf(f).embedding.forEach((v, i) => (sum[i] = sum[i]! + v / input.frames.length)));
      embedding = sum;
    }
  }
  const frames: AnalyzedFrame[] = input.frames.map((f, i) => ({ time: f.time, blobs: colorBlobs(f.image), detections: detections[i]! }));
  signal?.throwIfAborted();
  const speech = await speechRead;
  signal?.throwIfAborted();
  const heard = audioFeatures(input.audio, speech);
  const timeline = input.audio ? heard.timeline : null;
  const description = describeVideo(
    frames.map((f) => ({ blobs: f.blobs, objects: confidentLabels(f.detections?.detections ?? []) })),
    timeline,
    input.audio ? heard.features[FLATNESS_FEATURE]! : null,
  );
  return {
    description,
    shown: shownInVideo(frames),
    video: videoFeatures(frames.map((f) => f.blobs)),
    audio: heard.features,
    timeline,
    frames,
    embedding,
    speechChecked: parts.speech !== null,
    timings: { detectMs, encodeMs, audioMs, totalMs: nowMs() - start, analysedFrames },
  };
}
