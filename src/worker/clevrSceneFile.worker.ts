/// <reference lib="webworker" />
import { errorMessage } from '../engine/errors';
import { readClevrSceneFile } from './clevrSceneFile';
import type { ClevrSceneFileEvent, ClevrSceneFileRequest } from '../protocol/protocol';

declare const self: DedicatedWorkerGlobalScope;

/** One file a worker: the page starts one per file and ends it after, which frees the file's memory at once. */
const post = (event: ClevrSceneFileEvent) => self.postMessage(event);

self.addEventListener('message', (message: MessageEvent<ClevrSceneFileRequest>) => {
  const { file, name } = message.data;
  readClevrSceneFile(file, name, (progress) => post({ type: 'progress', progress })).then(
    (scenes) => post({ type: 'scenes', scenes }),
    (error: unknown) => post({ type: 'error', message: errorMessage(error) }),
  );
});
