/**
 * Emoji shortcodes (":fire:", ":waving_hand:") shown as emoji. Rendering only: the stored and scored
 * texts keep their shortcodes. The names come from emojibase-data's CLDR preset (the names the pool
 * uses), then its own preset for the few older ones the CLDR renamed (":hugging_face:").
 */

/** emojibase-data's shortcode files: hexcode ("1F44B", "1F469-200D-1F4BB") to one name or several. */
export type ShortcodePreset = Readonly<Record<string, string | readonly string[]>>;

/** A shortcode name (without colons) to the emoji it stands for. */
export type ShortcodeTable = ReadonlyMap<string, string>;

/** "heart-eyes" and "heart_eyes" are the same name: typed texts use both. */
function normalizeShortcode(name: string): string {
  return name.toLowerCase().replaceAll('-', '_');
}

/** The emoji of a hexcode; a lone symbol that defaults to text style (❤, ☀) gets the emoji variation selector. */
export function emojiOfHexcode(hexcode: string): string {
  const emoji = String.fromCodePoint(...hexcode.split('-').map((h) => Number.parseInt(h, 16)));
  return [...emoji].length === 1 && !/\p{Emoji_Presentation}/u.test(emoji) ? `${emoji}\uFE0F` : emoji;
}

/** One table from several presets; a name in an earlier preset wins. */
export function shortcodeTable(presets: readonly ShortcodePreset[]): ShortcodeTable {
  const table = new Map<string, string>();
  for (const preset of presets) {
    for (const [hexcode, names] of Object.entries(preset)) {
      const emoji = emojiOfHexcode(hexcode);
      for (const name of typeof names === 'string' ? [names] : names) {
        const key = normalizeShortcode(name);
        if (!table.has(key)) table.set(key, emoji);
      }
    }
  }
  return table;
}

const SHORTCODE = /:([a-z0-9_+-]+):/giy;

/** The text with every known shortcode replaced by its emoji; unknown ones ("10:30:", ":nope:") stay as typed. */
export function renderShortcodes(text: string, table: ShortcodeTable): string {
  if (!text.includes(':')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(':', i);
    if (colon < 0) break;
    out += text.slice(i, colon);
    SHORTCODE.lastIndex = colon;
    const match = SHORTCODE.exec(text);
    const emoji = match ? table.get(normalizeShortcode(match[1]!)) : undefined;
    if (match && emoji) {
      out += emoji;
      i = colon + match[0].length;
    } else {
      // The closing colon may open the next shortcode ("ok:fire:").
      out += ':';
      i = colon + 1;
    }
  }
  return out + text.slice(i);
}

let loaded: ShortcodeTable | null = null;
let loading: Promise<ShortcodeTable> | null = null;
const listeners = new Set<() => void>();

/** Loads the table once, in its own chunk (about 60 kB gzipped), so the first screen does not wait for it. */
export function loadShortcodeTable(): Promise<ShortcodeTable> {
  loading ??= Promise.all([import('emojibase-data/en/shortcodes/cldr.json'), import('emojibase-data/en/shortcodes/emojibase.json')])
    .then(([cldr, own]) => {
      loaded = shortcodeTable([cldr.default, own.default]);
      for (const listener of listeners) listener();
      return loaded;
    })
    .catch(() => {
      // Offline before the chunk was cached: texts keep their shortcodes, and the next render tries again.
      loading = null;
      return new Map<string, string>();
    });
  return loading;
}

/** The table once loaded, else null (texts then show their shortcodes until it is). */
export function loadedShortcodeTable(): ShortcodeTable | null {
  return loaded;
}

/** Calls onLoad when the table arrives; returns the unsubscribe. */
export function onShortcodeTableLoaded(onLoad: () => void): () => void {
  listeners.add(onLoad);
  return () => listeners.delete(onLoad);
}
