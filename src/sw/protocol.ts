/**
 * Messages between the page and the service worker. The page asks over a MessageChannel (one port
 * per request, so replies need no ids); the worker announces install progress to every window.
 */
import type { RuntimeBuild } from '../engine/onnx/executionPlan';
import type { OfflineFailure } from './offlineCache';

/** Page → service worker. `cache-pack` comes with a MessagePort for its replies; `runtime` is the onnxruntime build the page's worker runs. */
export type PageToServiceWorker =
  | { type: 'cache-pack'; packId: string; runtime: RuntimeBuild }
  | { type: 'skip-waiting' }
  | { type: 'drop-pack'; packId: string }
  /** The page is busy (the model loading, a reply being answered) or no longer: the offline copy starts no new download meanwhile (turnGate.ts). `seq` numbers these messages. */
  | { type: 'busy'; busy: boolean; seq: number };

/** Service worker → page, on the port of a `cache-pack` request: progress, then exactly one of done / failed. */
export type CachePackReply =
  | { type: 'progress'; doneBytes: number; totalBytes: number }
  | { type: 'done'; version: string }
  | { type: 'failed'; reason: OfflineFailure | 'internal'; message: string };

/** Service worker → every window of the app, while a version installs. */
export type ServiceWorkerBroadcast =
  | { type: 'install-progress'; version: string; doneBytes: number; totalBytes: number; doneFiles: number; totalFiles: number }
  | { type: 'install-failed'; version: string; reason: OfflineFailure | 'internal'; message: string };

const PAGE_TYPES = ['cache-pack', 'skip-waiting', 'drop-pack', 'busy'];
const RUNTIME_BUILDS: RuntimeBuild[] = ['webgpu-capable', 'wasm-only'];
const BROADCAST_TYPES = ['install-progress', 'install-failed'];

function typed(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as Record<string, unknown>)['type'];
  return typeof type === 'string' ? type : null;
}

/** Messages come from another realm: check the envelope before trusting the type. */
export function isPageMessage(value: unknown): value is PageToServiceWorker {
  const type = typed(value);
  const fields = value as Record<string, unknown>;
  if (type === 'cache-pack') return typeof fields['packId'] === 'string' && RUNTIME_BUILDS.includes(fields['runtime'] as RuntimeBuild);
  if (type === 'drop-pack') return typeof fields['packId'] === 'string';
  if (type === 'busy') return typeof fields['busy'] === 'boolean' && Number.isInteger(fields['seq']);
  return type !== null && PAGE_TYPES.includes(type);
}

export function isBroadcast(value: unknown): value is ServiceWorkerBroadcast {
  const type = typed(value);
  return type !== null && BROADCAST_TYPES.includes(type);
}
