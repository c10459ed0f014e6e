import { describe, expect, it } from 'vitest';
import { readViewParam, resolveView } from './viewMode';

describe('resolveView', () => {
  const base = { param: null, preference: 'auto', kiosk: false, narrow: false } as const;
  it('gives the presenter view on a wide screen outside kiosk mode, the visitor view in kiosk mode or on a phone', () => {
    expect(resolveView(base)).toBe('presenter');
    expect(resolveView({ ...base, kiosk: true })).toBe('visitor');
    expect(resolveView({ ...base, narrow: true })).toBe('visitor');
  });
  it('keeps a remembered choice, and the address overrides it', () => {
    expect(resolveView({ ...base, kiosk: true, preference: 'presenter' })).toBe('presenter');
    expect(resolveView({ ...base, preference: 'visitor' })).toBe('visitor');
    expect(resolveView({ ...base, preference: 'visitor', param: 'presenter' })).toBe('presenter');
    expect(resolveView({ ...base, narrow: true, param: 'presenter' })).toBe('presenter');
  });
});

describe('readViewParam', () => {
  it('reads ?view=presenter and ?view=visitor, and ignores anything else', () => {
    expect(readViewParam('?view=presenter&kiosk=1')).toBe('presenter');
    expect(readViewParam('?view=visitor')).toBe('visitor');
    expect(readViewParam('?view=admin')).toBeNull();
    expect(readViewParam('')).toBeNull();
  });
});
