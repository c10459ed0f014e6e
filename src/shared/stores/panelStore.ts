import { create } from 'zustand';

export type PoolTab = 'pool' | 'credits';

/**
 * Which panels and dialogs are open: the inspector, the settings section and the pool dialog. Shared,
 * because the header, the shortcuts, kiosk mode and the model status open and close them.
 */
interface PanelState {
  inspectorOpen: boolean;
  settingsOpen: boolean;
  poolOpen: boolean;
  poolTab: PoolTab;
}

export const usePanelStore = create<PanelState>()(() => ({
  inspectorOpen: false,
  settingsOpen: false,
  poolOpen: false,
  poolTab: 'pool',
}));

export const panelActions = {
  setInspectorOpen(inspectorOpen: boolean) {
    usePanelStore.setState({ inspectorOpen });
  },
  toggleInspector() {
    usePanelStore.setState((s) => ({ inspectorOpen: !s.inspectorOpen }));
  },
  setSettingsOpen(settingsOpen: boolean) {
    usePanelStore.setState({ settingsOpen });
  },
  openPool(poolTab: PoolTab = 'pool') {
    usePanelStore.setState({ poolOpen: true, poolTab });
  },
  closePool() {
    usePanelStore.setState({ poolOpen: false });
  },
  setPoolTab(poolTab: PoolTab) {
    usePanelStore.setState({ poolTab });
  },
  /** Everything closed: the inspector, the settings and the pool dialog. */
  closeAll() {
    usePanelStore.setState({ inspectorOpen: false, settingsOpen: false, poolOpen: false });
  },
};
