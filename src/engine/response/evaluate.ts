import type { DialogueRecord } from '../datasets/mmdialog';
import {
  type IntentF1,
  type MmRelevance,
  type RankSummary,
  type RankedElement,
  type TargetRank,
  intentF1,
  mmRelevance,
  rankAmong,
  summarizeRanks,
} from '../metrics/dialogMetrics';
import { coherenceShare } from './coherence';
import { type IntentModel, chooseIntent } from './compose';
import type { Ranker } from '../ranking/ranker';
import type { CandidateItem, ContextElement, ContextTurn, Modality } from './types';

/**
 * The MMDialog evaluation of one method on reference dialogues: every turn after the first is a
 * reference response R to the turns before it (the context U).
 *  - The method composes its own response from the pool: MM-Relevance (eqs. 2-3) and Intent F1
 *    (eq. 1) compare it with R.
 *  - Recall@k: for each reference element, with R's earlier elements given, recall is 0 when the
 *    predicted intent's modality differs from the element's, else the element's rank among itself
 *    and the record's first negatives of that modality. Averaged per modality.
 */
export interface DialogEvalResult {
  responses: number;
  intentF1: number;
  mmRelevance: number;
  recall: Record<Modality, RankSummary & { wrongIntent: number }>;
  /** Of the composed replies whose text invites an image, how many show one (coherence.ts). */
  coherence: { inviting: number; kept: number; share: number };
  /** Milliseconds per composed response (embedding what is new, intent and ranking). */
  responseMs: number[];
}

/** One response turn of a record, composed and scored (by a ReplySession, as the page replays it). */
export interface ReplayedTurn {
  score: ResponseScore;
  /** Milliseconds to compose the reply. */
  ms: number;
  /** Whether the composed reply invites an image, and shows one. */
  coherence: { invites: boolean; showsImage: boolean };
}

/** How one composed response compares with its reference: the figures the benchmark averages. */
export interface ResponseScore {
  mmRelevance: MmRelevance;
  intentF1: IntentF1;
  /** Each reference element that has negatives of its modality, in order; empty without negatives (a visitor's own answer). */
  ranks: RankedElement[];
}

/** What Recall@k needs beyond the two responses: the method that composed, and the record's negatives. */
export interface RecallSetup {
  intent: IntentModel;
  ranker: Ranker;
  /** The record's negatives: texts, and media keys for images; a modality without any (the train split) gets no Recall. */
  negatives: { readonly text?: readonly string[] | undefined; readonly image?: readonly string[] | undefined };
  /** Negatives per ranked element: 999 as MMDialog, or 99 for 1-of-100. */
  limit: number;
  /** Resolves a negative (a text, or a media key) to a candidate. */
  negative: (modality: Modality, value: string) => CandidateItem;
}

/**
 * Scores one composed response against its reference response R (the per-response step of
 * evaluateDialogs, shared with the page): MM-Relevance (eqs. 2-3) and Intent F1 (eq. 1) compare the
 * two; with a RecallSetup, each element of R is ranked given the context and R's earlier elements.
 */
export async function scoreResponse(
  context: readonly ContextTurn[],
  predicted: readonly ContextElement[],
  reference: readonly ContextElement[],
  recall?: RecallSetup,
): Promise<ResponseScore> {
  const score: ResponseScore = {
    mmRelevance: mmRelevance(
      predicted.map((e) => e.embedding),
      reference.map((e) => e.embedding),
    ),
    intentF1: intentF1(
      predicted.map((e) => e.kind),
      reference.map((e) => e.kind),
    ),
    ranks: [],
  };
  if (!recall) return score;
  for (let j = 0; j < reference.length; j++) {
    const target = reference[j]!;
    const state = { turns: context, partial: reference.slice(0, j) };
    const negativesRaw = recall.negatives[target.kind];
    if (!negativesRaw) continue;
    const used = negativesRaw.slice(0, recall.limit);
    if (chooseIntent(await recall.intent.predict(state), j) !== target.kind) {
      // A miss: recall 0 at every k, reciprocal rank 0, ranked last among the candidates.
      score.ranks.push({ modality: target.kind, rank: { higher: used.length, ties: 0, miss: true }, candidates: used.length + 1 });
      continue;
    }
    const candidates = [{ embedding: target.embedding, text: target.text }, ...used.map((v) => recall.negative(target.kind, v))];
    score.ranks.push({ modality: target.kind, rank: rankAmong(await recall.ranker.score(state, target.kind, candidates), 0), candidates: candidates.length });
  }
  return score;
}

/** Replays every response turn of every record, in order, and pools the figures as the benchmark reports them. */
export async function evaluateDialogs(
  records: readonly DialogueRecord[],
  replayTurn: (record: DialogueRecord, turn: number) => Promise<ReplayedTurn>,
  onProgress?: (done: number, total: number) => void,
): Promise<DialogEvalResult> {
  let responses = 0,
    intentSum = 0,
    mmSum = 0;
  const ranks: Record<Modality, TargetRank[]> = { text: [], image: [] };
  const wrongIntent: Record<Modality, number> = { text: 0, image: 0 };
  const responseMs: number[] = [];
  const coherence: ReplayedTurn['coherence'][] = [];
  const total = records.reduce((n, r) => n + r.turns.length - 1, 0);
  for (const record of records) {
    for (let t = 1; t < record.turns.length; t++) {
      const replayed = await replayTurn(record, t);
      const { score, ms } = replayed;
      responseMs.push(ms);
      coherence.push(replayed.coherence);
      mmSum += score.mmRelevance.f1;
      intentSum += score.intentF1.f1;
      responses++;
      for (const { modality, rank } of score.ranks) {
        ranks[modality].push(rank);
        if (rank.miss) wrongIntent[modality]++;
      }
      onProgress?.(responses, total);
    }
  }
  const summary = (m: Modality) => ({ ...summarizeRanks(ranks[m]), wrongIntent: wrongIntent[m] });
  return {
    responses,
    intentF1: responses ? intentSum / responses : 0,
    mmRelevance: responses ? mmSum / responses : 0,
    recall: { text: summary('text'), image: summary('image') },
    coherence: coherenceShare(coherence),
    responseMs,
  };
}
