import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { type ViewMode, migrateRememberedView, readViewParam, resolveView } from './viewMode';

interface ViewState {
  /** The view this device shows, remembered in this browser. */
  view: ViewMode;
  setView: (view: ViewMode) => void;
}

export const useViewStore = create<ViewState>()(
  persist(
    (set) => ({
      view: 'visitor',
      setView: (view) => set({ view }),
    }),
    {
      name: 'mmdialog-view',
      version: 2,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ view: s.view }),
      migrate: (stored) => ({ view: migrateRememberedView(stored) }),
    },
  ),
);

// `?view=` in the address is remembered on this device, so the presenter opens it once and a
// `?view=visitor` visit (or Settings) takes the device back.
if (typeof location !== 'undefined') {
  const param = readViewParam(location.search);
  if (param) useViewStore.getState().setView(resolveView({ param, remembered: useViewStore.getState().view }));
}
