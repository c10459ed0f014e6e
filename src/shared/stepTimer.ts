/**
 * One pending step at a time: scheduling a step replaces the one pending (a replay's next turn). An
 * object, not a module's variable, so a test can make one.
 */
export class StepTimer {
  private handle: ReturnType<typeof setTimeout> | null = null;

  schedule(ms: number, step: () => void): void {
    this.clear();
    this.handle = setTimeout(() => {
      this.handle = null;
      step();
    }, ms);
  }

  /** Drops the pending step, if any. */
  clear(): void {
    if (this.handle !== null) clearTimeout(this.handle);
    this.handle = null;
  }

  get pending(): boolean {
    return this.handle !== null;
  }
}
