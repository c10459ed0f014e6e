import type { CaptionItem, TokenizedCaptionItem } from './items';

// Captions split as coco-caption's PTB tokenizer splits them (ptbtokenizer.py: Stanford's PTBTokenizer, then punctuation dropped).

/** coco-caption's PUNCTUATIONS list (ptbtokenizer.py), lower-cased, plus the square brackets. */
const DROPPED_TOKENS = new Set(["''", "'", '``', '`', '-lrb-', '-rrb-', '-lcb-', '-rcb-', '-lsb-', '-rsb-', '.', '?', '!', ',', ':', '-', '--', '...', ';']);
const BRACKETS: Record<string, string> = { '(': '-lrb-', ')': '-rrb-', '{': '-lcb-', '}': '-rcb-', '[': '-lsb-', ']': '-rsb-' };
/** Words Stanford's tokenizer splits in two ("assimilations"). */
const ASSIMILATIONS: Record<string, [string, string]> = {
  cannot: ['can', 'not'],
  gonna: ['gon', 'na'],
  gotta: ['got', 'ta'],
  wanna: ['wan', 'na'],
  gimme: ['gim', 'me'],
  lemme: ['lem', 'me'],
};

/** A run of letters and digits, or a number with inner separators (3.5, 1,000, 12:30). */
const UNIT = String.raw`\p{N}+(?:[.,:]\p{N}+)+|[\p{L}\p{M}\p{N}]+`;
/** Hyphenated and slashed compounds stay one token, as in PTB 3 (black-and-white, 1/2, and/or). */
const WORD = new RegExp(String.raw`(?:${UNIT})(?:-(?:${UNIT}))*(?:\/(?:${UNIT})(?:-(?:${UNIT}))*)*`, 'uy');
const ACRONYM = /\p{L}(?:\.\p{L})+\.?/uy;
const ABBREVIATION = /(?:mrs|mr|ms|dr|st|jr|sr|vs|etc|mt|ft)\.(?![\p{L}\p{N}])/uy;
const CLITIC = /'(?:s|re|ve|ll|d|m)(?![\p{L}\p{N}])/uy;
const NEGATION = /'t(?![\p{L}\p{N}])/uy;
const ELLIPSIS = /\.{3,}/y;
const DASHES = /-{2,}/y;
const QUOTES = /``|''|"/y;

function stickyMatch(re: RegExp, text: string, at: number): string | null {
  re.lastIndex = at;
  const m = re.exec(text);
  return m ? m[0] : null;
}

function pushWord(tokens: string[], word: string): void {
  const split = ASSIMILATIONS[word];
  if (split) tokens.push(...split);
  else tokens.push(word);
}

/**
 * The tokens coco-caption scores a caption on: its PTBTokenizer runs Stanford CoreNLP 3.4.1's
 * PTBTokenizer with -lowerCase and drops the punctuation tokens in its list. This is a small
 * re-implementation for ordinary English captions: lower-case; split off punctuation; split clitics
 * and negations as the Penn Treebank does ("man's" -> man 's, "don't" -> do n't, "can't" -> ca n't,
 * "cannot" -> can not, "gonna" -> gon na); keep hyphenated words, slashed pairs, numbers such as
 * 3.5 and 1,000, acronyms (u.s., a.m.) and a few abbreviations (mr., st., etc.) whole; and drop
 * '' ' `` ` brackets . ? ! , : - -- ... ;
 *
 * Where it can differ from Stanford's tokenizer:
 * - Stanford knows many more abbreviations, URLs, e-mail addresses, emoticons and SGML; these
 *   become several tokens here.
 * - Stanford may escape / and * as \/ and \* (PTB 3 escaping); here they are kept as written.
 * - Brackets: Stanford writes ( ) { } [ ] as -LRB- -RRB- -LCB- -RCB- -LSB- -RSB-. coco-caption's
 *   list drops the first four (assuming -lowerCase leaves them upper-case, which was not checked)
 *   and misses the square ones, which survive there as tokens; here every bracket is dropped.
 * - An apostrophe inside a word that is not a clitic (rock'n'roll) splits the word here; Stanford
 *   keeps some of these whole. o'clock, d'... and l'... are kept whole, as there.
 * - A word ending in a period that is not a known abbreviation loses the period here ("plan b."
 *   -> plan b), where Stanford may keep it.
 */
export function tokenizeCaption(caption: string): string[] {
  const text = caption
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201B\u02BC\u00B4]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/\u2026/g, '...')
    .replace(/[\u2013\u2014\u2015]/g, '--');
  const tokens: string[] = [];
  let at = 0;
  while (at < text.length) {
    const ch = text[at]!;
    if (/\s/u.test(ch)) {
      at++;
      continue;
    }
    const fixed = stickyMatch(ELLIPSIS, text, at) ?? stickyMatch(ACRONYM, text, at) ?? stickyMatch(ABBREVIATION, text, at);
    if (fixed !== null) {
      tokens.push(fixed.startsWith('..') ? '...' : fixed);
      at += fixed.length;
      continue;
    }
    const word = stickyMatch(WORD, text, at);
    if (word !== null) {
      const end = at + word.length;
      if (text[end] === "'") {
        const clitic = stickyMatch(CLITIC, text, end);
        if (word.endsWith('n') && stickyMatch(NEGATION, text, end) !== null) {
          if (word.length > 1) pushWord(tokens, word.slice(0, -1));
          tokens.push("n't");
          at = end + 2;
          continue;
        }
        if (clitic !== null) {
          pushWord(tokens, word);
          tokens.push(clitic);
          at = end + clitic.length;
          continue;
        }
        const rest = /^[odl]$/.test(word) ? stickyMatch(WORD, text, end + 1) : null;
        if (rest !== null) {
          tokens.push(`${word}'${rest}`);
          at = end + 1 + rest.length;
          continue;
        }
      }
      pushWord(tokens, word);
      at = end;
      continue;
    }
    // A clitic written apart from its word, as in already tokenized text ("the man 's hat").
    const clitic = stickyMatch(CLITIC, text, at);
    if (clitic !== null) {
      tokens.push(clitic);
      at += clitic.length;
      continue;
    }
    const dashes = stickyMatch(DASHES, text, at);
    if (dashes !== null) {
      tokens.push('--');
      at += dashes.length;
      continue;
    }
    const quote = stickyMatch(QUOTES, text, at);
    if (quote !== null) {
      tokens.push("''");
      at += quote.length;
      continue;
    }
    const symbol = String.fromCodePoint(text.codePointAt(at)!);
    tokens.push(BRACKETS[symbol] ?? symbol);
    at += symbol.length;
  }
  return tokens.filter((t) => !DROPPED_TOKENS.has(t));
}

export function tokenizeCaptionItems(items: readonly CaptionItem[]): TokenizedCaptionItem[] {
  return items.map((item) => ({ candidate: tokenizeCaption(item.candidate), references: item.references.map(tokenizeCaption) }));
}
