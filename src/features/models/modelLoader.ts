import { EngineError, errorMessage } from '../../engine/errors';
import { defaultPackId } from '../../engine/pack/defaultPack';
import { checkPackMemory } from '../../engine/pack/packMemory';
import { poolRef } from '../../shared/demoPool';
import { modelWorker } from '../../shared/modelWorker';
import { MODELS_BASE_URL, modelFolderRef, readModelsIndex } from '../../shared/modelsIndex';
import type { ModelFolderEntry } from '../../engine/pack/modelsIndex';
import { dropDamagedPack } from '../../shared/offlineRepair';
import { type CaptionerSummary, type DetectorSummary, type PackSummary, modelActions, useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { remotePack } from '../../engine/pack/hub';
import type { PackDownloadState } from '../../engine/pack/packDownload';
import { isCancelledCall } from '../../protocol/client';
import { LatestCall } from '../../shared/latestCall';
import { markPackLoadFailed, storedPacks, watchStoredPacks } from './packDownloads';

function choosePack(packs: PackSummary[], wanted: string | null): PackSummary | undefined {
  const fallback = defaultPackId(packs.map((p) => p.id));
  return packs.find((p) => p.id === wanted) ?? packs.find((p) => p.id === fallback);
}

/** A finished pack downloaded in Settings, as the loader lists packs (the chooser, or the captioner). */
function storedSummary(state: PackDownloadState): PackSummary {
  const pack = remotePack(state.packId);
  return {
    id: state.packId,
    name: `${pack?.name ?? state.packId} (downloaded)`,
    description: `${pack?.description ?? ''} Downloaded from ${state.hub} and kept in this browser: it needs no network.`.trim(),
    files: state.files.map((f) => ({ path: f.path, bytes: f.bytes ?? 0 })),
    stored: true,
  };
}

/** Finished downloads read once per load: CLIP packs for the chooser, and a captioner. */
async function storedSummaries(): Promise<{ clip: PackSummary[]; captioner: CaptionerSummary | null }> {
  const finished = (await storedPacks()).filter((s) => s.status === 'complete');
  // A downloaded captioner that failed to load is not tried again until it is downloaded again.
  const captioner = finished.find((s) => s.kind === 'captioner' && !s.loadFailure);
  return { clip: finished.filter((s) => s.kind === 'clip').map(storedSummary), captioner: captioner ? storedSummary(captioner) : null };
}

// A pack downloaded or deleted in Settings joins or leaves the chooser; deleting the pack in use loads the default.
watchStoredPacks(() => {
  void (async () => {
    const packs = [...useModelStore.getState().servedPacks.filter((p) => !p.stored), ...(await storedSummaries()).clip];
    const active = useModelStore.getState().activePackId;
    modelActions.packsChanged(packs);
    if (active && !packs.some((p) => p.id === active)) {
      noticeActions.notify('info', 'The pack in use was deleted; loading the default pack.');
      useSettingsStore.getState().setPackId(defaultPackId(packs.map((p) => p.id)) ?? '');
      await loadModels();
    }
  })();
});

/**
 * The person chose a pack in Settings: it wins over ?pack= in the address (which is then dropped from
 * it, so a reload keeps the choice) and is loaded.
 */
export function choosePackAndLoad(packId: string): Promise<void> {
  useSettingsStore.getState().setPackId(packId);
  const url = new URL(window.location.href);
  if (url.searchParams.has('pack')) {
    url.searchParams.delete('pack');
    window.history.replaceState(window.history.state, '', url);
  }
  return loadModels();
}

/**
 * The page's pack loads: a newer one (another pack chosen while one loads) cancels the one before, so
 * the page never shows Ready for a pack it no longer wants, and the chosen one does not wait behind it.
 */
const packLoads = new LatestCall();

export async function loadModels(): Promise<void> {
  const signal = packLoads.start();
  const base = MODELS_BASE_URL;
  let packs: PackSummary[];
  let detector: DetectorSummary | null;
  let captioner: CaptionerSummary | null;
  let photoCheck: ModelFolderEntry | null;
  try {
    const index = await readModelsIndex();
    modelActions.servedPacksRead(index.packs);
    // A downloaded pack with the id of a served one (models:fetch put it in models/) is listed once, served.
    const stored = await storedSummaries();
    packs = [...index.packs, ...stored.clip.filter((s) => !index.packs.some((p) => p.id === s.id))];
    // An index written before the detector was served has no "detector": the worker then says it is missing.
    detector = index.detector;
    // The first captioning pack, when models/ has one, writes the photos' captions.
    // A captioner downloaded in Settings comes first: the person asked for it.
    captioner = stored.captioner ?? index.captioners[0] ?? null;
    photoCheck = index.photoCheck;
  } catch (error) {
    // A damaged index has its own sentence; anything else means the server was not reached.
    modelActions.failed(
      error instanceof EngineError
        ? error.message
        : `The list of model packs (${base}index.json) could not be loaded: ${errorMessage(error)}. Check that the demo server is running and reload.`,
      [],
    );
    return;
  }
  // A newer load began while the list was read: it reports, not this one.
  if (signal.aborted) return;
  const { packId, forceWasm, poolId } = useSettingsStore.getState();
  // ?pack=<id> in the address wins over the saved choice, so a presenter can link a pack.
  const linked = new URLSearchParams(window.location.search).get('pack');
  if (linked && !packs.some((p) => p.id === linked)) {
    noticeActions.notify('error', `The address asks for the model pack "${linked}", which is not in models/. Using the default instead.`);
  }
  const pack = choosePack(packs, linked && packs.some((p) => p.id === linked) ? linked : packId);
  if (!pack) {
    modelActions.failed('No model pack was found in models/. Run "npm run models:test-pack" (see docs/commands.md) and reload.', packs);
    return;
  }
  // A pack too large for this device is refused before it can take the tab down with it.
  const fallbackId = defaultPackId(packs.filter((p) => !p.stored).map((p) => p.id));
  const smaller = fallbackId && fallbackId !== pack.id ? packs.find((p) => p.id === fallbackId) : undefined;
  const memory = checkPackMemory(pack, (navigator as { deviceMemory?: number }).deviceMemory, smaller?.name ?? null);
  if (memory.refusal) {
    modelActions.failed(memory.refusal, packs);
    if (smaller)
      noticeActions.notify('info', `${smaller.name} is the smaller pack.`, { label: `Use ${smaller.name}`, run: () => void choosePackAndLoad(smaller.id) });
    return;
  }
  modelActions.startLoading(packs, pack.id);
  try {
    const loaded = await modelWorker().call(
      'loadPack',
      {
        pack: { id: pack.id, baseUrl: `${base}${pack.id}/`, files: pack.files.map((f) => f.path), ...(pack.stored ? { stored: true } : {}) },
        detector: detector ? { baseUrl: `${base}${detector.dir}/`, files: detector.files.map((f) => f.path) } : null,
        captioner: captioner
          ? { id: captioner.id, baseUrl: `${base}${captioner.id}/`, files: captioner.files.map((f) => f.path), ...(captioner.stored ? { stored: true } : {}) }
          : null,
        photoCheck: photoCheck ? modelFolderRef(photoCheck) : null,
        pool: poolRef(poolId),
        forceWasm,
      },
      { signal, onProgress: (p) => modelActions.fileProgress(p.file, { loaded: p.loaded, total: p.total }) },
    );
    modelActions.ready(loaded.loadMs, loaded.pool, loaded.backend, loaded.methods, loaded.detector, loaded.captioner, loaded.steps);
    if (captioner?.stored && loaded.captioner.state === 'unavailable') await markPackLoadFailed(captioner.id, loaded.captioner.reason);
  } catch (error) {
    // The worker crashed under the load: the page restarts it and loads again (app/workerHost.ts), so this load's failure says nothing of the pack or pool.
    if ((error as { code?: unknown } | null)?.code === 'worker-crashed') return;
    // Another pack was chosen meanwhile: its load reports.
    if (isCancelledCall(error)) return;
    if (poolId !== 'demo') {
      // A stored dataset that cannot be used must not keep the demo from starting.
      noticeActions.notify('error', `The chosen pool could not be loaded: ${errorMessage(error)} Using the demo pool.`);
      useSettingsStore.getState().setPoolId('demo');
      return loadModels();
    }
    if (pack.stored) {
      // A downloaded pack that will not load must not leave the page without a model: back to the
      // offline pack, and Settings offers to delete the download and fetch it again.
      const fallback = defaultPackId(packs.filter((p) => !p.stored).map((p) => p.id));
      await markPackLoadFailed(pack.id, errorMessage(error));
      if (fallback) {
        if (linked === pack.id) {
          const url = new URL(window.location.href);
          url.searchParams.delete('pack');
          window.history.replaceState(window.history.state, '', url);
        }
        noticeActions.notify(
          'error',
          `${pack.name} could not be loaded (${errorMessage(error)}), so the page went back to the offline pack. To use it, open Settings → Model packs and choose "Delete and download again".`,
        );
        useSettingsStore.getState().setPackId(fallback);
        return loadModels();
      }
    }
    // A damaged file (it parsed wrong) must not be served again from the offline copy after a reload.
    const damaged = (error as { code?: unknown } | null)?.code === 'pack-file-corrupt' && !pack.stored && dropDamagedPack(pack.id);
    modelActions.failed(
      damaged ? `${errorMessage(error)} The damaged copy was dropped from this browser's offline store: reload to fetch it again.` : errorMessage(error),
    );
  }
}
