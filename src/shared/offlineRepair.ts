import type { PageToServiceWorker } from '../sw/protocol';

/**
 * Tells the service worker that a file of this pack proved damaged when the engine read it: the
 * worker forgets the pack's stored files, so a reload fetches them again instead of the same broken
 * copy. Nothing happens without a service worker (dev server, first visit).
 */
export function dropDamagedPack(packId: string): boolean {
  const controller = typeof navigator !== 'undefined' ? navigator.serviceWorker?.controller : null;
  if (!controller) return false;
  const message: PageToServiceWorker = { type: 'drop-pack', packId };
  controller.postMessage(message);
  return true;
}
