import type { ImageGrounding } from '../engine/clip/clipEncoder';

/** Diagnostics the page exposes for the end-to-end tests and curious presenters: raw CLIP embeddings. */
interface MmdialogDiagnostics {
  encodeTexts(texts: string[]): Promise<number[][]>;
  /** grounding: what an image tower that takes it is fed instead of the detector's caption. */
  encodeImages(images: Blob[], grounding?: ImageGrounding[]): Promise<number[][]>;
}

declare global {
  interface Window {
    mmdialog?: MmdialogDiagnostics;
  }
}
