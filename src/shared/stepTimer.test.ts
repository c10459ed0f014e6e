import { afterEach, describe, expect, it, vi } from 'vitest';
import { StepTimer } from './stepTimer';

afterEach(() => {
  vi.useRealTimers();
});

describe('StepTimer', () => {
  it('runs only the latest step scheduled, once, and none after clear', () => {
    vi.useFakeTimers();
    const ran: string[] = [];
    const timer = new StepTimer();
    timer.schedule(100, () => ran.push('first'));
    timer.schedule(100, () => ran.push('second'));
    expect(timer.pending).toBe(true);
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(['second']);
    expect(timer.pending).toBe(false);
    timer.schedule(50, () => ran.push('third'));
    timer.clear();
    vi.advanceTimersByTime(1_000);
    expect(ran).toEqual(['second']);
    expect(timer.pending).toBe(false);
  });
});
