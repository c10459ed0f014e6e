import type { WorkerClient } from '../protocol/client';

/**
 * The page's one model worker as the features reach it. app/workerHost.ts starts the worker and provides
 * it before anything renders, so features call modelWorker() without importing app/.
 */
let client: WorkerClient | null = null;

export function provideModelWorker(workerClient: WorkerClient): void {
  client = workerClient;
}

export function modelWorker(): WorkerClient {
  if (!client) throw new Error('The model worker has not been started: app/workerHost.ts provides it when the page starts.');
  return client;
}
