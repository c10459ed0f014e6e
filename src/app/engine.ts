import { provideEngine } from '../shared/engine';
import { modelActions } from '../shared/stores/modelStore';
import { EngineClient } from '../worker/client';
import './diagnostics';

/** The single model worker of the page; the UI talks to it only through EngineClient, and features reach it through shared/engine. */
export const engine = new EngineClient(new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module', name: 'mmdialog-engine' }));
provideEngine(engine);

// What the worker announces on its own, outside any call: a move to WASM, a change in the detector.
engine.onBackendChange((backend) => modelActions.backendChanged(backend));
engine.onDetectorChange((detector) => modelActions.detectorChanged(detector));
engine.onLocalHeadsChange((packId, status) => modelActions.localHeadsChanged(packId, status));
engine.onCaptionerChange((captioner) => modelActions.captionerChanged(captioner));
engine.onPoolRowsChange((status) => modelActions.poolRowsChanged(status));

window.mmdialog = {
  encodeTexts: async (texts) => (await engine.call('encodeTexts', { texts })).embeddings,
  encodeImages: async (images, grounding) => (await engine.call('encodeImages', { images: images.map((blob, i) => ({ name: `image ${i + 1}`, blob })), ...(grounding ? { grounding } : {}) })).embeddings,
};
