import { describe, expect, it } from 'vitest';
import { RunningDownloads } from './packDownloads';

/** A download that runs until its signal is aborted, then takes a step to write its last state. */
function untilAborted(log: string[]) {
  return (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => {
        log.push('aborted');
        setTimeout(() => {
          log.push('state written');
          resolve();
        }, 0);
      });
    });
}

describe('RunningDownloads', () => {
  it('stops a download and resolves only once it has ended, so its bytes are deleted after its last write', async () => {
    const log: string[] = [];
    const downloads = new RunningDownloads();
    const run = downloads.run('pack', untilAborted(log));
    expect(downloads.has('pack')).toBe(true);
    await downloads.stop('pack');
    log.push('deleted');
    expect(log).toEqual(['aborted', 'state written', 'deleted']);
    expect(downloads.has('pack')).toBe(false);
    await run;
    // Nothing to stop: resolves at once.
    await downloads.stop('other');
  });

  it('pauses one download and leaves the others running', async () => {
    const log: string[] = [];
    const downloads = new RunningDownloads();
    const first = downloads.run('a', untilAborted(log));
    void downloads.run('b', untilAborted([]));
    downloads.pause('a');
    await first;
    expect(log).toEqual(['aborted', 'state written']);
    expect([downloads.has('a'), downloads.has('b')]).toEqual([false, true]);
    await downloads.stop('b');
  });
});
