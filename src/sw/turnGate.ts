/**
 * Offline caching waits its turn: while the page loads the model or answers a visitor (a typed line, a
 * photo, a video), the service worker starts no new download of the offline copy, so the two do not
 * share the CPU and the network. The page says when it is busy and when no longer; a pause it never
 * ends (a closed tab, a crashed page) lapses after MAX_PAUSE_MS, so the copy is never held up for good.
 */

/**
 * The header on each download of the offline copy (a same-origin request, so no preflight). Its value
 * is the gate's `stamp` when the download passed it, so a server's log (and the e2e test) can tell what
 * the page had last said then.
 */
export const OFFLINE_COPY_HEADER = 'X-Offline-Copy';

/** The longest one "busy" message holds downloads back; the page repeats it every half of this while it stays busy. */
export const MAX_PAUSE_MS = 20_000;

export interface GateClock {
  now(): number;
  /** Resolves after `ms`, or earlier when `wake` is called. */
  sleep(ms: number, wake: (resume: () => void) => void): Promise<void>;
}

const realClock: GateClock = {
  now: () => Date.now(),
  sleep: (ms, wake) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake(() => {
        clearTimeout(timer);
        resolve();
      });
    }),
};

export class TurnGate {
  private pausedUntil = 0;
  private wakers: (() => void)[] = [];
  /** How many downloads have waited, and for how long in all: the page shows nothing of it, the tests read it. */
  readonly waits = { count: 0, ms: 0 };

  constructor(private readonly clock: GateClock = realClock) {}

  /** The last message from the page: busy or not, and its number (the page counts them). */
  private last = { busy: false, seq: 0 };

  /** The page became busy, or is no longer; `seq` numbers the page's messages. */
  set(busy: boolean, seq = 0): void {
    this.last = { busy, seq };
    this.pausedUntil = busy ? this.clock.now() + MAX_PAUSE_MS : 0;
    if (!busy) {
      const wakers = this.wakers;
      this.wakers = [];
      for (const wake of wakers) wake();
    }
  }

  /**
   * What the page had last said, as "busy-<seq>" or "idle-<seq>": a download stamped "busy" passed the
   * gate while the page was busy (only after a pause lapsed), and any stamp shows which messages arrived.
   */
  get stamp(): string {
    return `${this.last.busy ? 'busy' : 'idle'}-${this.last.seq}`;
  }

  get paused(): boolean {
    return this.clock.now() < this.pausedUntil;
  }

  /** Resolves at once when no turn is being answered, else when it ends (or its pause lapses). */
  async wait(): Promise<void> {
    if (!this.paused) return;
    const start = this.clock.now();
    this.waits.count++;
    while (this.paused) await this.clock.sleep(this.pausedUntil - this.clock.now(), (resume) => this.wakers.push(resume));
    this.waits.ms += this.clock.now() - start;
  }
}
