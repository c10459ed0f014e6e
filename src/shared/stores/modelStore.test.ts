import { beforeEach, describe, expect, it } from 'vitest';
import type { DetectorStatus } from '../../protocol/protocol';
import { modelActions, useModelStore } from './modelStore';

const backend = { provider: 'wasm' as const, dtypes: { text_model: 'fp32' as const, vision_model: 'fp32' as const }, reason: 'test', fallbackFrom: null };
const pool = { poolId: 'demo', name: 'Demo pool', texts: 3, images: 2, embeddings: { fromFile: 5, fromCache: 0, computed: 0, deferred: 0, ms: 1 } };
const methods = { available: ['clip-sim' as const], preferred: 'clip-sim' as const, note: 'no heads' };
const ready: DetectorStatus = {
  state: 'ready',
  backend: { provider: 'webgpu', dtypes: { detector: 'fp32' }, reason: 'WebGPU', fallbackFrom: null },
  loadMs: 300,
};
const failed: DetectorStatus = {
  state: 'unavailable',
  reason:
    'The object detector failed on a photo (out of memory), so photos are now described by the image encoder alone. Reload the page to try the detector again.',
};

describe("model store: the detector's status", () => {
  beforeEach(() => modelActions.startLoading([], 'tiny'));

  it('is unknown while a pack loads, then what the load said', () => {
    expect(useModelStore.getState().detector).toBeNull();
    modelActions.ready(100, pool, backend, methods, ready);
    expect(useModelStore.getState().detector).toEqual(ready);
  });

  it('follows a later change (a fallback to WASM, a failure)', () => {
    modelActions.ready(100, pool, backend, methods, ready);
    modelActions.detectorChanged(failed);
    expect(useModelStore.getState().detector).toEqual(failed);
  });

  it('ignores a change from a detector that a new load is replacing', () => {
    modelActions.ready(100, pool, backend, methods, ready);
    modelActions.startLoading([], 'tiny');
    modelActions.detectorChanged(failed);
    expect(useModelStore.getState().detector).toBeNull();
  });
});
