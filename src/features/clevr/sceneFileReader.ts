import { LatestCall } from '../../shared/latestCall';
import type { ClevrSceneFileEvent, ClevrSceneFileProgress, ClevrSceneFileRequest } from '../../protocol/protocol';

/** The reading was stopped because another file was chosen: nothing to tell the visitor. */
export class SceneFileSuperseded extends Error {}

/** The file being read now; choosing another stops it. */
const sceneFileReads = new LatestCall();

/**
 * Reads a CLEVR scene file in a worker of its own, so neither the page nor the model worker (and the chat
 * it answers) waits while a large file is parsed. A newer file stops the reading of an older one.
 * Resolves with each scene's JSON text; rejects with a sentence that says what happened.
 */
export function readSceneFileOffThePage(file: File, onProgress: (progress: ClevrSceneFileProgress) => void): Promise<string[]> {
  const signal = sceneFileReads.start();
  const worker = new Worker(new URL('../../worker/clevrSceneFile.worker.ts', import.meta.url), { type: 'module', name: 'clevr-scene-file' });
  return new Promise<string[]>((resolve, reject) => {
    const finish = () => {
      worker.terminate();
      sceneFileReads.finish(signal);
    };
    signal.addEventListener(
      'abort',
      () => {
        finish();
        reject(new SceneFileSuperseded(`Reading ${file.name} was stopped for another file.`));
      },
      { once: true },
    );
    worker.addEventListener('message', (message: MessageEvent<ClevrSceneFileEvent>) => {
      const event = message.data;
      if (event.type === 'progress') {
        onProgress(event.progress);
        return;
      }
      finish();
      if (event.type === 'scenes') resolve(event.scenes);
      else reject(new Error(event.message));
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      finish();
      // A worker dies without a message when the file's JSON does not fit in its memory.
      reject(
        new Error(
          `${file.name} could not be read: the reader stopped (${event.message || 'it ran out of memory'}). Split it into smaller scene files and load one.`,
        ),
      );
    });
    const request: ClevrSceneFileRequest = { type: 'read', file, name: file.name };
    worker.postMessage(request);
  });
}
