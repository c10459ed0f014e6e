import { createStore, get, set } from 'idb-keyval';
import type { StoredLocalHeads } from '../engine/response/localHeads';

/**
 * clip-map and the intent head the worker trained (localHeads.ts), kept per pack fingerprint and
 * train split, so the next visit with the same pack and pool loads them instead of training again.
 */
const store = createStore('mmdialog-local-heads', 'heads');

export const localHeadsCache = {
  get: (key: string) => get<StoredLocalHeads>(key, store),
  put: (key: string, heads: StoredLocalHeads) => set(key, heads, store),
};
