/// <reference lib="webworker" />
import { WorkerModels } from './workerModels';
import type { WorkerEvent } from './protocol';
import { createRequestHandler } from './requestHandler';

declare const self: DedicatedWorkerGlobalScope;

/**
 * Warm-up steps wait for a second without a visitor's request: turns sent one after another, and a
 * sample prompt clicked at Ready, do not wait behind a step that makes a session (bench -- browser).
 */
const IDLE_QUIET_MS = 1000;

const handle = createRequestHandler(new WorkerModels(), (event: WorkerEvent) => self.postMessage(event), undefined, IDLE_QUIET_MS);
self.addEventListener('message', (message: MessageEvent<unknown>) => void handle(message.data));
