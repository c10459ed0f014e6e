import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/validation';
import { type PoolMediaItem, type PoolTextSource, parseMediaCatalogue, parseTextCatalogue, parseTextSources } from '../engine/datasets/poolCatalogue';
import { type TextTableMeta, parseTextTableMeta } from '../engine/datasets/textTable';
import { errorMessage } from '../engine/errors';
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

/** Texts by source from the text table's header (npm run pool:index), 1 kB, or from texts.json (7.9 MB) for a pool without one. */
async function fetchTextCredits(): Promise<TextCredit[]> {
  const meta = await fetchTextTableMeta();
  if (meta) {
    const credits = new Map(meta.credits.map((s) => [s.id, s]));
    const counts = new Map<string, number>();
    meta.sources.forEach((id, i) => {
      const key = credits.has(id) ? id : '';
      counts.set(key, (counts.get(key) ?? 0) + meta.sourceCounts[i]!);
    });
    counts.set('', (counts.get('') ?? 0) + meta.sourceCounts[meta.sources.length]!);
    return creditsByCount(counts, credits);
  }
  const response = await fetch(`${POOL_BASE_URL}texts.json`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const json = parseJsonDocument(decodeUtf8Strict(new Uint8Array(await response.arrayBuffer()), 'pool/texts.json'), 'pool/texts.json');
  const sources = new Map(parseTextSources(json, { file: 'pool/texts.json', strict: true }).map((s) => [s.id, s]));
  const counts = new Map<string, number>();
  for (const t of parseTextCatalogue(json, { file: 'pool/texts.json', strict: true })) {
    const id = t.source && sources.has(t.source) ? t.source : '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return creditsByCount(counts, sources);
}

/** The text table's header, or null (with a warning when it is there but does not fit): Credits then counts texts.json. */
async function fetchTextTableMeta(): Promise<TextTableMeta | null> {
  try {
    const header = await fetch(`${POOL_BASE_URL}text-table.json`);
    return header.ok ? parseTextTableMeta(await header.json(), 'pool/text-table.json') : null;
  } catch (error) {
    console.warn(`The text table's header is not used, so Credits counts pool/texts.json: ${errorMessage(error)}`);
    return null;
  }
}

function creditsByCount(counts: ReadonlyMap<string, number>, sources: ReadonlyMap<string, PoolTextSource>): TextCredit[] {
  return [...counts]
    .filter(([, texts]) => texts > 0)
    .map(([id, texts]) => ({ source: sources.get(id) ?? null, texts }))
    .sort((a, b) => b.texts - a.texts);
}

/** The demo pool's texts by source, for the Credits view; fetched once, and again after a failure. */
export const loadDemoTextCredits: () => Promise<TextCredit[]> = fetchedOnce(fetchTextCredits);
