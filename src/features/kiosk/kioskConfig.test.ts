import { describe, expect, it } from 'vitest';
import { readKioskConfig } from './kioskConfig';

describe('readKioskConfig', () => {
  it('is off with a 2-minute reset by default', () => {
    expect(readKioskConfig('')).toEqual({ kiosk: false, idleMs: 120_000, warnMs: 20_000 });
  });
  it('reads ?kiosk=1 and ?idle=<seconds>', () => {
    expect(readKioskConfig('?pack=x&kiosk=1&idle=45')).toEqual({ kiosk: true, idleMs: 45_000, warnMs: 20_000 });
    expect(readKioskConfig('?kiosk=0').kiosk).toBe(false);
  });
  it('raises an idle time under 10 s to 10 s, so a link cannot wipe a stand in a second', () => {
    expect(readKioskConfig('?kiosk=1&idle=1').idleMs).toBe(10_000);
    expect(readKioskConfig('?idle=0.01').idleMs).toBe(10_000);
    expect(readKioskConfig('?idle=10.4').idleMs).toBe(10_400);
  });
  it('ignores an idle time that is not a positive number', () => {
    expect(readKioskConfig('?idle=soon').idleMs).toBe(120_000);
    expect(readKioskConfig('?idle=-5').idleMs).toBe(120_000);
    expect(readKioskConfig('?idle=').idleMs).toBe(120_000);
  });
});
