import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textKey } from '../pool/textKey';

/** The rule as written before ASCII text skipped normalisation: every text through NFKD. */
function fullTextKey(text: string): string {
  const plain = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\u2019/g, "'")
    .replace(/'/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return plain.replace(/(.)\1+/g, '$1').replace(/( ha(ha)*)+$/, '');
}

describe('text keys', () => {
  it('are the full rule for every text of the demo pool and for accented, typographic and control-character text', () => {
    const pool = (JSON.parse(readFileSync(join('public', 'pool', 'texts.json'), 'utf8')) as { texts: { text: string }[] }).texts.map((t) => t.text);
    const odd = [
      'Café crème!!',
      'Don’t   STOP',
      'ｆｕｌｌ ｗｉｄｔｈ',
      'tab\there\u0007bell',
      'Whoa!! haha',
      'naïve résumé',
      '',
      "  'hi'  ",
      'a--b',
      'AAa  aA',
      'hahaha',
      'ha',
      'x haha ha',
      "'''",
      '!!!',
      'o  o',
      "Tom's 2 22 cars...",
    ];
    let differing = 0;
    for (const text of [...pool, ...odd]) if (textKey(text) !== fullTextKey(text)) differing++;
    expect(differing).toBe(0);
    expect(textKey('Whoaaa!! haha')).toBe('whoa');
    expect(textKey('Café crème')).toBe('cafe creme');
  });
});
