import { panelActions } from '../../shared/stores/panelStore';
import { type IdleTimer, createIdleTimer } from './idleTimer';
import { readKioskConfig } from './kioskConfig';
import { kioskActions, useKioskStore } from './kioskStore';

/** What kiosk mode needs from the conversation; app/startApp.ts wires it to the chat. */
export interface KioskHost {
  /** Clears the conversation and the message box for the next visitor, leaving nothing to undo. */
  startOver(): Promise<void>;
  /** Calls onActivity whenever the conversation moves (a message, or a reply arriving); returns the unsubscribe. */
  watchConversation(onActivity: () => void): () => void;
  /** Whether a conversation is on screen now (one a previous visitor left starts the clock). */
  hasConversation(): boolean;
  /** Shows kiosk mode's own conversation, or the page's: a kiosk reset never touches the page's conversation. */
  showConversation(kiosk: boolean): Promise<void>;
}

/**
 * What counts as a visitor being there: a touch, click, key, typing, wheel or pointer movement.
 * Not 'scroll': the page scrolls by itself when messages come and go.
 */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'input', 'wheel', 'touchstart'] as const;

const browserClock = {
  now: () => Date.now(),
  setTimeout: (callback: () => void, ms: number) => window.setTimeout(callback, ms),
  clearTimeout: (handle: unknown) => window.clearTimeout(handle as number),
};

/** Reads ?kiosk and ?idle from the address; starts in kiosk mode when asked. Returns the page's kiosk mode, for its shortcut. */
export function initKiosk(kioskHost: KioskHost): Kiosk {
  const kiosk = new Kiosk(kioskHost);
  const config = readKioskConfig(window.location.search);
  kioskActions.configure(config.idleMs, config.warnMs);
  if (config.kiosk) kiosk.enter();
  void kioskHost.showConversation(config.kiosk);
  return kiosk;
}

/** Kiosk mode of one page: its idle clock and what it listens to while on. An object, so a test can make one. */
export class Kiosk {
  private timer: IdleTimer | null = null;
  private stopWatching: (() => void) | null = null;

  constructor(private readonly host: KioskHost) {}

  /** Enters kiosk mode; `switchConversation` (from the keyboard, not the address) puts the page's conversation aside. */
  enter(switchConversation = false): void {
    if (useKioskStore.getState().enabled) return;
    if (switchConversation) void this.host.showConversation(true);
    const { idleMs, warnMs } = useKioskStore.getState();
    kioskActions.setEnabled(true);
    panelActions.setSettingsOpen(false);
    panelActions.closePool();
    document.documentElement.classList.add('kiosk');
    const idle = createIdleTimer({
      idleMs,
      warnMs,
      clock: browserClock,
      onView: (view) => kioskActions.setSecondsLeft(view.kind === 'countdown' ? view.secondsLeft : null),
      onExpire: () => void this.resetForNextVisitor(),
    });
    this.timer = idle;
    const onActivity = () => idle.activity();
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { capture: true, passive: true });
    // A new message (a reply, or a conversation restored from a previous visitor) also starts the clock.
    const unsubscribe = this.host.watchConversation(() => idle.activity());
    if (this.host.hasConversation()) idle.activity();
    this.stopWatching = () => {
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity, { capture: true });
      unsubscribe();
      idle.disarm();
    };
  }

  leave(): void {
    if (useKioskStore.getState().enabled) void this.host.showConversation(false);
    this.stopWatching?.();
    this.stopWatching = null;
    this.timer = null;
    kioskActions.setEnabled(false);
    document.documentElement.classList.remove('kiosk');
  }

  /** Ctrl+Alt+K: in and out of kiosk mode, asking the browser for full screen on the way in. */
  toggle(): void {
    if (useKioskStore.getState().enabled) {
      this.leave();
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    } else {
      this.enter(true);
      if (document.fullscreenEnabled && !document.fullscreenElement) void document.documentElement.requestFullscreen().catch(() => undefined);
    }
  }

  /** Back to the start state for the next visitor: no conversation, panels closed, settings locked. No confirmation. */
  private async resetForNextVisitor(): Promise<void> {
    this.timer?.disarm();
    panelActions.closeAll();
    kioskActions.startedOver();
    await this.host.startOver();
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  }
}

/** Ctrl+Alt+S: opens the settings (in kiosk mode, unlocks them and the pool) or closes them again. */
export function toggleSettings(): void {
  const { enabled, settingsUnlocked } = useKioskStore.getState();
  if (enabled) {
    kioskActions.setSettingsUnlocked(!settingsUnlocked);
    panelActions.setSettingsOpen(!settingsUnlocked);
    if (settingsUnlocked) panelActions.closePool();
  } else {
    panelActions.setSettingsOpen(true);
  }
}
