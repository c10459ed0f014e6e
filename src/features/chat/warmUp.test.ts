import { describe, expect, it } from 'vitest';
import { WarmUpRecord } from './warmUp';

describe('WarmUpRecord', () => {
  it("shows the steps in the order they were answered, with the visitor's replies that came meanwhile, and none after warming", () => {
    const shown: string[] = [];
    const record = new WarmUpRecord((text) => shown.push(text));
    let replies = 2;
    const listeners: (() => void)[] = [];
    const reply = () => {
      replies += 1;
      for (const listener of listeners) listener();
    };
    record.followReplies(
      () => replies,
      (listener) => listeners.push(listener),
    );
    // Once only: a second warm-up does not follow the replies twice.
    record.followReplies(
      () => replies,
      (listener) => listeners.push(listener),
    );
    expect(listeners).toHaveLength(1);
    record.note('started');
    record.note('rankers');
    reply();
    record.note('text-turn');
    record.note('done');
    reply();
    expect(shown.at(-1)).toBe('started rankers reply text-turn done');
  });
});
