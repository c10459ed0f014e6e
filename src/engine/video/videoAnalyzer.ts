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
  timings: { detectMs: number; encodeMs: number; audioMs: number; totalMs: number };
}

/** `signal` stops the analysis between its stages (frames, then sound): each stage is one model call that cannot be cut. */
export async function analyzeVideo(
  input: VideoInput,
  parts: { photos: PhotoAnalyzer | null; speech: SpeechDetector | null },
  signal?: AbortSignal,
): Promise<VideoAnalysis> {
  signal?.throwIfAborted();
  const start = nowMs();
  let detectMs = 0;
  let encodeMs = 0;
  let embedding: Float32Array | null = null;
  let detections: (DetectionResult | null)[] = input.frames.map(() => null);
  if (parts.photos) {
    const analyzed = await parts.photos.analyze(input.frames.map((f) => f.image));
    detectMs = analyzed.timings.detectMs + analyzed.timings.captionMs;
    encodeMs = analyzed.timings.encodeMs;
    detections = analyzed.photos.map((p) => p.description?.detections ?? null);
    const dim = analyzed.photos[0]?.embedding.length ?? 0;
    if (dim > 0) {
      const sum = new Float32Array(dim);
      for (const p of analyzed.photos) p.embedding.forEach((v, i) => (sum[i] = sum[i]! + v / analyzed.photos.length));
      embedding = sum;
    }
  }
  const frames: AnalyzedFrame[] = input.frames.map((f, i) => ({ time: f.time, blobs: colorBlobs(f.image), detections: detections[i]! }));
  signal?.throwIfAborted();
  const audioStart = nowMs();
  const speech = input.audio && parts.speech ? await parts.speech.speechProbabilities(input.audio) : [];
  signal?.throwIfAborted();
  const heard = audioFeatures(input.audio, speech);
  const audioMs = nowMs() - audioStart;
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
    timings: { detectMs, encodeMs, audioMs, totalMs: nowMs() - start },
  };
}
