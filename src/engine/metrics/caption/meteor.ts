import { stemmer } from 'stemmer';
import { EngineError } from '../../errors';
import { type TokenizedCaptionItem, checkItems } from './items';

/**
 * The Porter stemmer (Porter 1980) of METEOR's "porter_stem" module (Banerjee & Lavie 2005, sec. 2),
 * from the maintained \`stemmer\` package: it reproduces Porter's reference implementation, and gave
 * the same stems as the hand-written one it replaced on the 18,195 words of the demo pool's texts.
 */
export const porterStem: (token: string) => string = stemmer;

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
function meteorScore({ matches, candidateLength, referenceLength, chunks }: MeteorStatistics): number {
  if (matches === 0) return 0;
  const precision = matches / candidateLength,
    recall = matches / referenceLength;
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
