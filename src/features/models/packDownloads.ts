import { create } from 'zustand';
import { errorMessage } from '../../engine/errors';
import { chooseExecutionPlan, type ModelDtype } from '../../engine/onnx/executionPlan';
import { REMOTE_PACKS, type RemotePack, checkHubUrl, formatBytes, remotePack, withoutCredentials } from '../../engine/pack/hub';
import { downloadOriginAllowed } from '../../engine/securityPolicy';
import {
  type HttpFetch,
  type PackDownloadState,
  PackDownloadError,
  continuePackDownload,
  newDownloadState,
  packSize,
  planPackDownload,
  unlistedNote,
} from '../../engine/pack/packDownload';
import { explainFailedFetch } from './fetchFailure';
import { deleteStoredPack, listStoredPacks, packByteStore, storedPackBytes } from '../../persistence/packStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { detectCapabilities } from '../../protocol/capabilities';

/**
 * Downloads of real packs from the hub (Settings, "Model packs"): one at a time per pack, paused with
 * an AbortController, resumed from the bytes IndexedDB holds, continued after a reload. Nothing starts
 * without a click; a pack left downloading by a reload goes on by itself, since the click was given.
 */
type DownloadPhase = 'idle' | 'checking' | 'downloading' | 'paused' | 'complete' | 'error';

export interface PackDownloadView {
  phase: DownloadPhase;
  /** Bytes loaded per file of the pack, in the order they download. */
  files: { path: string; loaded: number; total: number | null }[];
  packLoaded: number;
  packTotal: number | null;
  /** What the pack takes in this browser now. */
  storedBytes: number;
  dtypes: Record<string, ModelDtype> | null;
  /** What went wrong and what to do, or a note (resumed after a reload, persistence refused). */
  message: string | null;
  hub: string | null;
  /** The finished pack failed to load (what the loader said): the row offers "Delete and download again" instead of "Use it". */
  loadFailure: string | null;
}

interface StorageEstimateView {
  usage: number;
  quota: number;
}

interface PackDownloadsState {
  packs: Record<string, PackDownloadView>;
  estimate: StorageEstimateView | null;
  /** Whether the browser agreed to keep this site's storage under pressure; null until asked. */
  persisted: boolean | null;
  /** Counts the CLIP packs finished or deleted here, so the pack list can follow (the model loader watches it). */
  storedPacksChanged: number;
}

const EMPTY: PackDownloadView = {
  phase: 'idle',
  files: [],
  packLoaded: 0,
  packTotal: null,
  storedBytes: 0,
  dtypes: null,
  message: null,
  hub: null,
  loadFailure: null,
};

export const usePackDownloads = create<PackDownloadsState>()(() => ({ packs: {}, estimate: null, persisted: null, storedPacksChanged: 0 }));

function update(packId: string, change: Partial<PackDownloadView>): void {
  usePackDownloads.setState((s) => ({ packs: { ...s.packs, [packId]: { ...(s.packs[packId] ?? EMPTY), ...change } } }));
}

/**
 * The downloads under way, each with what stops it and its end: pause aborts one, delete aborts it and
 * waits for its end (its last state written) before removing its bytes. An object, so a test can make one.
 */
export class RunningDownloads {
  private readonly runs = new Map<string, { controller: AbortController; ended: Promise<void> }>();

  has(packId: string): boolean {
    return this.runs.has(packId);
  }

  /** Runs `work` as the download of `packId` (one at a time per pack), with the signal that pause and stop abort. */
  async run(packId: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const ended = work(controller.signal).finally(() => {
      if (this.runs.get(packId)?.controller === controller) this.runs.delete(packId);
    });
    this.runs.set(packId, { controller, ended });
    await ended;
  }

  pause(packId: string): void {
    this.runs.get(packId)?.controller.abort();
  }

  /** Aborts the download of `packId`, if one runs, and resolves once it has ended. */
  async stop(packId: string): Promise<void> {
    const run = this.runs.get(packId);
    if (!run) return;
    run.controller.abort();
    await run.ended.catch(() => undefined);
  }
}

const running = new RunningDownloads();
/** A CLIP pack finished or was deleted: counted in the store, which the model loader watches so the pack list follows. */
const onStoredPacksChanged = () => usePackDownloads.setState((s) => ({ storedPacksChanged: s.storedPacksChanged + 1 }));

