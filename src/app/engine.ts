import { EngineClient } from '../worker/client';
import './diagnostics';

/** The single model worker of the page; the UI talks to it only through EngineClient. */
export const engine = new EngineClient(new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module', name: 'mmdialog-engine' }));

window.mmdialog = {
  encodeTexts: async (texts) => (await engine.call('encodeTexts', { texts })).embeddings,
  encodeImages: async (images) => (await engine.call('encodeImages', { images: images.map((blob, i) => ({ name: `image ${i + 1}`, blob })) })).embeddings,
};
