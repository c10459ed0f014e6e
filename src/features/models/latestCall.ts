/**
 * Calls of which only the latest counts, such as a pack's load: starting one fires the signal of the one
 * before, whose result nobody wants any more (the worker stops that load at its next step). An object of
 * its own so a test can make one.
 */
export class LatestCall {
  private current: AbortController | null = null;

  /** The signal of a new call; the call before it is aborted. */
  start(): AbortSignal {
    this.current?.abort();
    this.current = new AbortController();
    return this.current.signal;
  }
}
