import { EngineClient } from '../worker/client';

/** The single model worker of the page; the UI talks to it only through EngineClient. */
export const engine = new EngineClient(new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module', name: 'mmdialog-engine' }));

declare global {
  interface Window {
    /** Diagnostics for the end-to-end tests and curious presenters: raw CLIP text embeddings. */
    mmdialog?: { encodeTexts(texts: string[]): Promise<number[][]> };
  }
}

window.mmdialog = {
  encodeTexts: async (texts) => (await engine.call('encodeTexts', { texts })).embeddings,
};
