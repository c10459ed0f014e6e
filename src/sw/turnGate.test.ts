import { describe, expect, it } from 'vitest';
import { isPageMessage } from './protocol';
import { type GateClock, MAX_PAUSE_MS, TurnGate } from './turnGate';

/** A clock the test moves by hand: sleeps resolve when it passes their end, or when woken. */
function manualClock() {
  let now = 0;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const clock: GateClock = {
    now: () => now,
    sleep: (ms, wake) =>
      new Promise<void>((resolve) => {
        const sleeper = { until: now + ms, resolve };
        sleepers.push(sleeper);
        wake(() => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          resolve();
        });
      }),
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const s of sleepers.filter((s) => s.until <= now)) {
      sleepers.splice(sleepers.indexOf(s), 1);
      s.resolve();
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { clock, advance };
}

/** Whether a promise has settled, after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe('offline caching waits for the turn', () => {
  it('lets a download start at once when no turn is being answered', async () => {
    const gate = new TurnGate(manualClock().clock);
    expect(await settled(gate.wait())).toBe(true);
    expect(gate.waits).toEqual({ count: 0, ms: 0 });
  });

  it('holds a download while a turn is answered and lets it go when the turn ends', async () => {
    const { clock, advance } = manualClock();
    const gate = new TurnGate(clock);
    gate.set(true);
    const download = gate.wait();
    await advance(1_500);
    expect(await settled(download)).toBe(false);
    gate.set(false);
    expect(await settled(download)).toBe(true);
    expect(gate.waits).toEqual({ count: 1, ms: 1_500 });
  });

  it('lets it go when the page never says the turn ended (a closed tab), after MAX_PAUSE_MS', async () => {
    const { clock, advance } = manualClock();
    const gate = new TurnGate(clock);
    gate.set(true);
    const download = gate.wait();
    await advance(MAX_PAUSE_MS - 1);
    expect(await settled(download)).toBe(false);
    await advance(1);
    expect(await settled(download)).toBe(true);
    expect(gate.waits.ms).toBe(MAX_PAUSE_MS);
  });

  it('a second busy message (a longer turn) extends the pause from then', async () => {
    const { clock, advance } = manualClock();
    const gate = new TurnGate(clock);
    gate.set(true);
    const download = gate.wait();
    await advance(MAX_PAUSE_MS - 5_000);
    gate.set(true);
    await advance(5_000);
    expect(await settled(download)).toBe(false);
    await advance(MAX_PAUSE_MS - 5_000);
    expect(await settled(download)).toBe(true);
  });
});

describe("the gate's stamp", () => {
  it("says what the page had last said, busy or idle, with its number, and stays 'busy' when a pause lapsed", async () => {
    const { clock, advance } = manualClock();
    const gate = new TurnGate(clock);
    expect(gate.stamp).toBe('idle-0');
    gate.set(true, 1);
    expect(gate.stamp).toBe('busy-1');
    await advance(MAX_PAUSE_MS);
    expect(gate.paused).toBe(false);
    // A download let go by the lapse shows it: the page had not said it was done.
    expect(gate.stamp).toBe('busy-1');
    gate.set(false, 2);
    expect(gate.stamp).toBe('idle-2');
  });
});

describe("the page's busy message", () => {
  it('is read only with a boolean busy, as the other page messages are checked', () => {
    expect(isPageMessage({ type: 'busy', busy: true, seq: 1 })).toBe(true);
    expect(isPageMessage({ type: 'busy', busy: false, seq: 2 })).toBe(true);
    expect(isPageMessage({ type: 'busy', busy: true })).toBe(false);
    expect(isPageMessage({ type: 'busy', busy: 'yes', seq: 3 })).toBe(false);
    expect(isPageMessage({ type: 'busy' })).toBe(false);
    expect(isPageMessage({ type: 'cache-pack', packId: 'mini-clip', runtime: 'wasm-only' })).toBe(true);
    expect(isPageMessage({ type: 'cache-pack', packId: 'mini-clip', runtime: 'webgpu-capable' })).toBe(true);
    expect(isPageMessage({ type: 'cache-pack', packId: 'mini-clip' })).toBe(false);
    expect(isPageMessage({ type: 'cache-pack', packId: 'mini-clip', runtime: 'webgl' })).toBe(false);
    expect(isPageMessage({ type: 'pause-everything' })).toBe(false);
  });
});
