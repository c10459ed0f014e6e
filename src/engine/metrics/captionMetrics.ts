import { EngineError } from '../errors';

/**
 * The COCO caption metrics (Chen et al. 2015, "Microsoft COCO Captions: Data Collection and
 * Evaluation Server", and its code, coco-caption / pycocoevalcap) for a set of images, each with
 * one candidate caption and one or more human references: BLEU-1..4, ROUGE-L and CIDEr-D as
 * coco-caption computes them, and METEOR as Banerjee & Lavie (2005) define it (the jar coco-caption
 * runs needs Java, WordNet and paraphrase tables; see `meteor`).
 * Every score is on coco-caption's 0-1 scale (CIDEr-D 0-10).
 */

export interface CaptionItem {
  candidate: string;
  references: string[];
}

/** A caption item after `tokenizeCaption`; tokens never contain whitespace. */
export interface TokenizedCaptionItem {
  candidate: string[];
  references: string[][];
}

export interface CaptionScores {
  /** BLEU-1, -2, -3, -4. */
  bleu: [number, number, number, number];
  rougeL: number;
  meteor: number;
  ciderD: number;
}

// ---------------------------------------------------------------------------------------------
// Tokenization
// ---------------------------------------------------------------------------------------------

/** coco-caption's PUNCTUATIONS list (ptbtokenizer.py), lower-cased, plus the square brackets. */
const DROPPED_TOKENS = new Set(["''", "'", '``', '`', '-lrb-', '-rrb-', '-lcb-', '-rcb-', '-lsb-', '-rsb-', '.', '?', '!', ',', ':', '-', '--', '...', ';']);
const BRACKETS: Record<string, string> = { '(': '-lrb-', ')': '-rrb-', '{': '-lcb-', '}': '-rcb-', '[': '-lsb-', ']': '-rsb-' };
/** Words Stanford's tokenizer splits in two ("assimilations"). */
const ASSIMILATIONS: Record<string, [string, string]> = {
  cannot: ['can', 'not'], gonna: ['gon', 'na'], gotta: ['got', 'ta'], wanna: ['wan', 'na'], gimme: ['gim', 'me'], lemme: ['lem', 'me'],
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

function checkItems(items: readonly TokenizedCaptionItem[]): void {
  if (items.length === 0) throw new EngineError('invalid-input', 'There are no captions to score. Pass at least one image with a candidate caption and its references.');
  items.forEach((item, i) => {
    if (item.references.length === 0) throw new EngineError('invalid-input', `Image ${i} has no reference captions. Every image needs at least one to be scored against.`);
  });
}

/** Counts of every n-gram of order 1..maxOrder; index k holds order k+1, keys are the tokens joined by spaces. */
function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, number>[] {
  const counts: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const ofOrder = new Map<string, number>();
    for (let i = 0; i + n <= tokens.length; i++) {
      const gram = tokens.slice(i, i + n).join(' ');
      ofOrder.set(gram, (ofOrder.get(gram) ?? 0) + 1);
    }
    counts.push(ofOrder);
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// BLEU
// ---------------------------------------------------------------------------------------------

export interface BleuResult {
  /** BLEU-1..4: BLEU-n is the geometric mean of the modified precisions p1..pn times the brevity penalty. */
  bleu: [number, number, number, number];
  /** Clipped n-gram matches summed over images, orders 1..4. */
  matches: [number, number, number, number];
  /** Candidate n-grams summed over images, orders 1..4. */
  candidateNgrams: [number, number, number, number];
  /** Summed candidate length c. */
  candidateLength: number;
  /** Summed effective reference length r: per image, the reference length closest to the candidate's (the shorter on a tie). */
  referenceLength: number;
}

/** coco-caption's constants: tiny is added to every match count, small to every n-gram count, so no term is 0/0. */
const BLEU_TINY = 1e-15;
const BLEU_SMALL = 1e-9;

/**
 * Corpus BLEU (Papineni et al. 2002, eqs. 1-2) as coco-caption's BleuScorer computes it with
 * option 'closest': clipped n-gram matches and candidate n-grams are summed over all images before
 * dividing (not a mean of per-image BLEU); p_n = (matches_n + 1e-15) / (ngrams_n + 1e-9);
 * BLEU-n = (p_1 ... p_n)^(1/n) x BP with BP = exp(1 - 1/ratio) when ratio = (c + 1e-15) / (r + 1e-9) < 1.
 * So a corpus with no 4-gram match gets a tiny positive BLEU-4, not 0, as in coco-caption.
 */
export function bleu(items: readonly TokenizedCaptionItem[]): BleuResult {
  checkItems(items);
  const matches = [0, 0, 0, 0];
  const candidateNgrams = [0, 0, 0, 0];
  let candidateLength = 0;
  let referenceLength = 0;
  for (const { candidate, references } of items) {
    const maxReferenceCounts = new Map<string, number>();
    for (const reference of references) {
      for (const ofOrder of ngramCounts(reference, 4)) {
        for (const [gram, count] of ofOrder) maxReferenceCounts.set(gram, Math.max(maxReferenceCounts.get(gram) ?? 0, count));
      }
    }
    ngramCounts(candidate, 4).forEach((ofOrder, k) => {
      for (const [gram, count] of ofOrder) matches[k]! += Math.min(count, maxReferenceCounts.get(gram) ?? 0);
      candidateNgrams[k]! += Math.max(0, candidate.length - k);
    });
    const c = candidate.length;
    let closest = references[0]!.length;
    for (const { length } of references) {
      const d = Math.abs(length - c), best = Math.abs(closest - c);
      if (d < best || (d === best && length < closest)) closest = length;
    }
    candidateLength += c;
    referenceLength += closest;
  }
  const ratio = (candidateLength + BLEU_TINY) / (referenceLength + BLEU_SMALL);
  const brevityPenalty = ratio < 1 ? Math.exp(1 - 1 / ratio) : 1;
  const scores = [0, 0, 0, 0] as [number, number, number, number];
  let product = 1;
  for (let k = 0; k < 4; k++) {
    product *= (matches[k]! + BLEU_TINY) / (candidateNgrams[k]! + BLEU_SMALL);
    scores[k] = product ** (1 / (k + 1)) * brevityPenalty;
  }
  const asFour = (xs: number[]) => xs as [number, number, number, number];
  return { bleu: scores, matches: asFour(matches), candidateNgrams: asFour(candidateNgrams), candidateLength, referenceLength };
}

// ---------------------------------------------------------------------------------------------
// ROUGE-L
// ---------------------------------------------------------------------------------------------

export const ROUGE_L_BETA = 1.2;

export function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * ROUGE-L of one candidate (Lin 2004, sec. 3.1, eqs. 2-4) as coco-caption's Rouge computes it for
 * several references: P_i = LCS/|candidate| and R_i = LCS/|reference i|; P = max_i P_i and
 * R = max_i R_i, taken separately; F = (1 + b^2) P R / (R + b^2 P) with b = 1.2; 0 when P or R is 0.
 * coco-caption splits the tokenized caption on ' ', so an empty caption is one empty token; kept,
 * so an empty candidate against an empty reference scores 1 as there.
 */
export function rougeLOfImage(candidate: readonly string[], references: readonly (readonly string[])[]): number {
  const asSplit = (tokens: readonly string[]) => (tokens.length > 0 ? tokens : ['']);
  const c = asSplit(candidate);
  let precision = 0, recall = 0;
  for (const reference of references) {
    const r = asSplit(reference);
    const lcs = longestCommonSubsequence(r, c);
    precision = Math.max(precision, lcs / c.length);
    recall = Math.max(recall, lcs / r.length);
  }
  if (precision === 0 || recall === 0) return 0;
  const b2 = ROUGE_L_BETA ** 2;
  return ((1 + b2) * precision * recall) / (recall + b2 * precision);
}

/** Corpus ROUGE-L: the mean over images of `rougeLOfImage`, as coco-caption. */
export function rougeL(items: readonly TokenizedCaptionItem[]): { score: number; perImage: number[] } {
  checkItems(items);
  const perImage = items.map((item) => rougeLOfImage(item.candidate, item.references));
  return { score: mean(perImage), perImage };
}

// ---------------------------------------------------------------------------------------------
// CIDEr-D
// ---------------------------------------------------------------------------------------------

export const CIDER_D_SIGMA = 6;

interface TfIdfVector {
  /** Per order 1..4: n-gram -> tf x idf. */
  weights: Map<string, number>[];
  /** Per order: the Euclidean norm of `weights`. */
  norms: number[];
  /** coco-caption's "length": the number of bigrams, i.e. tokens - 1 (0 for an empty caption). */
  length: number;
}

/**
 * CIDEr-D (Vedantam et al. 2015, sec. 3, eqs. 1-3, with the clipping and Gaussian length penalty of
 * sec. 3.1 "CIDEr-D") exactly as coco-caption's CiderScorer computes it:
 * - df(g) is the number of evaluated images whose reference set contains g (at least once in any
 *   reference); N is the number of images; idf(g) = log N - log max(1, df(g)), natural logs, so an
 *   n-gram absent from every reference set gets log N.
 * - g_n(s) holds tf(g) x idf(g) for the n-grams of s, tf being the raw count (not normalised by length).
 * - sim_n(c, r) = sum_g min(g_n(c)_g, g_n(r)_g) g_n(r)_g / (|g_n(c)| |g_n(r)|) (no division when a
 *   norm is 0) x exp(-(l_c - l_r)^2 / (2 sigma^2)), sigma = 6, where l is coco-caption's length,
 *   which counts bigrams (tokens - 1). Kept as there; it never changes a score, since the difference
 *   is the difference in tokens when both captions have a token, and an empty caption scores 0.
 * - CIDEr-D_n = mean over references of sim_n; the image's score is 10 x the mean of CIDEr-D_1..4,
 *   and the corpus score is the mean over images.
 * With one image, every reference n-gram has idf 0, so the score is 0 (as in coco-caption).
 */
export function ciderD(items: readonly TokenizedCaptionItem[]): { score: number; perImage: number[] } {
  checkItems(items);
  const documentFrequency = new Map<string, number>();
  const referenceCounts = items.map((item) => item.references.map((r) => ngramCounts(r, 4)));
  for (const references of referenceCounts) {
    const inThisImage = new Set<string>();
    for (const counts of references) for (const ofOrder of counts) for (const gram of ofOrder.keys()) inThisImage.add(gram);
    for (const gram of inThisImage) documentFrequency.set(gram, (documentFrequency.get(gram) ?? 0) + 1);
  }
  const logImages = Math.log(items.length);
  const toVector = (counts: Map<string, number>[]): TfIdfVector => {
    const weights = counts.map((ofOrder) => {
      const w = new Map<string, number>();
      for (const [gram, tf] of ofOrder) w.set(gram, tf * (logImages - Math.log(Math.max(1, documentFrequency.get(gram) ?? 0))));
      return w;
    });
    const norms = weights.map((w) => Math.sqrt([...w.values()].reduce((s, x) => s + x * x, 0)));
    const length = [...(counts[1]?.values() ?? [])].reduce((s, tf) => s + tf, 0);
    return { weights, norms, length };
  };
  const perImage = items.map((item, i) => {
    const candidate = toVector(ngramCounts(item.candidate, 4));
    const sums = [0, 0, 0, 0];
    for (const counts of referenceCounts[i]!) {
      const reference = toVector(counts);
      const delta = candidate.length - reference.length;
      const lengthPenalty = Math.exp(-(delta * delta) / (2 * CIDER_D_SIGMA * CIDER_D_SIGMA));
      for (let k = 0; k < 4; k++) {
        let similarity = 0;
        const r = reference.weights[k]!;
        for (const [gram, c] of candidate.weights[k]!) {
          const rw = r.get(gram) ?? 0;
          similarity += Math.min(c, rw) * rw;
        }
        if (candidate.norms[k] !== 0 && reference.norms[k] !== 0) similarity /= candidate.norms[k]! * reference.norms[k]!;
        sums[k]! += similarity * lengthPenalty;
      }
    }
    // In coco-caption's order of operations: mean over n, / references, x 10.
    return (mean(sums) / item.references.length) * 10;
  });
  return { score: mean(perImage), perImage };
}

// ---------------------------------------------------------------------------------------------
// METEOR (Banerjee & Lavie 2005)
// ---------------------------------------------------------------------------------------------

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(stem: string): number {
  let m = 0, i = 0;
  while (i < stem.length && isConsonant(stem, i)) i++;
  while (i < stem.length) {
    while (i < stem.length && !isConsonant(stem, i)) i++;
    if (i >= stem.length) break;
    while (i < stem.length && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop). */
function endsCvc(word: string): boolean {
  const n = word.length;
  return n >= 3 && isConsonant(word, n - 1) && !isConsonant(word, n - 2) && isConsonant(word, n - 3) && !'wxy'.includes(word[n - 1]!);
}

/** [suffix, replacement, extra condition on the stem]. */
type SuffixRule = readonly [string, string, ((stem: string) => boolean)?];

/** Applies the rule with the longest matching suffix, and no other, when its stem has measure > minMeasure. */
function replaceSuffix(word: string, rules: readonly SuffixRule[], minMeasure: number): string {
  for (const [suffix, replacement, condition] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    return measure(stem) > minMeasure && (condition?.(stem) ?? true) ? stem + replacement : word;
  }
  return word;
}

const byLongestSuffix = (rules: SuffixRule[]) => rules.sort((a, b) => b[0].length - a[0].length);
const STEP_2 = byLongestSuffix([
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'], ['alli', 'al'],
  ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'],
  ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
]);
const STEP_3 = byLongestSuffix([['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']]);
const STEP_4 = byLongestSuffix([
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((s): SuffixRule => [s, '']),
  ['ion', '', (stem) => stem.endsWith('s') || stem.endsWith('t')],
]);

/**
 * The Porter stemmer (Porter 1980, "An algorithm for suffix stripping", steps 1a-5b) as in Porter's
 * own reference implementation, which departs from the paper in two rules: step 2 has bli -> ble
 * (for abli -> able) and logi -> log; words of one or two letters are left alone. It reproduces
 * Porter's published test vocabulary (voc.txt -> output.txt). Input is a lower-case token. This is
 * the stemmer of METEOR's "porter_stem" module (Banerjee & Lavie 2005, sec. 2).
 */
export function porterStem(token: string): string {
  let w = token;
  if (w.length <= 2) return w;
  // Step 1a.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b.
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith('ed') ? 'ed' : w.endsWith('ing') ? 'ing' : null;
    if (suffix && hasVowel(w.slice(0, -suffix.length))) {
      w = w.slice(0, -suffix.length);
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (endsDoubleConsonant(w) && !'lsz'.includes(w[w.length - 1]!)) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += 'e';
    }
  }
  // Step 1c.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = replaceSuffix(w, STEP_2, 0);
  w = replaceSuffix(w, STEP_3, 0);
  w = replaceSuffix(w, STEP_4, 1);
  // Step 5a.
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  // Step 5b.
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

/** A one-to-one mapping of candidate tokens to reference tokens, as (candidate index, reference index) pairs. */
export type Alignment = [number, number][];

/** Alternatives a stage may weigh before it settles for the best alignment found so far. */
const METEOR_SEARCH_BUDGET = 100_000;

function crossingsWith(alignment: Alignment, [i, j]: [number, number]): number {
  let crossings = 0;
  for (const [a, b] of alignment) if ((a - i) * (b - j) < 0) crossings++;
  return crossings;
}

/** Chunks: the fewest runs of mappings that are adjacent and in the same order in both captions. */
export function countChunks(alignment: Alignment): number {
  const sorted = [...alignment].sort((x, y) => x[0] - y[0]);
  let chunks = 0;
  sorted.forEach(([i, j], k) => {
    const previous = sorted[k - 1];
    if (!previous || previous[0] !== i - 1 || previous[1] !== j - 1) chunks++;
  });
  return chunks;
}

function* combinations(from: readonly number[], size: number, start = 0): Generator<number[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = start; i <= from.length - size; i++) for (const rest of combinations(from, size - 1, i + 1)) yield [from[i]!, ...rest];
}

/**
 * One METEOR stage (Banerjee & Lavie 2005, sec. 2): among tokens not yet aligned, map candidate to
 * reference tokens with the same key (the token itself, or its stem); of the largest such mappings,
 * keep the one with the fewest crossings with itself and with the earlier stages' mappings. Tokens
 * sharing a key are interchangeable, so each key only chooses which of its more numerous side's
 * tokens to map, and maps them in order (a crossing between two same-key mappings can always be
 * undone without adding others). Ties go to fewer chunks, then to the first alternative in token
 * order. The search is exhaustive for captions; past METEOR_SEARCH_BUDGET alternatives it keeps the
 * best found.
 */
function alignStage(candidateKeys: readonly string[], referenceKeys: readonly string[], fixed: Alignment): Alignment {
  const alignedCandidate = new Set(fixed.map(([i]) => i));
  const alignedReference = new Set(fixed.map(([, j]) => j));
  const positions = (keys: readonly string[], aligned: Set<number>) => {
    const byKey = new Map<string, number[]>();
    keys.forEach((key, i) => {
      if (!aligned.has(i)) byKey.set(key, [...(byKey.get(key) ?? []), i]);
    });
    return byKey;
  };
  const referenceByKey = positions(referenceKeys, alignedReference);
  const groups: { candidate: number[]; reference: number[] }[] = [];
  for (const [key, candidate] of positions(candidateKeys, alignedCandidate)) {
    const reference = referenceByKey.get(key);
    if (reference) groups.push({ candidate, reference });
  }
  // Written inside `search`, which TypeScript's narrowing does not follow: hence the widening cast.
  let best = null as { pairs: Alignment; crossings: number; chunks: number } | null;
  let budget = METEOR_SEARCH_BUDGET;
  const search = (g: number, pairs: Alignment, crossings: number): void => {
    if (best && crossings > best.crossings) return;
    if (g === groups.length) {
      budget--;
      const chunks = countChunks([...fixed, ...pairs]);
      if (!best || crossings < best.crossings || (crossings === best.crossings && chunks < best.chunks)) best = { pairs: [...pairs], crossings, chunks };
      return;
    }
    const { candidate, reference } = groups[g]!;
    const size = Math.min(candidate.length, reference.length);
    for (const chosen of candidate.length > size ? combinations(candidate, size) : combinations(reference, size)) {
      if (budget <= 0) return;
      const added: Alignment = chosen.map((x, k) => (candidate.length > size ? [x, reference[k]!] : [candidate[k]!, x]));
      let extra = 0;
      for (const pair of added) extra += crossingsWith(fixed, pair) + crossingsWith(pairs, pair);
      search(g + 1, [...pairs, ...added], crossings + extra);
    }
  };
  search(0, [], 0);
  return [...fixed, ...(best?.pairs ?? [])];
}

export interface MeteorStatistics {
  /** Mapped unigrams m. */
  matches: number;
  candidateLength: number;
  referenceLength: number;
  chunks: number;
}

/** The exact stage, then the Porter-stem stage, over the tokens the exact stage left. */
export function meteorAlignment(candidate: readonly string[], reference: readonly string[]): Alignment {
  const exact = alignStage(candidate, reference, []);
  return alignStage(candidate.map(porterStem), reference.map(porterStem), exact);
}

/**
 * METEOR from its statistics (Banerjee & Lavie 2005, sec. 3): P = m / candidate length,
 * R = m / reference length, Fmean = 10PR / (R + 9P), Penalty = 0.5 (chunks / m)^3,
 * score = Fmean (1 - Penalty); 0 when nothing maps.
 */
export function meteorScore({ matches, candidateLength, referenceLength, chunks }: MeteorStatistics): number {
  if (matches === 0) return 0;
  const precision = matches / candidateLength, recall = matches / referenceLength;
  const fMean = (10 * precision * recall) / (recall + 9 * precision);
  return fMean * (1 - 0.5 * (chunks / matches) ** 3);
}

/** The statistics of the best-scoring reference (the first on a tie), as the paper scores several references. */
export function meteorOfImage(candidate: readonly string[], references: readonly (readonly string[])[]): { score: number; statistics: MeteorStatistics } {
  let best: { score: number; statistics: MeteorStatistics } | null = null;
  for (const reference of references) {
    const alignment = meteorAlignment(candidate, reference);
    const statistics = { matches: alignment.length, candidateLength: candidate.length, referenceLength: reference.length, chunks: countChunks(alignment) };
    const score = meteorScore(statistics);
    if (!best || score > best.score) best = { score, statistics };
  }
  if (!best) throw new EngineError('invalid-input', 'A caption has no references to be scored against.');
  return best;
}

/**
 * METEOR as Banerjee & Lavie (2005) define it, not the METEOR 1.5 jar coco-caption runs. The jar
 * could not run here (Java, WordNet, paraphrase tables) and differs as follows:
 * - Matching: exact, then Porter stem (this file's `porterStem`); the jar adds WordNet synonyms and
 *   paraphrases, and stems with Snowball's English stemmer (Porter 2).
 * - Alignment: of the largest mappings, the fewest crossings (the paper); the jar beam-searches for
 *   the most matches, then the fewest chunks, and weights matches by module (exact 1, stem 0.6).
 * - Score: Fmean = 10PR/(R+9P) and Penalty = 0.5 (chunks/m)^3 (the paper); the jar (1.5, English)
 *   uses Fmean = PR/(0.85P + 0.15R) and Penalty = 0.6 (chunks/m)^0.2, far harsher on word order,
 *   and weights function words apart (delta 0.75).
 * - Tokens: this file's PTB tokens; the jar re-normalises the raw caption (-norm).
 * - Corpus figure: as the jar aggregates, from statistics summed over images (each image
 *   contributing its best reference's matches, lengths and chunks), not a mean of per-image scores;
 *   `perImage` holds those.
 * So the figure is not comparable with published METEOR numbers (expect it well above them, mostly
 * for the milder penalty); compare it only with itself.
 */
export function meteor(items: readonly TokenizedCaptionItem[]): { score: number; perImage: number[]; statistics: MeteorStatistics } {
  checkItems(items);
  const total: MeteorStatistics = { matches: 0, candidateLength: 0, referenceLength: 0, chunks: 0 };
  const perImage = items.map((item) => {
    const { score, statistics } = meteorOfImage(item.candidate, item.references);
    total.matches += statistics.matches;
    total.candidateLength += statistics.candidateLength;
    total.referenceLength += statistics.referenceLength;
    total.chunks += statistics.chunks;
    return score;
  });
  return { score: meteorScore(total), perImage, statistics: total };
}

// ---------------------------------------------------------------------------------------------
// All together
// ---------------------------------------------------------------------------------------------

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Every caption metric for a corpus of raw captions, tokenized once with `tokenizeCaption`. */
export function captionMetrics(items: readonly CaptionItem[]): CaptionScores {
  const tokenized = tokenizeCaptionItems(items);
  return {
    bleu: bleu(tokenized).bleu,
    rougeL: rougeL(tokenized).score,
    meteor: meteor(tokenized).score,
    ciderD: ciderD(tokenized).score,
  };
}
