import { DETECTION_MIN_SCORE, groundedRetrievalText } from '../detection/groundedCaption';
import type { Box, DetectionResult } from '../detection/types';
import { captionImage } from '../response/captioner';
import type { EmbeddingMatrix } from '../retrieval/vectors';
import { type PhotoDescription, photoGrounding } from './photoAnalyzer';

/** One object the detector found in a photo; the box is in the photo's own pixels. */
export interface DetectedObject {
  /** The COCO class, e.g. "cup". */
  label: string;
  /** The detector's confidence, 0..1. */
  score: number;
  box: Box;
}

/** What the detector found in one photo, strongest first, with the photo's size the boxes refer to. */
export interface PhotoDetections {
  width: number;
  height: number;
  objects: DetectedObject[];
}

/** The caption of a shared photo, and where it came from. */
export interface PhotoCaption {
  imageId: string;
  /** One sentence: shown under the photo and used as its alt text. */
  text: string;
  /**
   * grounded: written from the object detector's boxes. image-encoder: the caption-bank sentence
   * nearest to the photo's CLIP embedding, used when there is no detector. captioner: a captioning
   * pack's model (transformers.js image-to-text); `replaced` then keeps the caption it stands in for.
   */
  source: 'grounded' | 'image-encoder' | 'captioner';
  /** With a captioner: the grounded (or image-encoder) caption, still shown in the Inspector for comparison. */
  replaced?: { text: string; source: 'grounded' | 'image-encoder' };
  /**
   * Whether the caption says what is in the photo, and so is the photo's text for the text-only
   * methods. False for a grounded caption that only says nothing was found with confidence.
   */
  confident: boolean;
  /** A grounded caption that only guesses at a weak detection ("Maybe a dog."): the page shows it as a guess. */
  hedged?: true;
  /** grounded: the main object's detection score (0 when not confident); image-encoder: the CLIP cosine of photo and caption. */
  score: number;
  /** What the detector found (null when the photo was described without it). */
  detections: PhotoDetections | null;
  /** The COCO class a confident grounded caption is about (its first object); absent otherwise. */
  mainObject?: string;
}

/**
 * Boxes sent to the page and kept with the conversation: those the grounded captioner reads (score
 * DETECTION_MIN_SCORE and up; weaker ones are noise on screen), at most this many, strongest first.
 */
const MAX_SHOWN_DETECTIONS = 20;

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;
/** Scores are cut, not rounded: a 0.4996 kept as 0.500 would look as if it had reached the caption's 0.5 bar. */
const roundDown = (value: number, decimals: number) => Math.floor(value * 10 ** decimals) / 10 ** decimals;

/** The detector's result as the page shows and stores it: small (boxes to 0.1 px, scores cut to 0.001). */
export function shownDetections(result: DetectionResult): PhotoDetections {
  return {
    width: result.width,
    height: result.height,
    objects: result.detections
      .filter((d) => d.score >= DETECTION_MIN_SCORE)
      .slice(0, MAX_SHOWN_DETECTIONS)
      .map((d) => ({
        label: d.label,
        score: roundDown(d.score, 3),
        box: { x1: round(d.box.x1, 1), y1: round(d.box.y1, 1), x2: round(d.box.x2, 1), y2: round(d.box.y2, 1) },
      })),
  };
}

/** A photo's caption and its text for the text-only methods (tf-idf, BM25). */
export interface CaptionedPhoto {
  caption: PhotoCaption;
  /** Empty when the caption only says nothing was found: that sentence must match no dialogue. */
  retrievalText: string;
}

/** The caption written from the detector's boxes (PhotoAnalyzer's description of the photo). */
export function groundedPhotoCaption(imageId: string, description: PhotoDescription): CaptionedPhoto {
  return {
    caption: {
      imageId,
      text: description.caption,
      source: 'grounded',
      confident: description.confident,
      ...(description.hedged ? { hedged: true as const } : {}),
      score: photoGrounding(description).score,
      detections: shownDetections(description.detections),
      ...(description.confident && description.mainObject ? { mainObject: description.mainObject } : {}),
    },
    retrievalText: groundedRetrievalText({
      text: description.caption,
      confident: description.confident,
      hedged: description.hedged,
      mentioned: [],
      scene: null,
    }),
  };
}

/**
 * A captioning model's sentence in place of the grounded one, which is kept beside it. It is the photo's
 * text for the text-only methods too: the model says what it saw, with no confidence to gate it.
 */
export function modelPhotoCaption(captioned: CaptionedPhoto, text: string): CaptionedPhoto {
  const { caption } = captioned;
  return {
    caption: {
      ...caption,
      text,
      source: 'captioner',
      confident: true,
      replaced: { text: caption.text, source: caption.source === 'captioner' ? 'grounded' : caption.source },
    },
    retrievalText: text,
  };
}

/** Without a detector: the caption-bank sentence nearest to the photo's unit CLIP embedding, as before the detector. */
export function imageEncoderCaption(imageId: string, embedding: Float32Array, bank: { bank: readonly string[]; matrix: EmbeddingMatrix }): CaptionedPhoto {
  const retrieved = captionImage(embedding, bank.bank, bank.matrix);
  return {
    caption: { imageId, text: retrieved.text, source: 'image-encoder', confident: true, score: retrieved.score, detections: null },
    retrievalText: retrieved.text,
  };
}
