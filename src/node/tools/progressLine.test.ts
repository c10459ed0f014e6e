import { describe, expect, it } from 'vitest';
import { ProgressLine } from './progressLine';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, write: (text: string) => writes.push(text) }, writes };
}

describe('ProgressLine', () => {
  it('writes plain lines to a log file: at 0%, every 10% and at the end, never a carriage return', () => {
    const { stream, writes } = fakeStream(false);
    const progress = new ProgressLine({ stream });
    for (let done = 0; done <= 1000; done++) progress.update(`texts ${done}/1000`, done, 1000, 'texts');
    progress.end();
    expect(writes).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000].map((n) => `texts ${n}/1000\n`));
    expect(writes.join('')).not.toContain('\r');
  });

  it('starts each bar (a phase, a file) afresh, and ends a bar only once', () => {
    const { stream, writes } = fakeStream(false);
    const progress = new ProgressLine({ stream, stepPercent: 50 });
    for (const [key, total] of [
      ['a.onnx', 4],
      ['b.json', 1],
    ] as const) {
      for (let done = 1; done <= total; done++) progress.update(`${key} ${done}/${total}`, done, total, key);
      progress.update(`${key} ${total}/${total}`, total, total, key);
    }
    progress.update('empty 0/0', 0, 0, 'empty');
    expect(writes).toEqual(['a.onnx 1/4\n', 'a.onnx 2/4\n', 'a.onnx 4/4\n', 'b.json 1/1\n', 'empty 0/0\n']);
  });

  it('redraws one line in place on a terminal, at most every 100 ms, and ends it with a newline', () => {
    const { stream, writes } = fakeStream(true);
    let ms = 0;
    const progress = new ProgressLine({ stream, now: () => ms });
    progress.update('images 1/4 (25%)', 1, 4);
    progress.update('images 1/4 (25%)', 1, 4);
    ms = 50;
    progress.update('images 2/4', 2, 4);
    ms = 150;
    progress.update('images 3/4', 3, 4);
    ms = 160;
    progress.update('images 4/4', 4, 4);
    progress.end();
    expect(writes).toEqual(['\rimages 1/4 (25%)', '\rimages 3/4      ', '\rimages 4/4', '\n']);
  });

  it('ends a bar left open on a terminal, so an error message gets its own line', () => {
    const { stream, writes } = fakeStream(true);
    const progress = new ProgressLine({ stream });
    progress.update('model.onnx 10/90 MB', 10, 90, 'model.onnx');
    progress.end();
    progress.end();
    expect(writes).toEqual(['\rmodel.onnx 10/90 MB', '\n']);
  });
});
