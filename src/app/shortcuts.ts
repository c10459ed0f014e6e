import { usePanelStore, panelActions } from '../shared/stores/panelStore';
import { keyCommandFor } from '../shared/keyCommands';
import { type Kiosk, toggleSettings } from '../features/kiosk/kiosk';

function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'range', 'color'].includes(target.type);
}

/** A modal dialog (the pool panel) has the keyboard to itself. */
function modalOpen(): boolean {
  return document.querySelector('dialog[open]') !== null;
}

let installed = false;

/** One keydown listener for the page's shortcuts (see keyCommands.ts); `kiosk` is the page's kiosk mode. */
export function installShortcuts(kiosk: Pick<Kiosk, 'toggle'>): void {
  if (installed) return;
  installed = true;
  window.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.repeat) return;
    const command = keyCommandFor({ key: e.key, code: e.code, ctrlKey: e.ctrlKey, altKey: e.altKey, metaKey: e.metaKey, inTextField: inTextField(e.target) });
    if (!command) return;
    switch (command) {
      case 'toggle-kiosk':
        e.preventDefault();
        kiosk.toggle();
        return;
      case 'toggle-settings':
        e.preventDefault();
        toggleSettings();
        return;
      case 'toggle-inspector':
        if (modalOpen()) return;
        e.preventDefault();
        panelActions.toggleInspector();
        return;
      case 'close-inspector':
        if (modalOpen() || !usePanelStore.getState().inspectorOpen) return;
        panelActions.setInspectorOpen(false);
        return;
    }
  });
}
