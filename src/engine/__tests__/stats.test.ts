import { describe, expect, it } from 'vitest';
import { median, percentile } from '../stats';

describe('percentile and median', () => {
  it('take the nearest rank, as every benchmark table does', () => {
    expect(median([5, 1, 3, 2, 4])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(20);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(96);
    expect(percentile([7], 0)).toBe(7);
    expect(percentile([3, 1, 2], 100)).toBe(3);
  });

  it('say NaN for no values, so a table prints NaN instead of failing', () => {
    expect(median([])).toBeNaN();
    expect(percentile([], 95)).toBeNaN();
  });

  it('leave the values as they were', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});
