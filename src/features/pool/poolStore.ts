import { create } from 'zustand';
import type { PoolMediaItem } from '../../engine/datasets/poolCatalogue';
import type { StoredDataset } from '../../persistence/datasetDb';
import type { TextCredit } from '../../shared/demoPool';

export interface ImportProgress {
  name: string;
  /** The pool being switched to, shown as chosen while it loads. */
  poolId?: string;
  step: string;
  loaded: number;
  total: number;
}

interface PoolState {
  datasets: StoredDataset[];
  importing: ImportProgress | null;
  /** Set while a pool switch is embedding rows that are not cached yet. */
  switching: ImportProgress | null;
  credits: PoolMediaItem[] | null;
  textCredits: TextCredit[] | null;
  creditsError: string | null;
  lastImport: { name: string; problems: string[] } | null;
}

export const usePoolStore = create<PoolState>()(() => ({
  datasets: [],
  importing: null,
  switching: null,
  credits: null,
  textCredits: null,
  creditsError: null,
  lastImport: null,
}));

export const poolActions = {
  datasets(datasets: StoredDataset[]) {
    usePoolStore.setState({ datasets });
  },
  importing(importing: ImportProgress | null) {
    usePoolStore.setState({ importing });
  },
  switching(switching: ImportProgress | null) {
    usePoolStore.setState({ switching });
  },
  credits(credits: { images: PoolMediaItem[]; texts: TextCredit[] } | null, creditsError: string | null = null) {
    usePoolStore.setState({ credits: credits?.images ?? null, textCredits: credits?.texts ?? null, creditsError });
  },
  imported(lastImport: PoolState['lastImport']) {
    usePoolStore.setState({ lastImport });
  },
};
