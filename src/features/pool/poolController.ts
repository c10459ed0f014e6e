import { errorMessage } from '../../engine/errors';
import { deleteDataset as deleteStoredDataset, listDatasets } from '../../persistence/datasetDb';
import { loadDemoPoolCredits, loadDemoTextCredits, poolRef } from '../../shared/demoPool';
import { LatestCall } from '../../shared/latestCall';
import { modelWorker } from '../../shared/modelWorker';
import { modelActions, useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { isCancelledCall } from '../../protocol/client';
import type { DatasetFile, DatasetImported } from '../../protocol/protocol';
import { poolActions, usePoolStore } from './poolStore';

/** A dataset deleted while it loaded stops its import on purpose: said as information, not as a failure. */
const wasCancelled = (error: unknown) => (error as { code?: unknown } | null)?.code === 'cancelled';
const cancelledNotice = (name: string) => `"${name}" was deleted while it loaded, so loading it stopped and nothing of it is kept.`;
/** The person pressed Cancel: the worker removed what it had copied, so nothing resumes by itself later. */
const stoppedNotice = (name: string) => `Loading "${name}" stopped, as asked. Nothing of it is kept: load it again to use it.`;

/** The dataset import or resume under way, which its Cancel button stops. */
const datasetImports = new LatestCall();

export function cancelDatasetImport(): void {
  datasetImports.cancel();
}

/** Resolves once the model is ready; rejects with a sentence when its load fails. */
function modelReady(): Promise<void> {
  const settled = (phase: string) => phase === 'ready' || phase === 'error';
  return new Promise((resolve, reject) => {
    const check = (phase: string, unsubscribe?: () => void) => {
      if (!settled(phase)) return false;
      unsubscribe?.();
      if (phase === 'ready') resolve();
      else
        reject(
          new Error('the model could not be loaded, so the dataset cannot be embedded. Fix what the status area says, reload, and load the dataset again.'),
        );
      return true;
    };
    if (check(useModelStore.getState().phase)) return;
    const unsubscribe = useModelStore.subscribe((s) => void check(s.phase, unsubscribe));
  });
}

/** Files per message to the worker: a few tens of milliseconds of cloning each, so the page never stalls. */
const STAGE_SLICE = 100;

export async function refreshDatasets(): Promise<void> {
  try {
    poolActions.datasets(await listDatasets());
  } catch (error) {
    noticeActions.notify('error', `Stored datasets could not be listed: ${errorMessage(error)}. Private windows may not allow storage.`);
  }
}

/**
 * Loads a folder or zip the person chose. The worker validates, copies into IndexedDB and embeds in
 * batches; the page only passes file handles, so it stays responsive. Nothing is uploaded.
 */
export async function importDataset(name: string, files: DatasetFile[]): Promise<void> {
  if (usePoolStore.getState().importing) {
    noticeActions.notify('info', 'A dataset is already being loaded. Wait for it to finish, then add the next one.');
    return;
  }
  if (files.length === 0) {
    noticeActions.notify('error', 'The folder is empty. Choose a folder with conversations.json and images, or images and a .txt file of utterances.');
    return;
  }
  poolActions.importing({ name, step: 'Handing over files', loaded: 0, total: files.length });
  const signal = datasetImports.start();
  try {
    const stagingId = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    for (let i = 0; i < files.length; i += STAGE_SLICE) {
      const { staged } = await modelWorker().call('stageDatasetFiles', { stagingId, files: files.slice(i, i + STAGE_SLICE) }, { signal });
      poolActions.importing({ name, step: 'Handing over files', loaded: staged, total: files.length });
    }
    // A folder chosen while the pack still loads waits for it: the worker embeds with the loaded pack.
    if (useModelStore.getState().phase !== 'ready')
      poolActions.importing({ name, step: 'Waiting for the model to load', loaded: files.length, total: files.length });
    await modelReady();
    const result = await modelWorker().call(
      'importDataset',
      { name, stagingId },
      { onProgress: (p) => poolActions.importing({ name, step: p.file, loaded: p.loaded, total: p.total ?? 0 }), signal },
    );
    poolActions.imported({ name: result.name, problems: result.problems });
    noticeActions.notify(
      'info',
      `Loaded "${result.name}": ${result.images} images, ${result.texts} texts, ${result.dialogues} dialogues${result.problems.length ? ` (${result.problems.length} files left out, see Pool)` : ''}.${keptBesideNote(result.keptBeside)} Choose it under Pool to reply from it.`,
    );
  } catch (error) {
    if (isCancelledCall(error) && signal.aborted) noticeActions.notify('info', stoppedNotice(name));
    else if (wasCancelled(error)) noticeActions.notify('info', cancelledNotice(name));
    else noticeActions.notify('error', `"${name}" could not be loaded: ${errorMessage(error)}`);
  } finally {
    datasetImports.finish(signal);
    poolActions.importing(null);
    await refreshDatasets();
  }
}

/** Why a second dataset of the same name appeared, and that the first is still there. */
function keptBesideNote(kept: DatasetImported['keptBeside']): string {
  if (!kept) return '';
  return ` Its files differ from those of "${kept.name}" (loaded ${new Date(kept.createdAt).toLocaleString()}), which is kept as it was; delete that one if this one replaces it.`;
}

/** After a reload, datasets whose embedding was interrupted continue from the rows already cached. */
export async function resumeInterruptedImports(): Promise<void> {
  await refreshDatasets();
  for (const dataset of usePoolStore.getState().datasets.filter((d) => d.status === 'embedding')) {
    if (usePoolStore.getState().importing) return;
    poolActions.importing({ name: dataset.name, step: 'Resuming', loaded: 0, total: dataset.images.length });
    const signal = datasetImports.start();
    try {
      await modelWorker().call(
        'resumeDataset',
        { datasetId: dataset.id },
        { onProgress: (p) => poolActions.importing({ name: dataset.name, step: p.file, loaded: p.loaded, total: p.total ?? 0 }), signal },
      );
      noticeActions.notify('info', `Finished loading "${dataset.name}", which a reload had interrupted.`);
    } catch (error) {
      if (isCancelledCall(error) && signal.aborted) noticeActions.notify('info', stoppedNotice(dataset.name));
      else if (wasCancelled(error)) noticeActions.notify('info', cancelledNotice(dataset.name));
      else noticeActions.notify('error', `"${dataset.name}" could not be finished: ${errorMessage(error)}`);
    } finally {
      datasetImports.finish(signal);
      poolActions.importing(null);
      await refreshDatasets();
    }
  }
}

export async function selectPool(poolId: string): Promise<void> {
  if (useModelStore.getState().phase !== 'ready') {
    noticeActions.notify('info', 'The model is still loading; choose the pool again once it is ready.');
    return;
  }
  const previous = useSettingsStore.getState().poolId;
  const name = poolId === 'demo' ? 'Demo pool' : (usePoolStore.getState().datasets.find((d) => d.id === poolId)?.name ?? poolId);
  poolActions.switching({ name, poolId, step: 'Loading', loaded: 0, total: 0 });
  try {
    const pool = await modelWorker().call(
      'usePool',
      { pool: poolRef(poolId) },
      { onProgress: (p) => poolActions.switching({ name, poolId, step: p.file, loaded: p.loaded, total: p.total ?? 0 }) },
    );
    useSettingsStore.getState().setPoolId(poolId);
    modelActions.poolChanged(pool);
  } catch (error) {
    useSettingsStore.getState().setPoolId(previous);
    noticeActions.notify('error', `The pool "${name}" could not be used: ${errorMessage(error)} Replies still come from the previous pool.`);
  } finally {
    poolActions.switching(null);
  }
}

export async function removeDataset(datasetId: string): Promise<void> {
  if (useSettingsStore.getState().poolId === datasetId) await selectPool('demo');
  try {
    await deleteStoredDataset(datasetId);
  } catch (error) {
    noticeActions.notify('error', `The dataset could not be deleted: ${errorMessage(error)}`);
  }
  await refreshDatasets();
}

/** The demo pool's attribution records, for the Credits view (fetched when first opened). */
export async function loadCredits(): Promise<void> {
  if (usePoolStore.getState().credits) return;
  try {
    const [images, texts] = await Promise.all([loadDemoPoolCredits(), loadDemoTextCredits()]);
    poolActions.credits({ images, texts });
  } catch (error) {
    poolActions.credits(null, `The credits could not be loaded (${errorMessage(error)}). Reload the page.`);
  }
}
