import { create } from 'zustand';

/** Which side panels are open: the inspector and the settings section. */
interface PanelState {
  inspectorOpen: boolean;
  settingsOpen: boolean;
}

export const usePanelStore = create<PanelState>()(() => ({
  inspectorOpen: false,
  settingsOpen: false,
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
  closeAll() {
    usePanelStore.setState({ inspectorOpen: false, settingsOpen: false });
  },
};
