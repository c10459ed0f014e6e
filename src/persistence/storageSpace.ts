import { formatBytes } from '../engine/pack/hub';
import { listDatasets } from './datasetDb';
import { listStoredPacks, storedPackBytes } from './packStore';

/** Whether a failed write failed because the browser's storage for this site is full. */
export function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' || (error instanceof Error && /quota/i.test(error.message));
}

/**
 * What a full disk needs, in words: how much this save needs, how full the site's storage is, and
 * the largest things this page stored that could be deleted to make room.
 */
export async function fullStorageAdvice(neededBytes: number): Promise<string> {
  const parts = [`It needs about ${formatBytes(neededBytes)} more.`];
  try {
    const { usage, quota } = await navigator.storage.estimate();
    if (usage !== undefined && quota !== undefined) parts.push(`This page uses ${formatBytes(usage)} of the ${formatBytes(quota)} the browser allows it.`);
  } catch {
    // No estimate in this browser: the advice below still holds.
  }
  const deletable: { what: string; bytes: number }[] = [];
  try {
    for (const pack of await listStoredPacks()) deletable.push({ what: `the downloaded pack ${pack.packId}`, bytes: await storedPackBytes(pack) });
    for (const dataset of await listDatasets())
      deletable.push({ what: `the dataset "${dataset.name}"`, bytes: dataset.images.reduce((s, i) => s + i.bytes, 0) });
  } catch {
    // Listing failed too (the disk is full, not unreadable, so this is rare): give the general advice.
  }
  const largest = deletable.sort((a, b) => b.bytes - a.bytes).slice(0, 3);
  if (largest.length > 0)
    parts.push(
      `To make room, delete ${largest.map((d) => `${d.what} (${formatBytes(d.bytes)})`).join(', ')} in Settings or the Pool panel, or free disk space, then press Retry.`,
    );
  else parts.push("Free disk space on this device (or clear other sites' data in the browser settings), then press Retry.");
  return parts.join(' ');
}
