import { EngineError } from '../errors';
import type { AvsdDialogue } from '../datasets/avsd';
import { dailyDialogExamples } from '../datasets/dailyDialog';
import { formatCount } from '../datasets/validation';
import { type PolyaiExample, exampleTurns } from '../datasets/polyai';
import type { VisdialData } from '../datasets/visdial';
import { LexicalIndex, tokenize } from '../ranking/lexical';
import { seededRandom } from '../random';
import { topKOfScores } from '../retrieval/vectors';

/**
 * Response-selection protocols on real dialogue data: which candidates each context is ranked
 * against. A group is one candidate set and the contexts ranked against it: a 1-of-100 batch (100
 * contexts, their 100 responses) or one VisDial/AVSD question (1 context, 100 answer options).
 */
interface RankingQuery {
  /** The dialogue before the answer, oldest first; the last turn is the immediate context. */
  readonly turns: readonly string[];
  /** Index of the right candidate. */
  readonly target: number;
  /** Other candidates with exactly the target's text: the same answer, so not counted as negatives. */
  readonly same: readonly number[];
}

export interface RankingGroup {
  readonly candidates: readonly string[];
  readonly queries: readonly RankingQuery[];
}

function query(turns: readonly string[], candidates: readonly string[], target: number): RankingQuery {
  const same: number[] = [];
  candidates.forEach((c, i) => {
    if (i !== target && c === candidates[target]) same.push(i);
  });
  return { turns, target, same };
}

/** Fisher-Yates in place, drawing from `next`. */
export function shuffleWith<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** A shuffled copy: the same order for the same seed. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  return shuffleWith([...items], seededRandom(seed));
}

// ---------------------------------------------------------------------------------------------
// PolyAI 1-of-100 (Henderson et al. 2019, sec. 4) on DailyDialog.

/** The order PolyAI-style examples are shuffled in before they are cut into batches of 100 (the same for every corpus). */
const SELECTION_SHUFFLE_SEED = 7;

/** Conversations (each its turns, oldest first) as PolyAI examples: every turn after the first a response, the turns before it its context. */
function conversationExamples(conversations: readonly (readonly string[])[]): PolyaiExample[] {
  return conversations.flatMap((turns) => dailyDialogExamples({ line: 0, turns }));
}

/** Conversations' examples shuffled with a fixed seed, as PolyAI's datasets are, so a batch of 100 mixes conversations. */
export function shuffledConversationExamples(conversations: readonly (readonly string[])[], seed = SELECTION_SHUFFLE_SEED): PolyaiExample[] {
  return seededShuffle(conversationExamples(conversations), seed);
}

/** 1-of-100 batches of conversations' shuffled examples. */
export function conversationOneOfHundred(conversations: readonly (readonly string[])[], seed = SELECTION_SHUFFLE_SEED): OneOfHundred {
  return oneOfHundredBatches(shuffledConversationExamples(conversations, seed));
}

export interface OneOfHundred {
  groups: RankingGroup[];
  /** Examples ranked: batches x batch size. */
  ranked: number;
  /** Examples of the last, incomplete batch, left out as PolyAI's run_baseline.py does. */
  dropped: number;
  /** Ranked examples whose response text occurs again in their batch. */
  repeatedResponses: number;
}

/**
 * 1-of-100 accuracy (PolyAI sec. 4): consecutive batches of 100 examples; each context is ranked
 * against its batch's 100 responses, the other 99 being the negatives. The last batch, when
 * incomplete, is left out, so every figure is over full batches (the mean over batches equals the
 * mean over examples). A response repeated in a batch ("Thank you .") is not its own negative.
 */
export function oneOfHundredBatches(examples: readonly PolyaiExample[], batchSize = 100): OneOfHundred {
  const groups: RankingGroup[] = [];
  let repeatedResponses = 0;
  const full = examples.length - (examples.length % batchSize);
  for (let start = 0; start < full; start += batchSize) {
    const batch = examples.slice(start, start + batchSize);
    const candidates = batch.map((e) => e.response);
    const queries = batch.map((e, i) => query(exampleTurns(e), candidates, i));
    repeatedResponses += queries.filter((q) => q.same.length > 0).length;
    groups.push({ candidates, queries });
  }
  return { groups, ranked: full, dropped: examples.length - full, repeatedResponses };
}

