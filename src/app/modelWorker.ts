import { provideModelWorker } from '../shared/modelWorker';
import { modelActions } from '../shared/stores/modelStore';
import { WorkerClient } from '../worker/client';
import './diagnostics';

/** The single model worker of the page; the UI talks to it only through WorkerClient, and features reach it through shared/modelWorker. */
const workerClient = new WorkerClient(new Worker(new URL('../worker/model.worker.ts', import.meta.url), { type: 'module', name: 'mmdialog-models' }));
provideModelWorker(workerClient);

// What the worker announces on its own, outside any call: a move to WASM, a change in the detector.
workerClient.onBackendChange((backend) => modelActions.backendChanged(backend));
workerClient.onDetectorChange((detector) => modelActions.detectorChanged(detector));
workerClient.onLocalHeadsChange((packId, status) => modelActions.localHeadsChanged(packId, status));
workerClient.onCaptionerChange((captioner) => modelActions.captionerChanged(captioner));
workerClient.onPoolRowsChange((status) => modelActions.poolRowsChanged(status));

window.mmdialog = {
  encodeTexts: async (texts) => (await workerClient.call('encodeTexts', { texts })).embeddings,
  encodeImages: async (images, grounding) =>
    (await workerClient.call('encodeImages', { images: images.map((blob, i) => ({ name: `image ${i + 1}`, blob })), ...(grounding ? { grounding } : {}) }))
      .embeddings,
};
