import { nowMs } from './clock';

/** One step of loading a pack and its pool, and how long it took. */
export interface LoadStep {
  step: string;
  ms: number;
  /** Where the step's time went, when the step knows (the CLIP towers: configs and tokenizer, sessions). */
  parts?: Record<string, number>;
}

/**
 * The load's steps as they happen, so the presenter view and `bench -- browser` can say where the
 * time to Ready goes (issue 38) without a profiler. Each mark closes the step begun by the previous one.
 */
export class LoadSteps {
  private readonly steps: LoadStep[] = [];
  private last = nowMs();

  mark(step: string, parts?: Record<string, number>): void {
    const now = nowMs();
    this.steps.push({ step, ms: now - this.last, ...(parts ? { parts } : {}) });
    this.last = now;
  }

  list(): LoadStep[] {
    return this.steps.map((s) => ({ ...s, ...(s.parts ? { parts: { ...s.parts } } : {}) }));
  }
}

/** "CLIP towers 1.20 s · heads 0.31 s · …": the steps in one line. */
export function describeLoadSteps(steps: readonly LoadStep[]): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return steps
    .map((s) => {
      const parts = Object.entries(s.parts ?? {}).map(([part, ms]) => `${part} ${seconds(ms)}`);
      return `${s.step} ${seconds(s.ms)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
    })
    .join(' · ');
}
