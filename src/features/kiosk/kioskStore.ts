import { create } from 'zustand';
import { COUNTDOWN_MS, DEFAULT_IDLE_MS } from './kioskConfig';

interface KioskState {
  /** Conference mode: full-screen layout, large type, reset after idle, configuration locked. */
  enabled: boolean;
  idleMs: number;
  warnMs: number;
  /** Seconds left before the reset, while the countdown shows; null otherwise. */
  secondsLeft: number | null;
  /** Settings and pool loading, opened in kiosk mode with the key combination. */
  settingsUnlocked: boolean;
  /** Counts resets, so the composer starts empty after one. */
  resets: number;
}

export const useKioskStore = create<KioskState>()(() => ({
  enabled: false,
  idleMs: DEFAULT_IDLE_MS,
  warnMs: COUNTDOWN_MS,
  secondsLeft: null,
  settingsUnlocked: false,
  resets: 0,
}));

/** Whether configuration is hidden: in kiosk mode, until the key combination unlocks it. */
export const selectConfigLocked = (s: KioskState) => s.enabled && !s.settingsUnlocked;

export const kioskActions = {
  configure(idleMs: number, warnMs: number) {
    useKioskStore.setState({ idleMs, warnMs });
  },
  setEnabled(enabled: boolean) {
    useKioskStore.setState({ enabled, settingsUnlocked: false, secondsLeft: null });
  },
  setSecondsLeft(secondsLeft: number | null) {
    useKioskStore.setState({ secondsLeft });
  },
  setSettingsUnlocked(settingsUnlocked: boolean) {
    useKioskStore.setState({ settingsUnlocked });
  },
  startedOver() {
    useKioskStore.setState((s) => ({ resets: s.resets + 1, settingsUnlocked: false, secondsLeft: null }));
  },
};
