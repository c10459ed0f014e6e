import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/validation';
import { type PoolMediaItem, parseMediaCatalogue } from '../engine/datasets/poolCatalogue';
import type { PoolRef } from '../worker/protocol';

/** The demo pool shipped with the app, served under public/pool/. */
export const POOL_BASE_URL = `${import.meta.env.BASE_URL}pool/`;

/** The worker's reference to a pool: 'demo', or the id of a dataset stored in this browser. */
export function poolRef(poolId: string): PoolRef {
  return poolId === 'demo' ? { kind: 'demo', baseUrl: POOL_BASE_URL } : { kind: 'dataset', datasetId: poolId };
}

let credits: Promise<PoolMediaItem[]> | null = null;

async function fetchCredits(): Promise<PoolMediaItem[]> {
  const response = await fetch(`${POOL_BASE_URL}media.json`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const json = parseJsonDocument(decodeUtf8Strict(new Uint8Array(await response.arrayBuffer()), 'pool/media.json'), 'pool/media.json');
  return parseMediaCatalogue(json, { file: 'pool/media.json', strict: true });
}

/** The demo pool's attribution records (the Credits view, and credits in an export), fetched once; after a failure the next call tries again. */
export function loadDemoPoolCredits(): Promise<PoolMediaItem[]> {
  if (!credits) {
    const loading = fetchCredits();
    credits = loading;
    loading.catch(() => {
      if (credits === loading) credits = null;
    });
  }
  return credits;
}
