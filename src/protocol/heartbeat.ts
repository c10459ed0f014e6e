import type { WorkerEvent } from './protocol';

/**
 * A worker can die without an error event (killed by the browser, or run out of memory in a way that
 * takes it alone): then nothing would ever answer the page again. The worker beats every BEAT_MS; the
 * page (WorkerClient) counts a worker that has said nothing for MISSED_BEATS beats as crashed and
 * restarts it. A worker in the middle of long work (a request, the pool's rows) cannot beat while a
 * model runs, so while it is busy the page waits BUSY_SILENCE_MS before it gives up.
 */
export const BEAT_MS = 1500;
export const MISSED_BEATS = 3;
export const BUSY_SILENCE_MS = 60_000;

/** The worker's side: beats on a timer, and at once whenever it becomes busy or idle. */
export class WorkerHeartbeat {
  private busyCount = 0;

  constructor(
    private readonly post: (event: WorkerEvent) => void,
    every: (ms: number, beat: () => void) => void = (ms, beat) => void setInterval(beat, ms),
  ) {
    every(BEAT_MS, () => this.beat());
    this.beat();
  }

  /** Runs `work` as busy: the page allows a long silence until it ends. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const done = this.busy();
    try {
      return await work();
    } finally {
      done();
    }
  }

  /** Busy from now until the returned function is called (once). */
  busy(): () => void {
    this.busyCount++;
    this.beat();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busyCount--;
      this.beat();
    };
  }

  private beat(): void {
    this.post({ type: 'beat', busy: this.busyCount > 0 });
  }
}

/** The page's side: what the client needs to watch for silence; a test passes its own clock. */
export interface HeartbeatWatch {
  now(): number;
  every(ms: number, tick: () => void): void;
}

/** How long a worker may be silent before it counts as crashed: MISSED_BEATS beats, or BUSY_SILENCE_MS while it is busy. */
export function allowedSilenceMs(busy: boolean): number {
  return busy ? BUSY_SILENCE_MS : MISSED_BEATS * BEAT_MS;
}
