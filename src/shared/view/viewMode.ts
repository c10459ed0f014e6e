/**
 * Who the page is laid out for. The visitor view is the chat alone; the presenter view adds what a
 * presenter explains on stage: the backend, each reply's developer line, the visitor's reference answer.
 */
export type ViewMode = 'visitor' | 'presenter';
/** What the settings remember: a fixed view, or 'auto' (visitor in kiosk mode and on small screens). */
export type ViewPreference = 'auto' | ViewMode;

/** `?view=presenter` or `?view=visitor`; anything else is no choice. */
export function readViewParam(search: string): ViewMode | null {
  const view = new URLSearchParams(search).get('view');
  return view === 'presenter' || view === 'visitor' ? view : null;
}

/** The address wins, then the remembered choice; with neither, kiosk mode and small screens get the visitor view. */
export function resolveView(input: { param: ViewMode | null; preference: ViewPreference; kiosk: boolean; narrow: boolean }): ViewMode {
  if (input.param) return input.param;
  if (input.preference !== 'auto') return input.preference;
  return input.kiosk || input.narrow ? 'visitor' : 'presenter';
}
