import { create } from 'zustand';
import type { BackendState, CaptionerStatus, DetectorStatus, LocalHeadsStatus, PoolLoaded, PoolRowsStatus, ResponseMethods } from '../../protocol/protocol';
import type { LoadStep } from '../../engine/loadSteps';

export interface PackSummary {
  id: string;
  name: string;
  description: string;
  files: { path: string; bytes: number }[];
  /** Downloaded in Settings and kept in this browser (read from IndexedDB, not from models/). */
  stored?: boolean;
}

/** A captioning pack as /models/index.json lists it under "captioners". */
export type CaptionerSummary = PackSummary;

/** The object detector as /models/index.json lists it (null there when models/ has none). */
export interface DetectorSummary {
  dir: string;
  files: { path: string; bytes: number }[];
}

export interface FileLoad {
  loaded: number;
  total: number | null;
}

interface ModelState {
  packs: PackSummary[];
  /** The packs the server's models/index.json lists (packs also holds those downloaded into this browser). */
  servedPacks: PackSummary[];
  activePackId: string | null;
  phase: 'idle' | 'loading' | 'ready' | 'error';
  files: Record<string, FileLoad>;
  backend: BackendState | null;
  loadMs: number | null;
  /** Where loadMs went, step by step. */
  loadSteps: LoadStep[];
  pool: PoolLoaded | null;
  methods: ResponseMethods | null;
  /** Whether shared photos go through the object detector; null until the pack has loaded. */
  detector: DetectorStatus | null;
  /** For a pack without Python heads: clip-map and the intent head trained in the worker; null otherwise or until it starts. */
  localHeads: LocalHeadsStatus | null;
  /** Whether a captioning model writes the photos' captions; null until the pack has loaded. */
  captioner: CaptionerStatus | null;
  /** The pool's CLIP text rows computed after Ready; null when there were none to compute. */
  poolRows: PoolRowsStatus | null;
  error: string | null;
}

export const useModelStore = create<ModelState>()(() => ({
  packs: [],
  servedPacks: [],
  activePackId: null,
  phase: 'idle',
  files: {},
  backend: null,
  loadMs: null,
  loadSteps: [],
  pool: null,
  methods: null,
  detector: null,
  localHeads: null,
  captioner: null,
  poolRows: null,
  error: null,
}));

export const modelActions = {
  startLoading(packs: PackSummary[], activePackId: string) {
    useModelStore.setState({
      packs,
      activePackId,
      phase: 'loading',
      files: {},
      error: null,
      loadMs: null,
      loadSteps: [],
      backend: null,
      detector: null,
      localHeads: null,
      captioner: null,
      poolRows: null,
    });
  },
  fileProgress(file: string, load: FileLoad) {
    useModelStore.setState((s) => ({ files: { ...s.files, [file]: load } }));
  },
  backendChanged(backend: BackendState) {
    useModelStore.setState({ backend });
  },
  ready(
    loadMs: number,
    pool: PoolLoaded,
    backend: BackendState,
    methods: ResponseMethods,
    detector: DetectorStatus,
    captioner: CaptionerStatus = { state: 'none' },
    loadSteps: LoadStep[] = [],
  ) {
    useModelStore.setState({ phase: 'ready', loadMs, loadSteps, pool, backend, methods, detector, captioner });
  },
  /** The captioner failed after the load; ignored while a (re)load is under way, whose result says it. */
  captionerChanged(captioner: CaptionerStatus) {
    useModelStore.setState((s) => (s.phase === 'ready' ? { captioner } : {}));
  },
  /** The detector moved to WASM or failed after the load; ignored while a (re)load is under way, whose result says it. */
  detectorChanged(detector: DetectorStatus) {
    useModelStore.setState((s) => (s.phase === 'ready' ? { detector } : {}));
  },
  /** Training news for the pack in use; a trained set changes the methods on offer. */
  localHeadsChanged(packId: string, status: LocalHeadsStatus) {
    useModelStore.setState((s) =>
      s.activePackId !== packId ? {} : status.state === 'trained' ? { localHeads: status, methods: status.methods } : { localHeads: status },
    );
  },
  /** How the pool's CLIP text rows are coming along; news of a pool no longer in use is ignored. */
  poolRowsChanged(status: PoolRowsStatus) {
    useModelStore.setState((s) => (s.pool && s.pool.poolId !== status.poolId ? {} : { poolRows: status }));
  },
  poolChanged(pool: PoolLoaded) {
    useModelStore.setState({ pool });
  },
  servedPacksRead(servedPacks: PackSummary[]) {
    useModelStore.setState({ servedPacks });
  },
  /** The list changed (a pack was downloaded or deleted) without a reload. */
  packsChanged(packs: PackSummary[]) {
    useModelStore.setState({ packs });
  },
  failed(error: string, packs?: PackSummary[]) {
    useModelStore.setState((s) => ({ phase: 'error', error, packs: packs ?? s.packs }));
  },
};
