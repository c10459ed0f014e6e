import { describe, expect, it } from 'vitest';
import { migrateRememberedView, readViewParam, resolveView } from './viewMode';

describe('resolveView', () => {
  it('gives the visitor view at the plain address with nothing remembered', () => {
    expect(resolveView({ param: null, remembered: null })).toBe('visitor');
  });
  it('keeps the view this device remembers, and the address overrides it either way', () => {
    expect(resolveView({ param: null, remembered: 'presenter' })).toBe('presenter');
    expect(resolveView({ param: null, remembered: 'visitor' })).toBe('visitor');
    expect(resolveView({ param: 'presenter', remembered: 'visitor' })).toBe('presenter');
    expect(resolveView({ param: 'visitor', remembered: 'presenter' })).toBe('visitor');
  });
});

describe('migrateRememberedView', () => {
  it("keeps an explicit presenter choice and turns version 1's 'auto' into the visitor view", () => {
    expect(migrateRememberedView({ preference: 'presenter' })).toBe('presenter');
    expect(migrateRememberedView({ preference: 'auto' })).toBe('visitor');
    expect(migrateRememberedView({ preference: 'visitor' })).toBe('visitor');
    expect(migrateRememberedView(null)).toBe('visitor');
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
