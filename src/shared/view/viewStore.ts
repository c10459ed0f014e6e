import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { type ViewMode, type ViewPreference, readViewParam } from './viewMode';

interface ViewState {
  /** Remembered in this browser. */
  preference: ViewPreference;
  /** From the address (`?view=`), for this page only. */
  param: ViewMode | null;
  setPreference(preference: ViewPreference): void;
}

export const useViewStore = create<ViewState>()(
  persist(
    (set) => ({
      preference: 'auto',
      param: typeof location === 'undefined' ? null : readViewParam(location.search),
      setPreference: (preference) => set({ preference }),
    }),
    { name: 'mmdialog-view', version: 1, storage: createJSONStorage(() => localStorage), partialize: (s) => ({ preference: s.preference }) },
  ),
);
