import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttleProgress } from './progressThrottle';
import type { FileProgress } from '../protocol/protocol';

describe('throttleProgress', () => {
  let clock = 0;
  let posted: FileProgress[] = [];
  const make = () =>
    throttleProgress(
      (p) => posted.push(p),
      100,
      () => clock,
    );
  const at = (file: string, loaded: number, total: number | null = 1000): FileProgress => ({ file, loaded, total });

  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
    posted = [];
  });
  afterEach(() => vi.useRealTimers());

  it('posts a file at once, holds the counts that follow within the interval, and posts its end at once', () => {
    const throttle = make();
    throttle.report(at('a.onnx', 0));
    for (let loaded = 64; loaded < 1000; loaded += 64) {
      clock += 5;
      throttle.report(at('a.onnx', loaded));
    }
    clock += 5;
    throttle.report(at('a.onnx', 1000));
    // 16 chunks over 80 ms: the first report and the end, nothing between.
    expect(posted).toEqual([at('a.onnx', 0), at('a.onnx', 1000)]);
    vi.advanceTimersByTime(1000);
    expect(posted).toHaveLength(2);
  });

  it('posts the latest count of a long read once per interval', () => {
    const throttle = make();
    throttle.report(at('a.onnx', 0));
    for (let step = 1; step <= 50; step++) {
      clock += 10;
      throttle.report(at('a.onnx', step * 10));
    }
    // 500 ms of 10 ms chunks: the first report and one every 100 ms.
    expect(posted.map((p) => p.loaded)).toEqual([0, 100, 200, 300, 400, 500]);
  });

  it('posts a held count when the interval runs out with nothing new, so a stalled read shows where it stopped', () => {
    const throttle = make();
    throttle.report(at('a.onnx', 0));
    clock += 30;
    throttle.report(at('a.onnx', 300));
    expect(posted).toHaveLength(1);
    clock += 70;
    vi.advanceTimersByTime(70);
    expect(posted).toEqual([at('a.onnx', 0), at('a.onnx', 300)]);
  });

  it('lists every new file at once, and flush posts the latest held count of each file', () => {
    const throttle = make();
    throttle.report(at('a.onnx', 0));
    throttle.report(at('b.onnx', 0));
    clock += 10;
    throttle.report(at('a.onnx', 10, null));
    throttle.report(at('b.onnx', 20));
    throttle.report(at('a.onnx', 30, null));
    expect(posted).toEqual([at('a.onnx', 0), at('b.onnx', 0)]);
    throttle.flush();
    expect(posted).toEqual([at('a.onnx', 0), at('b.onnx', 0), at('a.onnx', 30, null), at('b.onnx', 20)]);
    vi.advanceTimersByTime(1000);
    expect(posted).toHaveLength(4);
  });
});
