import { useKioskStore } from './kioskStore';

/** The kiosk's last seconds before it starts over for the next visitor. */
export function KioskCountdown() {
  const secondsLeft = useKioskStore((s) => s.secondsLeft);
  if (secondsLeft === null) return null;
  return (
    <div className="pointer-events-none fixed inset-x-0 top-4 z-50 flex justify-center px-4">
      <div
        role="timer"
        aria-live="off"
        data-testid="kiosk-countdown"
        className="rounded-2xl bg-slate-900 px-6 py-3 text-center text-xl font-semibold text-white shadow-2xl"
      >
        Resetting in {secondsLeft} s — touch or type to keep chatting
      </div>
      {/* Announced once, not every second. */}
      <p role="status" className="sr-only">
        This conversation resets soon for the next visitor. Touch or type to keep chatting.
      </p>
    </div>
  );
}
