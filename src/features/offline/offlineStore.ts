import { create } from 'zustand';

/**
 * The offline copy, as the header badge shows it. 'off': nothing to show (dev server, or not
 * started yet); 'unavailable': this browser or address cannot keep one; 'failed': storing it failed.
 */
type OfflinePhase = 'off' | 'caching' | 'ready' | 'unavailable' | 'failed';

interface OfflineState {
  phase: OfflinePhase;
  /** Bytes stored so far while caching, in percent; null before the size is known. */
  percent: number | null;
  /** What happened and what to do, for 'unavailable' and 'failed'. */
  message: string | null;
  /** The build version the offline copy holds, once ready. */
  version: string | null;
  /** The pack whose files are stored, once ready. */
  packId: string | null;
  /** A newer version is stored and waits for a reload. */
  updateWaiting: boolean;
  /** Something about an update, while the current offline copy keeps working. */
  note: string | null;
  /** Whether the browser promised not to evict the copy under storage pressure; null until asked. */
  persisted: boolean | null;
}

export const useOfflineStore = create<OfflineState>()(() => ({
  phase: 'off',
  percent: null,
  message: null,
  version: null,
  packId: null,
  updateWaiting: false,
  note: null,
  persisted: null,
}));

export const offlineActions = {
  caching(percent: number | null) {
    useOfflineStore.setState({ phase: 'caching', percent, message: null });
  },
  ready(version: string, packId: string) {
    useOfflineStore.setState({ phase: 'ready', percent: null, message: null, version, packId });
  },
  failed(message: string) {
    useOfflineStore.setState({ phase: 'failed', percent: null, message });
  },
  unavailable(message: string) {
    useOfflineStore.setState({ phase: 'unavailable', percent: null, message });
  },
  updateWaiting(updateWaiting: boolean) {
    useOfflineStore.setState({ updateWaiting });
  },
  note(note: string | null) {
    useOfflineStore.setState({ note });
  },
  persisted(persisted: boolean) {
    useOfflineStore.setState({ persisted });
  },
};
