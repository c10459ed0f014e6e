import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { startNewConversation, undoLastTurn } from './chatController';
import { type ExportFormat, exportConversation } from './exportController';
import { useChatStore } from './chatStore';

const BUTTON =
  'rounded-lg border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

const FORMATS: { format: ExportFormat; label: string }[] = [
  { format: 'mmdialog', label: 'MMDialog JSON (.zip with images)' },
  { format: 'markdown', label: 'Markdown (.zip with images)' },
];

/** Ctrl+Z (Cmd+Z on a Mac) undoes the last turn, unless the focus is in a text field, where it undoes typing. */
function useUndoShortcut(): void {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'z' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.defaultPrevented) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (target && (target.isContentEditable || target.closest('input, textarea, select, dialog[open]'))) return;
      if (document.querySelector('dialog[open]')) return;
      e.preventDefault();
      void undoLastTurn();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** A menu button: arrow keys move between the formats, Escape closes and returns focus. */
function ExportMenu({ disabled }: { disabled: boolean }) {
  const exporting = useChatStore((s) => s.exporting);
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const items = useRef<(HTMLButtonElement | null)[]>([]);
  const wrapper = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    items.current[0]?.focus();
    const onPointer = (e: PointerEvent) => {
      if (!wrapper.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const list = items.current.filter((b): b is HTMLButtonElement => b !== null);
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      list[(at + (e.key === 'ArrowDown' ? 1 : list.length - 1)) % list.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      list[e.key === 'Home' ? 0 : list.length - 1]?.focus();
    } else if (e.key === 'Tab') setOpen(false);
  };

  return (
    <div ref={wrapper} className="relative">
      <button
        ref={button}
        type="button"
        disabled={disabled || exporting}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
        className={BUTTON}
      >
        {exporting ? 'Exporting…' : 'Export'} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          id={menuId}
          role="menu"
          aria-label="Export the conversation as"
          onKeyDown={onMenuKey}
          className="absolute right-0 z-20 mt-1 flex w-72 flex-col rounded-lg bg-white py-1 shadow-lg ring-1 ring-slate-200"
        >
          {FORMATS.map((f, i) => (
            <button
              key={f.format}
              ref={(el) => {
                items.current[i] = el;
              }}
              type="button"
              role="menuitem"
              onClick={() => {
                close();
                void exportConversation(f.format);
              }}
              className="px-3 py-2 text-left text-sm hover:bg-slate-100 focus-visible:bg-blue-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
            >
              {f.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** Undo last turn, New conversation and Export, in the page header. */
export function ConversationTools() {
  useUndoShortcut();
  const empty = useChatStore((s) => s.messages.length === 0);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const hydrated = useChatStore((s) => s.hydrated);
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        onClick={() => void undoLastTurn()}
        disabled={!hydrated || empty || awaitingReply}
        aria-keyshortcuts="Control+Z Meta+Z"
        title={awaitingReply ? 'Wait for the reply, then undo' : 'Remove your last turn and its reply; its text goes back into the message box (Ctrl+Z)'}
        className={BUTTON}
      >
        Undo last turn
      </button>
      <ExportMenu disabled={!hydrated || empty} />
      <button type="button" onClick={() => void startNewConversation()} className={BUTTON}>
        New conversation
      </button>
    </div>
  );
}
