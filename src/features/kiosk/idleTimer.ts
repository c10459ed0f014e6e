/**
 * The kiosk's reset-after-idle timer, with no DOM and an injected clock, so it can be tested
 * step by step. It is armed by the first activity, shows a countdown for the last seconds, and
 * calls onExpire once; after that it waits for the next activity (an empty start screen has
 * nothing to reset).
 */

/** What the page shows about idleness: nothing yet, or the seconds left before the reset. */
export type IdleView = { kind: 'quiet' } | { kind: 'countdown'; secondsLeft: number };

export type IdleStatus = IdleView | { kind: 'expired' };

export interface TimerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface IdleTimerOptions {
  idleMs: number;
  /** The countdown shows for the last warnMs (all of idleMs when that is shorter). */
  warnMs: number;
  clock: TimerClock;
  /** Called when what the page should show changes (each whole second of the countdown). */
  onView(view: IdleView): void;
  onExpire(): void;
}

export interface IdleTimer {
  /** The visitor did something: the timer starts over, armed. */
  activity(): void;
  /** Stops counting until the next activity. */
  disarm(): void;
  readonly armed: boolean;
}

/** Where idleForMs of idleness stands against the limit: quiet, counting down (seconds rounded up), or expired. */
export function idleStatus(idleForMs: number, idleMs: number, warnMs: number): IdleStatus {
  const remaining = idleMs - idleForMs;
  if (remaining <= 0) return { kind: 'expired' };
  if (remaining <= Math.min(warnMs, idleMs)) return { kind: 'countdown', secondsLeft: Math.ceil(remaining / 1000) };
  return { kind: 'quiet' };
}

export function createIdleTimer(options: IdleTimerOptions): IdleTimer {
  const { idleMs, clock } = options;
  const warnMs = Math.min(options.warnMs, idleMs);
  let armed = false;
  let lastActivity = 0;
  let handle: unknown = null;
  let shown = 'quiet';

  const show = (view: IdleView) => {
    const key = view.kind === 'quiet' ? 'quiet' : `countdown ${view.secondsLeft}`;
    if (key === shown) return;
    shown = key;
    options.onView(view);
  };
  const cancel = () => {
    if (handle !== null) clock.clearTimeout(handle);
    handle = null;
  };
  const check = () => {
    handle = null;
    if (!armed) return;
    const idleFor = clock.now() - lastActivity;
    const status = idleStatus(idleFor, idleMs, warnMs);
    if (status.kind === 'expired') {
      armed = false;
      show({ kind: 'quiet' });
      options.onExpire();
      return;
    }
    show(status);
    // Wake when the countdown starts, then at each whole second of it.
    const remaining = idleMs - idleFor;
    const wait = status.kind === 'quiet' ? remaining - warnMs : remaining - (status.secondsLeft - 1) * 1000;
    handle = clock.setTimeout(check, Math.max(wait, 1));
  };

  return {
    activity() {
      armed = true;
      lastActivity = clock.now();
      cancel();
      check();
    },
    disarm() {
      armed = false;
      cancel();
      show({ kind: 'quiet' });
    },
    get armed() {
      return armed;
    },
  };
}
