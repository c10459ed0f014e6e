import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { loadShortcodeTable, loadedShortcodeTable, onShortcodeTableLoaded, renderShortcodes } from '../emojiShortcodes';

/** A function that shows a text's emoji shortcodes as emoji; the component renders again once the table has loaded. */
export function useEmojiText(): (text: string) => string {
  const table = useSyncExternalStore(onShortcodeTableLoaded, loadedShortcodeTable);
  useEffect(() => {
    if (!table) void loadShortcodeTable();
  }, [table]);
  return useCallback((text: string) => (table ? renderShortcodes(text, table) : text), [table]);
}
