/**
 * Who the page is laid out for. The visitor view is the chat alone; the presenter view adds what a
 * presenter explains on stage: the backend, each reply's developer line, the visitor's reference answer.
 */
export type ViewMode = 'visitor' | 'presenter';

/** `?view=presenter` or `?view=visitor`; anything else is no choice. */
export function readViewParam(search: string): ViewMode | null {
  const view = new URLSearchParams(search).get('view');
  return view === 'presenter' || view === 'visitor' ? view : null;
}

/**
 * The plain address is the visitor's page. The presenter view is chosen, in the address or in
 * Settings; the address wins over what this device remembers (and is then remembered in its place).
 */
export function resolveView(input: { param: ViewMode | null; remembered: ViewMode | null }): ViewMode {
  return input.param ?? input.remembered ?? 'visitor';
}

/**
 * The view a device remembered under an older version of the page. Version 1 kept 'auto' (the
 * presenter view on a wide screen), which is now the visitor view: only an explicit 'presenter' stays.
 */
export function migrateRememberedView(stored: unknown): ViewMode {
  const preference = typeof stored === 'object' && stored !== null ? (stored as { preference?: unknown }).preference : undefined;
  return preference === 'presenter' ? 'presenter' : 'visitor';
}
