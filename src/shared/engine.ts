import type { EngineClient } from '../worker/client';

/**
 * The page's one model worker as the features reach it. app/engine.ts starts the worker and provides
 * it before anything renders, so features call engine() without importing app/.
 */
let client: EngineClient | null = null;

export function provideEngine(engineClient: EngineClient): void {
  client = engineClient;
}

export function engine(): EngineClient {
  if (!client) throw new Error('The model worker has not been started: app/engine.ts provides it when the page starts.');
  return client;
}
