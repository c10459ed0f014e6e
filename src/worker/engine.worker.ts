/// <reference lib="webworker" />
import { BrowserEngine } from './browserEngine';
import type { WorkerEvent } from './protocol';
import { createRequestHandler } from './requestHandler';

declare const self: DedicatedWorkerGlobalScope;

const handle = createRequestHandler(new BrowserEngine(), (event: WorkerEvent) => self.postMessage(event));
self.addEventListener('message', (message: MessageEvent<unknown>) => void handle(message.data));
