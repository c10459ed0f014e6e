import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/validation';
import { type PoolMediaItem, type PoolTextSource, parseMediaCatalogue, parseTextCatalogue, parseTextSources } from '../engine/datasets/poolCatalogue';
import type { PoolRef } from '../protocol/protocol';
import { fetchedOnce } from './fetchedOnce';

/** The demo pool shipped with the app, served under public/pool/. */
export const POOL_BASE_URL = `${import.meta.env.BASE_URL}pool/`;

/** The worker's reference to a pool: 'demo', or the id of a dataset stored in this browser. */
export function poolRef(poolId: string): PoolRef {
  return poolId === 'demo' ? { kind: 'demo', baseUrl: POOL_BASE_URL } : { kind: 'dataset', datasetId: poolId };
}

async function fetchCredits(): Promise<PoolMediaItem[]> {
  const response = await fetch(`${POOL_BASE_URL}media.json`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const json = parseJsonDocument(decodeUtf8Strict(new Uint8Array(await response.arrayBuffer()), 'pool/media.json'), 'pool/media.json');
  return parseMediaCatalogue(json, { file: 'pool/media.json', strict: true });
}

/** The demo pool's attribution records (the Credits view, and credits in an export), fetched once; after a failure the next call tries again. */
export const loadDemoPoolCredits: () => Promise<PoolMediaItem[]> = fetchedOnce(fetchCredits);

/** How many of the demo pool's texts a source gave, and who it is owed to (null: written for this project). */
export interface TextCredit {
  source: PoolTextSource | null;
  texts: number;
}

async function fetchTextCredits(): Promise<TextCredit[]> {
  const response = await fetch(`${POOL_BASE_URL}texts.json`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const json = parseJsonDocument(decodeUtf8Strict(new Uint8Array(await response.arrayBuffer()), 'pool/texts.json'), 'pool/texts.json');
  const sources = new Map(parseTextSources(json, { file: 'pool/texts.json', strict: true }).map((s) => [s.id, s]));
  const counts = new Map<string, number>();
  for (const t of parseTextCatalogue(json, { file: 'pool/texts.json', strict: true })) {
    const id = t.source && sources.has(t.source) ? t.source : '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].map(([id, texts]) => ({ source: sources.get(id) ?? null, texts })).sort((a, b) => b.texts - a.texts);
}

/** The demo pool's texts by source, for the Credits view; fetched once, and again after a failure. */
export const loadDemoTextCredits: () => Promise<TextCredit[]> = fetchedOnce(fetchTextCredits);
