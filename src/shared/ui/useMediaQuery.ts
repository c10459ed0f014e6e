import { useSyncExternalStore } from 'react';

/** Whether a media query matches now; follows the window as it is resized or rotated. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
  );
}

/** Below Tailwind's `md` (768 px): phones, where the header folds into a menu. */
export const NARROW_SCREEN = '(max-width: 767.98px)';
