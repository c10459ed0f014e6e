import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

/**
 * A button that opens a panel of controls below it (a disclosure, not an ARIA menu: the panel holds
 * ordinary buttons and links). It closes on Escape, on a press outside, and after a button in it is used.
 */
export function MenuPanel({ label, children, className = '' }: { label: string; children: ReactNode; className?: string }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!wrapper.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div ref={wrapper} className={`relative ${className}`}>
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
        className="rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        {label} <span aria-hidden="true">☰</span>
      </button>
      {open && (
        <div
          id={panelId}
          role="group"
          aria-label={label}
          // A button that opens a menu of its own (Export) keeps this panel open; any other closes it once used.
          onClick={(e) => {
            const used = (e.target as HTMLElement).closest('button');
            if (used && !used.hasAttribute('aria-haspopup')) setOpen(false);
          }}
          className="absolute right-0 z-30 mt-1 flex w-72 max-w-[calc(100vw-1.5rem)] flex-col items-start gap-3 rounded-xl bg-white p-3 shadow-lg ring-1 ring-slate-200"
        >
          {children}
        </div>
      )}
    </div>
  );
}
