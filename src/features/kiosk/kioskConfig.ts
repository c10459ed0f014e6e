/** Kiosk settings read from the address: `?kiosk=1` starts in kiosk mode, `?idle=<seconds>` sets the reset delay. */
export interface KioskConfig {
  kiosk: boolean;
  idleMs: number;
  /** The countdown shows for the last warnMs before the reset. */
  warnMs: number;
}

export const DEFAULT_IDLE_MS = 120_000;
export const COUNTDOWN_MS = 20_000;

export function readKioskConfig(search: string): KioskConfig {
  const params = new URLSearchParams(search);
  const kiosk = params.get('kiosk');
  const idle = Number(params.get('idle'));
  return {
    kiosk: kiosk !== null && kiosk !== '0' && kiosk !== 'false',
    idleMs: params.has('idle') && Number.isFinite(idle) && idle > 0 ? Math.round(idle * 1000) : DEFAULT_IDLE_MS,
    warnMs: COUNTDOWN_MS,
  };
}
