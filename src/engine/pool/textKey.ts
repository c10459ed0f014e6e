/** Printable ASCII and whitespace: text whose NFKD form is itself, with no marks (any other text takes the full path). */
const ASCII_ONLY = /^[\t\n\r -~]*$/;
const TRAILING_LAUGH = /( ha(ha)*)+$/;

/**
 * Two texts are "the same message" when their keys match: no accents, case, apostrophes or
 * punctuation, a repeated letter counted once, and no trailing "haha", so "Whoa!!" and "whoaaa haha"
 * are one text. The same rule as the demo generator's `text_key` (models/scripts/pool/grammar.py), so
 * the pool is deduplicated, and a reply is told apart from what was already said, as the demo's
 * held-out texts are told apart from the pool.
 */
export function textKey(text: string): string {
  const plain = ASCII_ONLY.test(text) ? asciiKeyBody(text) : keyBody(text);
  return plain.endsWith('ha') ? plain.replace(TRAILING_LAUGH, '') : plain;
}

/** The rule before the laugh is dropped, for any text. */
function keyBody(text: string): string {
  const plain = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\u2019/g, "'")
    .replace(/'/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return plain.replace(/(.)\1+/g, '$1');
}

const APOSTROPHE = 39;

/**
 * keyBody in one pass for ASCII text, where NFKD changes nothing: the page keys the pool's 65k texts
 * before Ready, and the chain of regular expressions took a third of a second for them (75 ms this way).
 */
function asciiKeyBody(text: string): string {
  let key = '';
  let last = -1;
  let gap = false;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === APOSTROPHE) continue;
    if (c >= 65 && c <= 90) c += 32;
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      gap = key !== '';
      continue;
    }
    // A run of anything else is one space, never at the start or the end; a repeated character is kept once.
    if (gap) {
      key += ' ';
      last = 32;
      gap = false;
    }
    if (c !== last) {
      key += String.fromCharCode(c);
      last = c;
    }
  }
  return key;
}
