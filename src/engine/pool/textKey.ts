/** Printable ASCII and whitespace: text whose NFKD form is itself, with no marks (any other text takes the full path). */
const ASCII_ONLY = /^[\t\n\r -~]*$/;

/**
 * Two texts are "the same message" when their keys match: no accents, case, apostrophes or
 * punctuation, a repeated letter counted once, and no trailing "haha", so "Whoa!!" and "whoaaa haha"
 * are one text. The same rule as the demo generator's `text_key` (models/scripts/pool/grammar.py), so
 * the pool is deduplicated, and a reply is told apart from what was already said, as the demo's
 * held-out texts are told apart from the pool.
 */
export function textKey(text: string): string {
  // NFKD and dropping marks change nothing in ASCII text, most of the pool: skipped there (the page keys 65k texts before Ready).
  const folded = ASCII_ONLY.test(text) ? text : text.normalize('NFKD').replace(/\p{M}/gu, '');
  const plain = folded
    .toLowerCase()
    .replace(/\u2019/g, "'")
    .replace(/'/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return plain.replace(/(.)\1+/g, '$1').replace(/( ha(ha)*)+$/, '');
}
