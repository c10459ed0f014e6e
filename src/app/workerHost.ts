import { provideModelWorker } from '../shared/modelWorker';
import { modelActions } from '../shared/stores/modelStore';
import { noticeActions } from '../shared/stores/noticeStore';
import { WorkerClient } from '../protocol/client';
import type { WorkerAnnouncement, WorkerAnnouncementType } from '../protocol/protocol';
import { RestartBudget } from './restartBudget';
import './diagnostics';

const startWorker = () => new Worker(new URL('../worker/model.worker.ts', import.meta.url), { type: 'module', name: 'mmdialog-models' });

/** The single model worker of the page; the UI talks to it only through WorkerClient, and features reach it through shared/modelWorker. */
const workerClient = new WorkerClient(startWorker(), { now: () => performance.now(), every: (ms, tick) => void setInterval(tick, ms) });
provideModelWorker(workerClient);

/** What the worker announces on its own, outside any call, each to its store action: the compiler asks for a new announcement's. */
const announced: { [K in WorkerAnnouncementType]: (announcement: Extract<WorkerAnnouncement, { type: K }>) => void } = {
  backend: ({ backend }) => modelActions.backendChanged(backend),
  detector: ({ detector }) => modelActions.detectorChanged(detector),
  captioner: ({ captioner }) => modelActions.captionerChanged(captioner),
  localHeads: ({ packId, status }) => modelActions.localHeadsChanged(packId, status),
  poolRows: ({ status }) => modelActions.poolRowsChanged(status),
};
const listen = <K extends WorkerAnnouncementType>(type: K) => workerClient.onAnnouncement(type, announced[type]);
for (const type of Object.keys(announced) as WorkerAnnouncementType[]) listen(type);

/**
 * After a crash, a new worker takes over and `reinitialise` loads the same pack, pool and method into
 * it (the settings hold them); the conversation lives in the page's store and is untouched. More than
 * two crashes a minute stop the restarts and say what to do instead.
 */
export function restartWorkerAfterCrash(reinitialise: () => Promise<void>): void {
  const budget = new RestartBudget(2, 60_000);
  workerClient.onCrash((reason) => {
    if (!budget.allow(Date.now())) {
      modelActions.failed(
        `The model worker stopped again (${reason}): ${budget.limit + 1} times within a minute, so it is not restarted again. Your conversation is kept. Reload the page; if it stops again, tick "Run on WASM only (skip WebGPU)" in Settings or choose a smaller model pack.`,
      );
      return;
    }
    workerClient.restart(startWorker());
    noticeActions.notify('info', 'The model worker stopped and was restarted; your conversation is kept. The model is loading again.');
    void reinitialise();
  });
}

window.mmdialog = {
  encodeTexts: async (texts) => (await workerClient.call('encodeTexts', { texts })).embeddings,
  encodeImages: async (images, grounding) =>
    (await workerClient.call('encodeImages', { images: images.map((blob, i) => ({ name: `image ${i + 1}`, blob })), ...(grounding ? { grounding } : {}) }))
      .embeddings,
};
