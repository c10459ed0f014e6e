import type { ClipEncoder, ImageGrounding } from '../clip/clipEncoder';
import { nowMs } from '../clock';
import { type GroundedCaption, GROUNDED_CAPTION_VERSION, groundedCaption } from '../detection/groundedCaption';
import type { ObjectDetector } from '../detection/objectDetector';
import type { DetectionResult } from '../detection/types';
import type { RgbaImage } from '../image/rgbaImage';
import { hashText } from '../pool/contentHash';
import type { PoolEncoder } from '../pool/poolEmbeddings';

/** What the app says about a shared photo: its grounded caption and the boxes behind it. */
export interface PhotoDescription {
  /** Shown under the photo, used as its alt text and as its text for the text-only methods. */
  caption: string;
  /** False when nothing was found with confidence (the caption then says so). */
  confident: boolean;
  /** The COCO class the caption is about (its first object), or null when it names none. */
  mainObject: string | null;
  detections: DetectionResult;
}

export interface AnalyzedPhoto {
  /** Raw image_embeds (not normalized). */
  embedding: Float32Array;
  /** Null when the detector is unavailable: the photo is known by its image embedding alone. */
  description: PhotoDescription | null;
}

export interface PhotoTimings {
  detectMs: number;
  captionMs: number;
  encodeMs: number;
}

/** Detection, then the grounded caption of what was found. */
export async function describePhoto(detector: ObjectDetector, image: RgbaImage): Promise<{ description: PhotoDescription; detectMs: number; captionMs: number }> {
  const start = nowMs();
  const { timings: _, ...detections } = await detector.detect(image);
  const detected = nowMs();
  const caption: GroundedCaption = groundedCaption(detections);
  return { description: { caption: caption.text, confident: caption.confident, mainObject: caption.mentioned[0]?.label ?? null, detections }, detectMs: detected - start, captionMs: nowMs() - detected };
}

/** What an image tower that takes grounding is fed: the caption when it is confident, and the strongest score. */
export function photoGrounding(description: PhotoDescription | null): ImageGrounding {
  if (!description?.confident) return { caption: null, score: 0 };
  return { caption: description.caption, score: description.detections.detections[0]?.score ?? 0 };
}

/**
 * The one way the app understands a photo, in the worker, the benchmarks and the pool builder: the
 * object detector finds what is in it, the grounded captioner says it in a sentence, and the image
 * tower embeds it (fed that evidence when it takes it, as mini-clip v2 does). Without a detector the
 * photo still gets its image embedding; the caller then says so.
 */
export class PhotoAnalyzer implements PoolEncoder {
  /** Embeddings of a tower that takes grounding depend on the detector and the captioner too. */
  readonly fingerprint: string;

  constructor(
    readonly encoder: ClipEncoder,
    readonly detector: ObjectDetector | null,
  ) {
    this.fingerprint = encoder.takesGrounding
      ? hashText(JSON.stringify([encoder.fingerprint, detector?.fingerprint ?? 'no detector', GROUNDED_CAPTION_VERSION]))
      : encoder.fingerprint;
  }

  encodeTexts(texts: readonly string[]): Promise<Float32Array[]> {
    return this.encoder.encodeTexts(texts);
  }

  /** Embeddings only: a tower that does not take grounding is not worth a detector run here. */
  async encodeImages(images: readonly RgbaImage[]): Promise<Float32Array[]> {
    if (!this.encoder.takesGrounding) return this.encoder.encodeImages(images);
    return (await this.analyze(images)).photos.map((p) => p.embedding);
  }

  async analyze(images: readonly RgbaImage[]): Promise<{ photos: AnalyzedPhoto[]; timings: PhotoTimings }> {
    const timings: PhotoTimings = { detectMs: 0, captionMs: 0, encodeMs: 0 };
    const descriptions: (PhotoDescription | null)[] = [];
    for (const image of images) {
      if (!this.detector) {
        descriptions.push(null);
        continue;
      }
      const described = await describePhoto(this.detector, image);
      timings.detectMs += described.detectMs;
      timings.captionMs += described.captionMs;
      descriptions.push(described.description);
    }
    const start = nowMs();
    const grounding = descriptions.map(photoGrounding);
    const embeddings = await this.encoder.encodeImages(images, grounding);
    timings.encodeMs = nowMs() - start;
    return { photos: embeddings.map((embedding, i) => ({ embedding, description: descriptions[i]! })), timings };
  }
}
