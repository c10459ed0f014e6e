import { describe, expect, it } from 'vitest';
import { type IdleView, type TimerClock, createIdleTimer, idleStatus } from './idleTimer';

/** A clock whose time moves only when the test says, running due timers in order. */
class ManualClock implements TimerClock {
  private time = 0;
  private nextId = 1;
  private timers = new Map<number, { at: number; callback: () => void }>();
  now() {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.timers.delete(handle as number);
  }
  advance(ms: number) {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
  }
}

function setup(idleMs = 120_000, warnMs = 20_000) {
  const clock = new ManualClock();
  const views: string[] = [];
  let resets = 0;
  const timer = createIdleTimer({
    idleMs,
    warnMs,
    clock,
    onView: (v: IdleView) => views.push(v.kind === 'quiet' ? 'quiet' : String(v.secondsLeft)),
    onExpire: () => resets++,
  });
  return { clock, views, timer, resets: () => resets };
}

describe('idleStatus', () => {
  it('is quiet, then counts whole seconds up, then expires', () => {
    expect(idleStatus(0, 120_000, 20_000)).toEqual({ kind: 'quiet' });
    expect(idleStatus(99_999, 120_000, 20_000)).toEqual({ kind: 'quiet' });
    expect(idleStatus(100_000, 120_000, 20_000)).toEqual({ kind: 'countdown', secondsLeft: 20 });
    expect(idleStatus(108_500, 120_000, 20_000)).toEqual({ kind: 'countdown', secondsLeft: 12 });
    expect(idleStatus(119_999, 120_000, 20_000)).toEqual({ kind: 'countdown', secondsLeft: 1 });
    expect(idleStatus(120_000, 120_000, 20_000)).toEqual({ kind: 'expired' });
  });
});

describe('createIdleTimer', () => {
  it('does nothing until the first activity', () => {
    const { clock, views, timer, resets } = setup();
    clock.advance(600_000);
    expect(timer.armed).toBe(false);
    expect(views).toEqual([]);
    expect(resets()).toBe(0);
  });

  it('shows the countdown in the last 20 s, each second, then resets once', () => {
    const t = setup();
    t.timer.activity();
    t.clock.advance(99_000);
    expect(t.views).toEqual([]);
    t.clock.advance(1_000);
    expect(t.views).toEqual(['20']);
    t.clock.advance(8_500);
    expect(t.views.at(-1)).toBe('12');
    expect(t.resets()).toBe(0);
    t.clock.advance(11_500);
    expect(t.views).toEqual(['20', '19', '18', '17', '16', '15', '14', '13', '12', '11', '10', '9', '8', '7', '6', '5', '4', '3', '2', '1', 'quiet']);
    expect(t.resets()).toBe(1);
    // Disarmed after the reset: the start screen is not reset again.
    t.clock.advance(600_000);
    expect(t.resets()).toBe(1);
    expect(t.timer.armed).toBe(false);
  });

  it('starts over on activity, hiding the countdown', () => {
    const { clock, views, timer, resets } = setup();
    timer.activity();
    clock.advance(110_000);
    expect(views.at(-1)).toBe('10');
    timer.activity();
    expect(views.at(-1)).toBe('quiet');
    clock.advance(119_000);
    expect(resets()).toBe(0);
    expect(views.at(-1)).toBe('1');
    clock.advance(1_000);
    expect(resets()).toBe(1);
  });

  it('counts down all the way when the idle time is shorter than the countdown', () => {
    const { clock, views, timer, resets } = setup(3_000);
    timer.activity();
    expect(views).toEqual(['3']);
    clock.advance(3_000);
    expect(views).toEqual(['3', '2', '1', 'quiet']);
    expect(resets()).toBe(1);
  });

  it('stops counting when disarmed', () => {
    const { clock, views, timer, resets } = setup(30_000);
    timer.activity();
    clock.advance(15_000);
    timer.disarm();
    expect(views.at(-1)).toBe('quiet');
    clock.advance(60_000);
    expect(resets()).toBe(0);
  });
});
