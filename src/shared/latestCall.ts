/**
 * A call of which only the latest counts, and which a Cancel button may stop: a pack's load, a dataset's
 * import, the heads' training, a scene file's reading. Starting one aborts the one before (its result is
 * no longer wanted; the worker stops it at its next step); `cancel` aborts the one under way. An object,
 * not a module's variable, so a test can make one.
 */
export class LatestCall {
  private current: AbortController | null = null;

  /** The signal of a new call; the call before it is aborted. */
  start(): AbortSignal {
    this.current?.abort();
    this.current = new AbortController();
    return this.current.signal;
  }

  /** Aborts the call under way, if any. */
  cancel(): void {
    this.current?.abort();
  }

  /** Whether a call started here has not finished yet (an aborted one runs until it says it finished). */
  get running(): boolean {
    return this.current !== null;
  }

  /** The call with this signal has ended; a newer call, if one started since, stays the current one. */
  finish(signal: AbortSignal): void {
    if (this.current?.signal === signal) this.current = null;
  }
}
