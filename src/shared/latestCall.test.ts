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

  it('cancel aborts the call under way; a call is running until it finishes, and an older call finishing leaves the newer one', () => {
    const calls = new LatestCall();
    expect(calls.running).toBe(false);
    calls.cancel(); // nothing under way: nothing happens
    const first = calls.start();
    expect(calls.running).toBe(true);
    calls.cancel();
    expect(first.aborted).toBe(true);
    expect(calls.running).toBe(true);
    calls.finish(first);
    expect(calls.running).toBe(false);
    const second = calls.start();
    const third = calls.start();
    calls.finish(second);
    expect(calls.running).toBe(true);
    calls.cancel();
    expect(third.aborted).toBe(true);
    calls.finish(third);
    expect(calls.running).toBe(false);
  });
});
