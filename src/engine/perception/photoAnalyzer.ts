import type { ClipEncoder, ImageGrounding } from '../clip/clipEncoder';
import { nowMs } from '../clock';
import { type CaptionThresholds, type GroundedCaption, GROUNDED_CAPTION_VERSION, groundedCaption } from '../detection/groundedCaption';
import type { PhotoDetector } from '../detection/detectorEnsemble';
import type { DetectionResult } from '../detection/types';
import type { RgbaImage } from '../image/rgbaImage';
import { hashText } from '../pool/contentHash';
import type { PoolEncoder } from '../pool/poolEmbeddings';
import { ZERO_SHOT_PROMPTS, zeroShotRanks } from './zeroShotLabels';

/** What the app says about a shared photo: its grounded caption and the boxes behind it. */
export interface PhotoDescription {
  /** Shown under the photo, used as its alt text and as its text for the text-only methods. */
  caption: string;
  /** False when nothing was found with confidence (the caption then says so, or hedges). */
  confident: boolean;
  /** The caption only guesses at a weak detection: "Maybe a dog." */
  hedged: boolean;
  /** The caption names a weak detection that the image tower's zero-shot vote confirmed. */
  confirmedByVote: boolean;
  /** The COCO class the caption is about (its first object, hedged or not), or null when it names none. */
  mainObject: string | null;
  detections: DetectionResult;
}

export interface AnalyzedPhoto {
  /** Raw image_embeds (not normalized). */
  embedding: Float32Array;
  /** Null when the detector is unavailable: the photo is known by its image embedding alone. */
  description: PhotoDescription | null;
  /** The image tower's zero-shot rank of each COCO label, when the caption was put to its vote; else null. */
  zeroShotRanks: ReadonlyMap<string, number> | null;
}

export interface PhotoTimings {
  detectMs: number;
  captionMs: number;
  encodeMs: number;
}

/** The description of a photo from its detections and its caption. */
export function photoDescription(detections: DetectionResult, caption: GroundedCaption, confirmedByVote: boolean): PhotoDescription {
  return {
    caption: caption.text,
    confident: caption.confident,
    hedged: caption.hedged,
    confirmedByVote,
    mainObject: caption.mentioned[0]?.label ?? null,
    detections,
  };
}

/**
 * How high the image tower's zero-shot vote must rank a hedged label for the two to agree: its first
 * choice among the 80 COCO names. The strictest agreement there is, and not tuned: the photos the
 * caption bars were chosen on are not in this checkout (docs/models.md), and coco-mini chooses nothing.
 */
const AGREEING_RANK = 1;

/**
 * The object a reply's words may be steered towards (a text naming it preferred): what a confident
 * caption is about, or a hedged one's object ("Maybe a cat.") when the tower's vote ranks it first too.
 */
export function steeringObject(photo: AnalyzedPhoto): string | null {
  const description = photo.description;
  if (!description?.mainObject) return null;
  if (description.confident) return description.mainObject;
  const rank = photo.zeroShotRanks?.get(description.mainObject);
  return description.hedged && rank !== undefined && rank <= AGREEING_RANK ? description.mainObject : null;
}

/** Detection, then the grounded caption of what was found (without the image tower's vote). */
export async function describePhoto(
  detector: PhotoDetector,
  image: RgbaImage,
): Promise<{ description: PhotoDescription; detectMs: number; captionMs: number }> {
  const start = nowMs();
  const { timings: _, ...detections } = await detector.detect(image);
  const detected = nowMs();
  const caption: GroundedCaption = groundedCaption(detections);
  return { description: photoDescription(detections, caption, false), detectMs: detected - start, captionMs: nowMs() - detected };
}

/**
 * What an image tower that takes grounding is fed: the caption when the detector alone is sure of it,
 * and the strongest score. Hedged and vote-confirmed captions are not fed: the tower learnt its
 * fusion from confident detections only, and feeding tentative ones did not help (docs/models.md).
 */
export function photoGrounding(description: PhotoDescription | null): ImageGrounding {
  if (!description?.confident || description.confirmedByVote) return { caption: null, score: 0 };
  return { caption: description.caption, score: description.detections.detections[0]?.score ?? 0 };
}

/**
 * The one way the app understands a photo, in the worker, the benchmarks and the pool builder: the
 * object detector finds what is in it, the grounded captioner says it in a sentence, and the image
 * tower embeds it (fed that evidence when it takes it, as mini-clip v2 does). When the detector is
 * not sure of anything, the tower's embedding of the pixels alone, which the photo gets then anyway,
 * votes on the weak detections over the 80 COCO names, and the caption names, hedges or drops them.
 * Without a detector the photo still gets its image embedding; the caller then says so.
 */
export class PhotoAnalyzer implements PoolEncoder {
  /** Embeddings of a tower that takes grounding depend on the detector and the captioner too. */
  readonly fingerprint: string;

  constructor(
    readonly encoder: ClipEncoder,
    readonly detector: PhotoDetector | null,
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

  /** The tower's text embeddings of the 80 label prompts, computed once. */
  private promptEmbeddings: Promise<Float32Array[]> | null = null;

  private labelPrompts(): Promise<Float32Array[]> {
    this.promptEmbeddings ??= this.encoder.encodeTexts(ZERO_SHOT_PROMPTS).catch((error: unknown) => {
      this.promptEmbeddings = null;
      throw error;
    });
    return this.promptEmbeddings;
  }

  /**
   * `thresholds` only for the sweep that chooses them (`bench -- caption-thresholds`); the app uses the
   * defaults of groundedCaption.
   */
  async analyze(images: readonly RgbaImage[], options: { thresholds?: CaptionThresholds } = {}): Promise<{ photos: AnalyzedPhoto[]; timings: PhotoTimings }> {
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
    const photos: AnalyzedPhoto[] = [];
    for (const [i, embedding] of embeddings.entries()) {
      const description = descriptions[i]!;
      // Not confident: the tower saw the pixels alone (grounding null), so its embedding is free to vote with.
      if (!description || description.confident) {
        photos.push({ embedding, description, zeroShotRanks: null });
        continue;
      }
      const voteStart = nowMs();
      const ranks = zeroShotRanks(embedding, await this.labelPrompts());
      const caption = groundedCaption(description.detections, { zeroShotRanks: ranks, ...(options.thresholds ? { thresholds: options.thresholds } : {}) });
      photos.push({ embedding, description: photoDescription(description.detections, caption, caption.confident), zeroShotRanks: ranks });
      timings.captionMs += nowMs() - voteStart;
    }
    return { photos, timings };
  }
}
