import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { ResponseMethodId } from '../../worker/protocol';

interface SettingsState {
  /** The pack chosen by the user; null means the default. */
  packId: string | null;
  /** Run on WASM even where WebGPU is available. */
  forceWasm: boolean;
  /** The candidate pool: 'demo' or the id of a dataset stored in this browser. */
  poolId: string;
  setPoolId(poolId: string): void;
  /** The response method; null means the pack's preferred one (trained heads when it has them). */
  method: ResponseMethodId | null;
  setMethod(method: ResponseMethodId | null): void;
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
      method: null,
      setMethod: (method) => set({ method }),
      setPackId: (packId) => set({ packId }),
      setForceWasm: (forceWasm) => set({ forceWasm }),
    }),
    { name: 'mmdialog-settings', version: 1, storage: createJSONStorage(() => localStorage) },
  ),
);
