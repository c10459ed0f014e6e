/**
 * How often the page restarts a crashed model worker: at most `limit` times within `windowMs`, so a
 * worker that dies on start (a broken file, a browser out of memory) does not restart for ever.
 * Times come from the caller, so the rule is tested with exact numbers, never with the clock.
 */
export class RestartBudget {
  private readonly restarts: number[] = [];

  constructor(
    readonly limit = 2,
    readonly windowMs = 60_000,
  ) {}

  /** Whether a restart at `nowMs` is allowed; an allowed one is counted. */
  allow(nowMs: number): boolean {
    while (this.restarts.length > 0 && nowMs - this.restarts[0]! >= this.windowMs) this.restarts.shift();
    if (this.restarts.length >= this.limit) return false;
    this.restarts.push(nowMs);
    return true;
  }
}
