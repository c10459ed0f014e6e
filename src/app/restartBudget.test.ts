import { describe, expect, it } from 'vitest';
import { RestartBudget } from './restartBudget';

describe('RestartBudget', () => {
  it('allows two restarts within a minute, refuses the third, and allows one again once the first is a minute old', () => {
    const budget = new RestartBudget(2, 60_000);
    expect(budget.allow(0)).toBe(true);
    expect(budget.allow(10_000)).toBe(true);
    expect(budget.allow(59_999)).toBe(false);
    expect(budget.allow(60_000)).toBe(true);
    expect(budget.allow(65_000)).toBe(false);
    expect(budget.allow(130_000)).toBe(true);
  });
});
