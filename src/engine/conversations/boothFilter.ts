import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';

/**
 * What a booth must never show, and what the text encoders cannot read, for texts taken from other
 * people's conversations into the pool. Profanity and slurs are the English lists of `obscenity` (a
 * maintained matcher that also sees through "f*ck" and "sh1t"); it errs towards dropping a harmless
 * line ("Dick Van Dyke"), which costs the pool one text among tens of thousands.
 */
export const BOOTH_FILTER_REASONS = ['unreadable', 'profanity', 'url', 'email'] as const;
export type BoothFilterReason = (typeof BOOTH_FILTER_REASONS)[number];

let matcher: RegExpMatcher | null = null;
function profanity(): RegExpMatcher {
  matcher ??= new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
  return matcher;
}

const URL = /\b(?:https?:\/\/|www\.)\S+|\b[a-z0-9-]+\.(?:com|org|net|edu|gov|io|co\.uk|ly)\b(?:\/\S*)?/i;
const EMAIL = /\b[^\s@]+@[^\s@]+\.[a-z]{2,}\b/i;
// U+FFFD marks bytes that were not text (a broken encoding), a lone surrogate cannot be encoded at all,
// and control characters are not meant to be read; the CLIP tokenizer would turn each into noise tokens.
const UNREADABLE = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text must not reach the pool, or null when it may. */
export function boothFilterReason(text: string): BoothFilterReason | null {
  if (UNREADABLE.test(text) || !/[\p{L}\p{N}]/u.test(text)) return 'unreadable';
  if (EMAIL.test(text)) return 'email';
  if (URL.test(text)) return 'url';
  if (profanity().hasMatch(text)) return 'profanity';
  return null;
}
