import { describe, expect, it } from 'vitest';
import { LatestCall } from './latestCall';

describe('LatestCall', () => {
  it('aborts the call before when a new one starts, and only that one', () => {
    const calls = new LatestCall();
    const first = calls.start();
    expect(first.aborted).toBe(false);
    const second = calls.start();
    expect(first.aborted).toBe(true);
    expect(second.aborted).toBe(false);
    const third = calls.start();
    expect(second.aborted).toBe(true);
    expect(third.aborted).toBe(false);
    // Another object's calls are its own.
    expect(new LatestCall().start().aborted).toBe(false);
    expect(third.aborted).toBe(false);
  });
});