// ---------------------------------------------------------------------------------------------
// 1-of-100 with the nearest negatives: what random negatives never ask, whether a method tells an
// answer from a line like the context (an echo of it, a paraphrase, a turn said before).

/** The indices of a text collection nearest a context, best first, by one similarity. */
export type NearestTexts = (context: readonly string[]) => Iterable<number>;

/**
 * Each example ranked among 100 candidates of its own: its response and 99 negatives, the texts of the
 * collection (the test part's own distinct texts) nearest its context. First the context's own turns,
 * latest first (a reply that repeats a turn is the plainest echo), then the nearest by each similarity
 * in turn (BM25, an encoder...), one from each while both last. No negative is the response or a copy
 * of it, nor a copy of another negative (keyed by `key`: textKey, so "Thank you." and "thank you" are
 * one). The response's place among the 100 is drawn from a seeded stream, as a batch mixes its order.
 */
export function nearestNegativeGroups(
  examples: readonly PolyaiExample[],
  texts: readonly string[],
  nearest: readonly NearestTexts[],
  key: (text: string) => string,
  options: { size?: number; seed?: number } = {},
): { groups: RankingGroup[]; fromContext: number } {
  const size = options.size ?? 100;
  const next = seededRandom(options.seed ?? SELECTION_SHUFFLE_SEED);
  let fromContext = 0;
  const groups = examples.map((example): RankingGroup => {
    const turns = exampleTurns(example);
    const taken = new Set([key(example.response)]);
    const negatives: string[] = [];
    const offer = (text: string) => {
      const k = key(text);
      if (negatives.length >= size - 1 || k === '' || taken.has(k)) return false;
      taken.add(k);
      negatives.push(text);
      return true;
    };
    for (const turn of [...turns].reverse()) if (offer(turn)) fromContext++;
    const walks = nearest.map((n) => n(turns)[Symbol.iterator]());
    while (negatives.length < size - 1) {
      let moved = false;
      for (const walk of walks) {
        // One new text from each similarity in turn: the next of its list that is not taken yet.
        for (let step = walk.next(); !step.done && negatives.length < size - 1; step = walk.next()) {
          moved = true;
          if (offer(texts[step.value]!)) break;
        }
      }
      if (!moved) break;
    }
    if (negatives.length < size - 1)
      throw new EngineError(
        'dataset-invalid',
        `The collection has too few distinct texts for ${size - 1} nearest negatives (${negatives.length} found for one context). Use the whole test part.`,
      );
    const target = Math.floor(next() * size);
    const candidates = [...negatives.slice(0, target), example.response, ...negatives.slice(target)];
    return { candidates, queries: [query(turns, candidates, target)] };
  });
  return { groups, fromContext };
}

// ---------------------------------------------------------------------------------------------
// VisDial: the 100 answer options of every round.

/** Each round's options ranked from the caption, the earlier rounds and the question (the immediate context). */
export function visdialGroups(data: VisdialData): RankingGroup[] {
  return data.dialogs.flatMap((dialog) => {
    const history: string[] = [dialog.caption];
    return dialog.rounds.map((round) => {
      const turns = [...history, round.question];
      history.push(round.question, round.answer);
      return { candidates: round.options, queries: [query(turns, round.options, round.gtIndex)] };
    });
  });
}

// ---------------------------------------------------------------------------------------------
// AVSD: 100 candidates per question, built as the AVSD paper does (after VisDial).

export interface AvsdCandidateOptions {
  seed: number;
  plausible?: number;
  popular?: number;
  random?: number;
}

interface AvsdComposition {
  plausible: number;
  popular: number;
  random: number;
}

export interface AvsdGroups {
  groups: RankingGroup[];
  /** Candidates of each kind summed over questions; a shortfall of plausible or popular answers is made up with random ones. */
  composition: AvsdComposition;
  distinctAnswers: number;
}

