import { describe, expect, it } from 'vitest';
import { WorkerClient, type WorkerPort } from './client';
import { BEAT_MS, BUSY_SILENCE_MS, MISSED_BEATS, WorkerHeartbeat } from './heartbeat';
import type { WorkerEvent } from './protocol';

/** A clock the test moves by hand, with the watch's ticks and the worker's beat timer on it. */
function fakeClock() {
  let now = 0;
  const timers: { every: number; next: number; run: () => void }[] = [];
  const every = (ms: number, run: () => void) => void timers.push({ every: ms, next: now + ms, run });
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      now = due.next;
      due.next += due.every;
      due.run();
    }
    now = end;
  };
  return { now: () => now, every, advance };
}

/** A worker as the client sees it: what it posts reaches the client's listeners at once; `beats` stops when it is killed. */
function fakeWorker() {
  const listeners: ((e: MessageEvent<WorkerEvent>) => void)[] = [];
  let alive = true;
  const port: WorkerPort = {
    postMessage: () => undefined,
    addEventListener: ((type: string, listener: (e: MessageEvent<WorkerEvent>) => void) => {
      if (type === 'message') listeners.push(listener);
    }) as WorkerPort['addEventListener'],
  };
  const post = (event: WorkerEvent) => {
    if (alive) listeners.forEach((l) => l({ data: event } as MessageEvent<WorkerEvent>));
  };
  return { port, post, kill: () => (alive = false) };
}

describe('the heartbeat', () => {
  it('takes a worker that stops beating without an error event for crashed after three missed beats, and never one that beats', () => {
    const clock = fakeClock();
    const worker = fakeWorker();
    const client = new WorkerClient(worker.port, clock);
    new WorkerHeartbeat(worker.post, clock.every);
    const crashes: string[] = [];
    client.onCrash((reason) => crashes.push(reason));
    clock.advance(60_000);
    expect(crashes).toEqual([]);
    worker.kill();
    clock.advance(MISSED_BEATS * BEAT_MS);
    expect(crashes).toEqual([]);
    clock.advance(500);
    expect(crashes).toHaveLength(1);
    expect(crashes[0]).toMatch(/^it stopped answering: no heartbeat for 4\.\d s$/);
    // Reported once, however long it stays silent.
    clock.advance(60_000);
    expect(crashes).toHaveLength(1);
  });

  it('allows a busy worker a long silence (a model run blocks its beats), and still takes it for crashed after that', () => {
    const clock = fakeClock();
    const worker = fakeWorker();
    const client = new WorkerClient(worker.port, clock);
    const heartbeat = new WorkerHeartbeat(worker.post, clock.every);
    const crashes: string[] = [];
    client.onCrash((reason) => crashes.push(reason));
    heartbeat.busy();
    worker.kill(); // as silent as a worker blocked in a long run
    clock.advance(BUSY_SILENCE_MS - 500);
    expect(crashes).toEqual([]);
    clock.advance(1000);
    expect(crashes).toHaveLength(1);
  });

  it('counts a call in flight as busy, rejects it on a silent crash, and watches a restarted worker afresh', async () => {
    const clock = fakeClock();
    const first = fakeWorker();
    const client = new WorkerClient(first.port, clock);
    new WorkerHeartbeat(first.post, clock.every);
    const crashes: string[] = [];
    client.onCrash((reason) => crashes.push(reason));
    const replying = client.call('reply', { history: [], texts: ['hi'], images: [], method: null });
    first.kill();
    clock.advance(10_000);
    expect(crashes).toEqual([]);
    clock.advance(BUSY_SILENCE_MS);
    expect(crashes).toHaveLength(1);
    await expect(replying).rejects.toMatchObject({ code: 'worker-crashed' });
    const second = fakeWorker();
    client.restart(second.port);
    new WorkerHeartbeat(second.post, clock.every);
    clock.advance(30_000);
    expect(crashes).toHaveLength(1);
    second.kill();
    clock.advance(MISSED_BEATS * BEAT_MS + 500);
    expect(crashes).toHaveLength(2);
  });

  it('waits for the first beat before it watches: a worker whose script is still arriving is not taken for dead', () => {
    const clock = fakeClock();
    const worker = fakeWorker();
    const client = new WorkerClient(worker.port, clock);
    const crashes: string[] = [];
    client.onCrash((reason) => crashes.push(reason));
    clock.advance(30_000);
    expect(crashes).toEqual([]);
    new WorkerHeartbeat(worker.post, clock.every);
    worker.kill();
    clock.advance(MISSED_BEATS * BEAT_MS + 500);
    expect(crashes).toHaveLength(1);
  });

  it('beats busy at once when work starts and idle when it ends, once however often released', () => {
    const posted: WorkerEvent[] = [];
    const heartbeat = new WorkerHeartbeat(
      (e) => posted.push(e),
      () => undefined,
    );
    const release = heartbeat.busy();
    release();
    release();
    expect(posted).toEqual([
      { type: 'beat', busy: false },
      { type: 'beat', busy: true },
      { type: 'beat', busy: false },
    ]);
  });
});