/** Calls `listener` each time a pack is finished or deleted here. */
export function watchStoredPacks(listener: () => void): void {
  usePackDownloads.subscribe((state, previous) => {
    if (state.storedPacksChanged !== previous.storedPacksChanged) listener();
  });
}

/**
 * The page's fetch for downloads. A failed request is asked again without following redirects: when
 * the hub answered with a redirect, the failure gets its own sentence (a loop, or a target the
 * security policy blocks) instead of "Could not reach".
 */
const pageFetch: HttpFetch = async (url, init) => {
  const signal = init.signal ? { signal: init.signal as AbortSignal } : {};
  const blocked: string[] = [];
  const onViolation = (event: SecurityPolicyViolationEvent) => blocked.push(event.blockedURI);
  document.addEventListener('securitypolicyviolation', onViolation);
  try {
    return await fetch(url, { ...(init.headers ? { headers: init.headers } : {}), ...signal, cache: 'no-store' });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const explained = await explainFailedFetch(
      url,
      (u) => fetch(u, { redirect: 'manual', cache: 'no-store', ...signal }),
      () => blocked,
    );
    if (explained) throw new PackDownloadError('redirect', explained, { cause: error });
    throw error;
  } finally {
    document.removeEventListener('securitypolicyviolation', onViolation);
  }
};

async function refreshEstimate(): Promise<StorageEstimateView | null> {
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  const view = estimate && typeof estimate.quota === 'number' ? { usage: estimate.usage ?? 0, quota: estimate.quota } : null;
  usePackDownloads.setState({ estimate: view });
  return view;
}

function viewOf(state: PackDownloadState, storedBytes: number): Partial<PackDownloadView> {
  return {
    loadFailure: state.loadFailure ?? null,
    files: state.files.map((f) => ({ path: f.path, loaded: f.done ? (f.bytes ?? 0) : 0, total: f.bytes })),
    packLoaded: storedBytes,
    packTotal: packSize(state),
    storedBytes,
    dtypes: state.dtypes,
    hub: state.hub,
  };
}

/** Reads what this browser holds; packs left downloading by a reload continue. Called once at start. */
export async function restorePackDownloads(): Promise<void> {
  const states = await listStoredPacks().catch(() => []);
  for (const state of states) {
    if (withoutCredentials(state.hub) !== state.hub) {
      state.hub = withoutCredentials(state.hub); // saved before credentials were refused: not kept, not shown
      await packByteStore.writeState(state).catch(() => undefined);
    }
    const bytes = await storedPackBytes(state);
    const phase: DownloadPhase = state.status === 'complete' ? 'complete' : 'paused';
    update(state.packId, { ...viewOf(state, bytes), phase, message: unlistedNote(state) });
    for (const f of state.files) if (!f.done) setFileLoaded(state.packId, f.path, await packByteStore.storedBytes(state.packId, f.path));
    if (state.status === 'downloading') {
      update(state.packId, {
        message: `Continuing the download after the reload, from ${formatBytes(bytes)}${packSize(state) ? ` of ${formatBytes(packSize(state)!)}` : ''}.`,
      });
      void runDownload(state);
    }
  }
  await refreshEstimate();
}

function setFileLoaded(packId: string, path: string, loaded: number): void {
  usePackDownloads.setState((s) => {
    const view = s.packs[packId] ?? EMPTY;
    return { packs: { ...s.packs, [packId]: { ...view, files: view.files.map((f) => (f.path === path ? { ...f, loaded } : f)) } } };
  });
}

/** The variants this browser runs, best first: the worker's own rules (executionPlan.ts). */
async function variantsForThisBrowser(): Promise<ModelDtype[]> {
  return chooseExecutionPlan(await detectCapabilities(useSettingsStore.getState().forceWasm)).dtypes;
}

