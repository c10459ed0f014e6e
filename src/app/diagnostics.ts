/** Diagnostics the page exposes for the end-to-end tests and curious presenters: raw CLIP embeddings. */
export interface MmdialogDiagnostics {
  encodeTexts(texts: string[]): Promise<number[][]>;
  encodeImages(images: Blob[]): Promise<number[][]>;
}

declare global {
  interface Window {
    mmdialog?: MmdialogDiagnostics;
  }
}