/** Answers are told apart by their words: "there is one person in the video ." and "There is one person in the video" are one answer. */
export function answerKey(answer: string): string {
  return tokenize(answer).join(' ');
}

/**
 * The last round of each dialogue (the one the DSTC7 test file asks for) with 100 candidates: the
 * ground truth, the answers to the `plausible` (50) questions of other dialogues most similar to
 * this one (tf-idf cosine over questions), the `popular` (30) most frequent answers and `random`
 * (19) others drawn uniformly; no two candidates share an answer key, and the order is shuffled.
 * Everything follows from the file and the seed.
 */
export function avsdGroups(dialogues: readonly AvsdDialogue[], options: AvsdCandidateOptions): AvsdGroups {
  const plausibleCount = options.plausible ?? 50;
  const popularCount = options.popular ?? 30;
  const randomCount = options.random ?? 19;
  const size = 1 + plausibleCount + popularCount + randomCount;
  const rounds = dialogues.flatMap((d, dialogue) => d.rounds.map((r) => ({ ...r, dialogue, key: answerKey(r.answer) })));
  // Distinct answers by key, most frequent first (ties: first seen first), each with its first wording.
  const byKey = new Map<string, { text: string; count: number; first: number }>();
  rounds.forEach((r, i) => {
    const entry = byKey.get(r.key);
    if (entry) entry.count++;
    else byKey.set(r.key, { text: r.answer, count: 1, first: i });
  });
  if (byKey.size < size) {
    throw new EngineError(
      'dataset-invalid',
      `The AVSD file has ${formatCount(byKey.size)} distinct answers; ${size} candidates per question need at least ${size}. Use the whole DSTC7 test file.`,
    );
  }
  const popularOrder = [...byKey].sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first).map(([key]) => key);
  const allKeys = [...byKey.keys()];
  const questionIndex = LexicalIndex.build(
    'tfidf',
    rounds.map((r) => r.question),
  );
  const roundsOf = new Map<number, number[]>();
  rounds.forEach((r, i) => roundsOf.set(r.dialogue, [...(roundsOf.get(r.dialogue) ?? []), i]));
  const next = seededRandom(options.seed);
  const composition: AvsdComposition = { plausible: 0, popular: 0, random: 0 };
  const groups = dialogues.map((d, dialogue): RankingGroup => {
    const last = d.rounds[d.rounds.length - 1]!;
    const chosen = new Map<string, string>([[answerKey(last.answer), last.answer]]);
    // Plausible: walk the most similar questions of other dialogues until enough distinct answers.
    const scores = questionIndex.score(last.question);
    const own = new Set(roundsOf.get(dialogue));
    let plausible = 0;
    for (let k = 4 * plausibleCount; plausible < plausibleCount; k *= 2) {
      for (const { index } of topKOfScores(scores, Math.min(k, rounds.length), own)) {
        if (plausible === plausibleCount) break;
        const r = rounds[index]!;
        if (chosen.has(r.key)) continue;
        chosen.set(r.key, r.answer);
        plausible++;
      }
      if (k >= rounds.length) break;
    }
    let popular = 0;
    for (const key of popularOrder) {
      if (popular === popularCount) break;
      if (chosen.has(key)) continue;
      chosen.set(key, byKey.get(key)!.text);
      popular++;
    }
    // Random: uniform over the answers not chosen yet, filling any shortfall above.
    const remaining = allKeys.filter((key) => !chosen.has(key));
    const random = size - chosen.size;
    for (let i = 0; i < random; i++) {
      const j = i + Math.floor(next() * (remaining.length - i));
      [remaining[i], remaining[j]] = [remaining[j]!, remaining[i]!];
      chosen.set(remaining[i]!, byKey.get(remaining[i]!)!.text);
    }
    composition.plausible += plausible;
    composition.popular += popular;
    composition.random += random;
    const candidates = shuffleWith([...chosen.values()], next);
    const turns = [d.caption, ...d.rounds.slice(0, -1).flatMap((r) => [r.question, r.answer]), last.question];
    return { candidates, queries: [query(turns, candidates, candidates.indexOf(last.answer))] };
  });
  return { groups, composition, distinctAnswers: byKey.size };
}
