/** The page's keyboard shortcuts, as a pure mapping from a key press to a command. */
export type KeyCommand = 'toggle-inspector' | 'close-inspector' | 'toggle-kiosk' | 'toggle-settings';

export interface KeyPress {
  key: string;
  /** The physical key (KeyboardEvent.code): Ctrl+Alt+letter gives other characters on some layouts. */
  code: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  /** Focus is in a text field, a select or an editable element, where letters are typing. */
  inTextField: boolean;
}

/** Shown in the page and in docs/using-the-demo.md; the source of truth for the shortcuts. */
export const SHORTCUTS = {
  inspector: 'i',
  kiosk: 'Ctrl+Alt+K',
  settings: 'Ctrl+Alt+S',
} as const;

export function keyCommandFor(press: KeyPress): KeyCommand | null {
  if (press.ctrlKey && press.altKey && !press.metaKey) {
    if (press.code === 'KeyK') return 'toggle-kiosk';
    if (press.code === 'KeyS') return 'toggle-settings';
    return null;
  }
  if (press.ctrlKey || press.altKey || press.metaKey) return null;
  if (press.key === 'Escape') return 'close-inspector';
  if (press.inTextField) return null;
  if (press.key === 'i' || press.key === 'I') return 'toggle-inspector';
  return null;
}
