import { describe, expect, it } from 'vitest';
import { type PageMark, readyAt, turnLatency } from './pageClock';

const marks: PageMark[] = [
  { kind: 'ready', t: 5012.5 },
  { kind: 'act', what: 'click What a lovely day', t: 6000 },
  { kind: 'reply', n: 0, t: 6290 },
  { kind: 'act', what: 'file set #photo-input', t: 7000 },
  { kind: 'act', what: 'click Send', t: 7060 },
  { kind: 'reply', n: 1, t: 7410.25 },
];

describe('the page clock', () => {
  it('times Ready from the navigation start, and a turn from its first action to its reply on screen', () => {
    expect(readyAt(marks)).toBe(5012.5);
    expect(turnLatency(marks, 1, 0)).toBe(290);
    // A photo counts from the file being set, not from Send: its check is part of the wait.
    expect(turnLatency(marks, 3, 1)).toBe(410.25);
  });

  it('refuses to time what it did not see', () => {
    expect(readyAt(marks.slice(1))).toBeNull();
    expect(() => turnLatency(marks, 6, 1)).toThrow('noted no click or file after mark 6');
    expect(() => turnLatency(marks, 3, 2)).toThrow('noted no reply 3 on screen');
    // An action after the reply it is paired with: a bench that read the marks at the wrong moment.
    expect(() => turnLatency(marks, 3, 0)).toThrow('Reply 1 was on screen before the action');
  });
});
