import type { Modality } from '../metrics/dialogMetrics';
import type { EmbeddingMatrix } from '../retrieval/vectors';
import type { LexicalCounts } from '../ranking/lexical';

export type { Modality };

/** What the intent module predicts before each step (MMDialog eq. 4): 0 text, 1 image, 2 stop. */
export type Intent = Modality | 'stop';
export const INTENTS: readonly Intent[] = ['text', 'image', 'stop'];

/** One element of the dialogue so far, with its unit CLIP embedding; images carry a caption for text-only methods. */
export interface ContextElement {
  kind: Modality;
  embedding: Float32Array;
  /** The text of a text element, the caption of an image. */
  text: string;
  /** A shared photo's main object, as its confident grounded caption names it (a COCO class); absent otherwise. */
  mainObject?: string;
}

export interface ContextTurn {
  /** 0 for the first speaker, 1 for the second: turns alternate. */
  speaker: 0 | 1;
  elements: ContextElement[];
}

/** The dialogue context U and the response built so far R<j. */
export interface ResponseState {
  turns: readonly ContextTurn[];
  partial: readonly ContextElement[];
}

/**
 * The candidates a response is built from: texts and images, each with its unit CLIP embedding in
 * one matrix per modality, and images with a caption for the text-only methods.
 */
export interface CandidatePool {
  texts: readonly string[];
  textMatrix: EmbeddingMatrix;
  imageKeys: readonly string[];
  imageCaptions: readonly string[];
  imageMatrix: EmbeddingMatrix;
  /**
   * The BM25 counts of `texts`, made ahead of time (the demo pool ships them, `npm run pool:index`):
   * the lexical rankers read them instead of counting 65k texts before the first reply.
   */
  textCounts?: LexicalCounts;
}

/** A candidate given by content rather than by pool row (a reference response or a negative in evaluation). */
export interface CandidateItem {
  embedding: Float32Array;
  text: string;
}

export function poolMatrix(pool: CandidatePool, modality: Modality): EmbeddingMatrix {
  return modality === 'text' ? pool.textMatrix : pool.imageMatrix;
}

export function poolSize(pool: CandidatePool, modality: Modality): number {
  return modality === 'text' ? pool.texts.length : pool.imageKeys.length;
}

/** Every response method's id, simplest first (the order of benchmark tables and of Settings); methods.ts has their table. */
export const RESPONSE_METHOD_IDS = ['random', 'tfidf', 'bm25', 'lookup', 'clip-sim', 'clip-map', 'depp', 'chat-encoder', 'context-match', 'hybrid'] as const;
export type ResponseMethodId = (typeof RESPONSE_METHOD_IDS)[number];
/** What ranks: a method, or a part the hybrid fuses that is no method of its own. */
export type RankerId = ResponseMethodId | 'question-answer' | 'lexical-context-match';
