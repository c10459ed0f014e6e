/** Kiosk settings read from the address: `?kiosk=1` starts in kiosk mode, `?idle=<seconds>` sets the reset delay (at least 10 s). */
export interface KioskConfig {
  kiosk: boolean;
  idleMs: number;
  /** The countdown shows for the last warnMs before the reset. */
  warnMs: number;
}

export const DEFAULT_IDLE_MS = 120_000;
/** A shorter reset would clear a visitor's reply while they still read it; `?idle=1` must not wipe a stand in a second. */
const MIN_IDLE_MS = 10_000;
export const COUNTDOWN_MS = 20_000;

export function readKioskConfig(search: string): KioskConfig {
  const params = new URLSearchParams(search);
  const kiosk = params.get('kiosk');
  const idle = Number(params.get('idle'));
  return {
    kiosk: kiosk !== null && kiosk !== '0' && kiosk !== 'false',
    idleMs: params.has('idle') && Number.isFinite(idle) && idle > 0 ? Math.max(MIN_IDLE_MS, Math.round(idle * 1000)) : DEFAULT_IDLE_MS,
    warnMs: COUNTDOWN_MS,
  };
}
