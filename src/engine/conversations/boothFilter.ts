import { SCREEN_CATEGORY_IDS, type ScreenCategoryId, screenCategoryOf } from '../safety/screenLists';

/**
 * What a booth must never show, and what the text encoders cannot read, for texts taken from other
 * people's conversations into the pool: the screen's categories (safety/screenLists.ts: sexual,
 * self-harm, violence, hate, drugs and getting drunk, personal data, slurs and insults, political
 * opinions), links and e-mail addresses. The lists err towards dropping a harmless line ("Dick Van
 * Dyke"), which costs the pool one text among tens of thousands.
 */
export const BOOTH_FILTER_REASONS = ['unreadable', 'url', 'email', ...SCREEN_CATEGORY_IDS] as const;
export type BoothFilterReason = 'unreadable' | 'url' | 'email' | ScreenCategoryId;

const URL = /\b(?:https?:\/\/|www\.)\S+|\b[a-z0-9-]+\.(?:com|org|net|edu|gov|io|co\.uk|ly)\b(?:\/\S*)?/i;
const EMAIL = /\b[^\s@]+@[^\s@]+\.[a-z]{2,}\b/i;
// U+FFFD marks bytes that were not text (a broken encoding), a lone surrogate cannot be encoded at all,
// and control characters are not meant to be read; the CLIP tokenizer would turn each into noise tokens.
const UNREADABLE = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text must not reach the pool, or null when it may. `strict` (booth strictness) drops the borderline too. */
export function boothFilterReason(text: string, options: { strict?: boolean } = {}): BoothFilterReason | null {
  if (UNREADABLE.test(text) || !/[\p{L}\p{N}]/u.test(text)) return 'unreadable';
  if (EMAIL.test(text)) return 'email';
  if (URL.test(text)) return 'url';
  return screenCategoryOf(text, { reader: 'pool', strict: options.strict === true });
}
