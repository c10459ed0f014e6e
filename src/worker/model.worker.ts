/// <reference lib="webworker" />
import { WorkerModels } from './workerModels';
import type { WorkerEvent } from './protocol';
import { createRequestHandler } from './requestHandler';

declare const self: DedicatedWorkerGlobalScope;

const handle = createRequestHandler(new WorkerModels(), (event: WorkerEvent) => self.postMessage(event));
self.addEventListener('message', (message: MessageEvent<unknown>) => void handle(message.data));