/** Starts a download: asks the hub what to fetch, checks the space, asks for persistence. */
export async function startPackDownload(packId: string): Promise<void> {
  const pack = remotePack(packId);
  if (!pack || running.has(packId)) return;
  const checked = checkHubUrl(useSettingsStore.getState().hubUrl, downloadOriginAllowed);
  if (!checked.ok) {
    update(packId, { phase: 'error', message: `${checked.reason} Then try again.` });
    return;
  }
  const hub = checked.url;
  update(packId, { phase: 'checking', message: null });
  try {
    const plan = await planPackDownload(pack, hub, await variantsForThisBrowser(), pageFetch);
    const already = (await packByteStore.readState(packId)) ? await storedPackBytes((await packByteStore.readState(packId))!) : 0;
    const estimate = await refreshEstimate();
    const need = plan.bytes - already;
    if (estimate && need > estimate.quota - estimate.usage) {
      update(packId, {
        phase: 'error',
        message: `${pack.name} needs ${formatBytes(need)} more, but this browser lets the page store only ${formatBytes(Math.max(0, estimate.quota - estimate.usage))} more (${formatBytes(estimate.usage)} of ${formatBytes(estimate.quota)} in use). Delete stored packs or datasets, or free disk space, and try again.`,
      });
      return;
    }
    const persisted = await navigator.storage?.persist?.().catch(() => false);
    usePackDownloads.setState({ persisted: persisted ?? null });
    const state = newDownloadState(pack, hub, plan, new Date().toISOString());
    await packByteStore.writeState(state);
    const notes = [
      unlistedNote(state),
      persisted === false
        ? "The browser did not promise to keep this site's storage, so it may clear the pack when the disk is nearly full; it stays until then."
        : null,
    ];
    update(packId, { ...viewOf(state, 0), phase: 'downloading', message: notes.filter(Boolean).join(' ') || null });
    await runDownload(state);
  } catch (error) {
    update(packId, { phase: 'error', message: describe(error) });
  }
}

function describe(error: unknown): string {
  if (error instanceof PackDownloadError) return error.message;
  return `The download stopped: ${errorMessage(error)}. What arrived is kept: Resume continues from it.`;
}

async function runDownload(state: PackDownloadState): Promise<void> {
  await running.run(state.packId, async (signal) => {
    state.status = 'downloading';
    await packByteStore.writeState(state);
    update(state.packId, { phase: 'downloading' });
    try {
      const done = await continuePackDownload(state, {
        store: packByteStore,
        fetch: pageFetch,
        signal,
        onProgress: (p) => {
          setFileLoaded(state.packId, p.file, p.loaded);
          update(state.packId, { packLoaded: p.packLoaded, packTotal: p.packTotal });
        },
      });
      update(state.packId, { ...viewOf(done, await storedPackBytes(done)), phase: 'complete', message: unlistedNote(done) });
      onStoredPacksChanged();
    } catch (error) {
      const paused = error instanceof PackDownloadError && error.kind === 'paused';
      state.status = 'paused';
      await packByteStore.writeState(state).catch(() => undefined);
      update(state.packId, {
        phase: paused ? 'paused' : 'error',
        message: paused ? null : describe(error),
        storedBytes: await storedPackBytes(state).catch(() => 0),
      });
    } finally {
      await refreshEstimate();
    }
  });
}

export function pausePackDownload(packId: string): void {
  running.pause(packId);
}

export async function resumePackDownload(packId: string): Promise<void> {
  if (running.has(packId)) return;
  const state = await packByteStore.readState(packId);
  if (!state) return startPackDownload(packId);
  update(packId, { message: null });
  await runDownload(state);
}

/**
 * The loader could not load this finished pack (the page went back to the offline pack): remembered
 * with the pack, so the row offers "Delete and download again" now and after a reload.
 */
export async function markPackLoadFailed(packId: string, message: string): Promise<void> {
  const state = await packByteStore.readState(packId).catch(() => null);
  if (state) await packByteStore.writeState({ ...state, loadFailure: message }).catch(() => undefined);
  update(packId, { loadFailure: message });
}

export async function deleteAndDownloadAgain(packId: string): Promise<void> {
  await deletePackDownload(packId);
  await startPackDownload(packId);
}

/** Deletes a pack, finished or not, with every stored byte. */
export async function deletePackDownload(packId: string): Promise<void> {
  await running.stop(packId);
  await deleteStoredPack(packId);
  usePackDownloads.setState((s) => {
    const packs = { ...s.packs };
    delete packs[packId];
    return { packs };
  });
  await refreshEstimate();
  onStoredPacksChanged();
}

/** The remote packs with the size this browser would download (the registry's figure until the hub is asked). */
export async function remotePackSizes(): Promise<{ pack: RemotePack; bytes: number; dtype: ModelDtype }[]> {
  const dtype = (await variantsForThisBrowser())[0] ?? 'fp32';
  return REMOTE_PACKS.map((pack) => ({ pack, bytes: pack.approxBytes[dtype], dtype }));
}

/** Every pack this browser holds, finished or not. */
export async function storedPacks(): Promise<PackDownloadState[]> {
  return listStoredPacks().catch(() => []);
}
