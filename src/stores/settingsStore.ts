import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

interface SettingsState {
  /** The pack chosen by the user; null means the default. */
  packId: string | null;
  /** Run on WASM even where WebGPU is available. */
  forceWasm: boolean;
  /** The candidate pool: 'demo' or the id of a dataset stored in this browser. */
  poolId: string;
  setPoolId(poolId: string): void;
  setPackId(packId: string): void;
  setForceWasm(forceWasm: boolean): void;
}

export const useSettingsStore = create<SettingsState>()(
  persist(
    (set) => ({
      packId: null,
      forceWasm: false,
      poolId: 'demo',
      setPoolId: (poolId) => set({ poolId }),
      setPackId: (packId) => set({ packId }),
      setForceWasm: (forceWasm) => set({ forceWasm }),
    }),
    { name: 'mmdialog-settings', version: 1, storage: createJSONStorage(() => localStorage) },
  ),
);
