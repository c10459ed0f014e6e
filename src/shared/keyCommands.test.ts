import { describe, expect, it } from 'vitest';
import { keyCommandFor } from './keyCommands';

describe('keyCommandFor', () => {
  const press = (key: string, extra: Partial<Parameters<typeof keyCommandFor>[0]> = {}) =>
    keyCommandFor({ key, code: `Key${key.toUpperCase()}`, ctrlKey: false, altKey: false, metaKey: false, inTextField: false, ...extra });
  it('toggles the inspector with i, except while typing', () => {
    expect(press('i')).toBe('toggle-inspector');
    expect(press('i', { inTextField: true })).toBeNull();
    expect(press('i', { ctrlKey: true })).toBeNull();
  });
  it('uses the physical key for Ctrl+Alt combinations, even in a text field', () => {
    // On some layouts Ctrl+Alt+K types another character (AltGr); the code is still KeyK.
    expect(press('ĸ', { code: 'KeyK', ctrlKey: true, altKey: true, inTextField: true })).toBe('toggle-kiosk');
    expect(press('s', { ctrlKey: true, altKey: true })).toBe('toggle-settings');
    expect(press('k', { ctrlKey: true })).toBeNull();
  });
  it('closes the inspector with Escape', () => {
    expect(press('Escape', { code: 'Escape' })).toBe('close-inspector');
  });
});
