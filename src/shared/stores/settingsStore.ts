import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { DEFAULT_HUB, withoutCredentials } from '../../engine/pack/hub';
import type { ResponseMethodId } from '../../protocol/protocol';

interface SettingsState {
  /** The pack chosen by the user; null means the default. */
  packId: string | null;
  /** Run on WASM even where WebGPU is available. */
  forceWasm: boolean;
  /** The candidate pool: 'demo' or the id of a dataset stored in this browser. */
  poolId: string;
  setPoolId: (poolId: string) => void;
  /** The response method; null means the pack's preferred one (trained heads when it has them). */
  method: ResponseMethodId | null;
  setMethod: (method: ResponseMethodId | null) => void;
  setPackId: (packId: string) => void;
  setForceWasm: (forceWasm: boolean) => void;
  /** Where packs are downloaded from: the Hugging Face hub, a mirror, or a venue's local copy. */
  hubUrl: string;
  setHubUrl: (hubUrl: string) => void;
  /** Booth strictness everywhere, not only in kiosk mode (where it is always on): borderline pool texts are left out too. */
  boothStrict: boolean;
  setBoothStrict: (boothStrict: boolean) => void;
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
      hubUrl: DEFAULT_HUB,
      setHubUrl: (hubUrl) => set({ hubUrl }),
      boothStrict: false,
      setBoothStrict: (boothStrict) => set({ boothStrict }),
    }),
    {
      name: 'mmdialog-settings',
      version: 1,
      storage: createJSONStorage(() => localStorage),
      // A hub address saved with user:password@ before they were refused is written back without them.
      onRehydrateStorage: () => (state) => {
        if (state && withoutCredentials(state.hubUrl) !== state.hubUrl) state.setHubUrl(withoutCredentials(state.hubUrl));
      },
    },
  ),
);
