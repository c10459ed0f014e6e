import { nowMs } from '../clock';
import type { ScoredIndex } from '../retrieval/vectors';
import type { ImageInvitations } from './coherence';
import type { Ranker } from '../ranking/ranker';
import { type CandidatePool, type ContextElement, type ContextTurn, INTENTS, type Intent, type Modality, type ResponseState, poolMatrix } from './types';

export type IntentProbabilities = readonly [text: number, image: number, stop: number];

/** The intent module I([U, R<j]) of MMDialog eq. 4: what the next response element is, or stop. */
export interface IntentModel {
  readonly id: 'majority' | 'head';
  predict(state: ResponseState): Promise<IntentProbabilities>;
}

/** The step that comes next in the train split's responses, by position: a reply is usually one text, then stop. */
export class MajorityIntent implements IntentModel {
  readonly id = 'majority' as const;
  constructor(private readonly byStep: readonly IntentProbabilities[]) {}

  /** Frequencies of text / image / stop at each step j of the reference responses. */
  static fromResponses(responses: readonly (readonly Modality[])[]): MajorityIntent {
    const counts: number[][] = [];
    for (const response of responses) {
      for (let j = 0; j <= response.length; j++) {
        const row = (counts[j] ??= [0, 0, 0]);
        row[j < response.length ? INTENTS.indexOf(response[j]!) : 2]!++;
      }
    }
    return new MajorityIntent(
      counts.map((c) => {
        const n = c[0]! + c[1]! + c[2]!;
        return [c[0]! / n, c[1]! / n, c[2]! / n] as const;
      }),
    );
  }

  async predict(state: ResponseState): Promise<IntentProbabilities> {
    return this.byStep[Math.min(state.partial.length, this.byStep.length - 1)] ?? [1, 0, 0];
  }
}

interface ComposeStep {
  probabilities: IntentProbabilities;
  intent: Intent;
  /**
   * Set when the intent module chose otherwise: 'invitation' when the reply's own text invites an
   * image not yet shown, 'request' when the visitor asked for a picture (a text that goes with one, then the picture),
   * 'about-the-demo' when the visitor asked about the demo itself (its own true line, then stop).
   */
  forcedBy?: 'invitation' | 'request' | 'about-the-demo';
  /** Set when the element taken is not the ranker's first: the first that names what the visitor's photo shows. */
  preferred?: 'names-photo-object';
  /** The best candidates of the chosen modality, with scores; empty at the stop step. */
  candidates: ScoredIndex[];
  intentMs: number;
  rankMs: number;
}

interface ComposedElement {
  kind: Modality;
  /** Row in the pool's matrix of that modality. */
  index: number;
  score: number;
}

export interface ComposedResponse {
  elements: ComposedElement[];
  steps: ComposeStep[];
  timings: { intentMs: number; rankMs: number; totalMs: number };
}

export interface ComposeOptions {
  /** Guards against loops when the intent module never says stop (default 4). */
  maxElements?: number;
  /** Candidates kept per step for the inspector (default 10). */
  topN?: number;
  /** Phrases that promise an image: a reply holding one gets an image before it may stop (coherence.ts). */
  invitations?: ImageInvitations;
  /** Rows never taken, per modality: texts already said in the conversation, requests for photos it has had enough of. */
  exclude?: Partial<Record<Modality, ReadonlySet<number>>>;
  /** Rows never taken, tested as the ranker offers them: a rule over a row's words (a text that echoes a line said) that is too costly to run over the whole pool. */
  skip?: Partial<Record<Modality, (row: number) => boolean>>;
  /** Among a text step's best `depth` candidates, the first that names what the visitor's photo shows is taken. */
  preferText?: { names: (row: number) => boolean; depth: number };
  /**
   * The visitor asked for a picture: the reply is a text that goes with one (the ranker's best among
   * `textRows`, if any is among its best `depth`, else the first of `fallbackRows`: a line written to
   * introduce a picture), then the best image for the request, then stop.
   */
  request?: { images: ScoredIndex[]; textRows: (row: number) => boolean; depth: number; fallbackRows: readonly number[] };
  /** The visitor asked about the demo itself (aboutTheDemo.ts): the reply is this pool text, the demo's own answer, and nothing else. */
  answer?: { row: number };
  /** A chosen pool row as the reply's element (its text or image and embedding); poolElement unless the caller knows better. */
  element?: (kind: Modality, index: number) => Promise<ContextElement>;
}

/** The most likely intent; the first step may not stop, since a reply needs at least one element. */
export function chooseIntent(p: IntentProbabilities, step: number): Intent {
  const order = [0, 1, 2].filter((i) => step > 0 || i !== 2).sort((a, b) => p[b]! - p[a]! || a - b);
  return INTENTS[order[0]!]!;
}

export function poolElement(pool: CandidatePool, kind: Modality, index: number): ContextElement {
  const m = poolMatrix(pool, kind);
  return { kind, embedding: m.data.subarray(index * m.dim, (index + 1) * m.dim), text: kind === 'text' ? pool.texts[index]! : pool.imageCaptions[index]! };
}

/**
 * Builds a response step by step (MMDialog sec. 7.2): before step j the intent module predicts text,
 * image or stop from [U, R<j]; unless stop, the ranker picks the best candidate of that modality
 * not already in this response. A reply whose text invites an image ("look at this") and shows none
 * yet takes an image next, whatever the intent module says, even past maxElements by that one image:
 * a reply never promises a picture it does not show.
 */
export async function composeResponse(
  turns: readonly ContextTurn[],
  pool: CandidatePool,
  intent: IntentModel,
  ranker: Ranker,
  options: ComposeOptions = {},
): Promise<ComposedResponse> {
  const start = nowMs();
  const maxElements = options.maxElements ?? 4;
  const topN = options.topN ?? 10;
  const used: Record<Modality, Set<number>> = { text: new Set(options.exclude?.text), image: new Set(options.exclude?.image) };
  const partial: ContextElement[] = [];
  const elements: ComposedElement[] = [];
  const steps: ComposeStep[] = [];
  let intentMs = 0,
    rankMs = 0;
  const invitations = options.invitations;
  const owesImage = () =>
    invitations !== undefined && !partial.some((e) => e.kind === 'image') && partial.some((e) => e.kind === 'text' && invitations.invites(e.text));
  const take = async (kind: Modality, best: ScoredIndex) => {
    used[kind].add(best.index);
    elements.push({ kind, index: best.index, score: best.score });
    partial.push(options.element ? await options.element(kind, best.index) : poolElement(pool, kind, best.index));
  };
  // The ranker's best not yet used nor skipped; a skipped row joins the used ones and the ranker is asked again.
  const rank = async (kind: Modality, k: number): Promise<ScoredIndex[]> => {
    const skip = options.skip?.[kind];
    for (;;) {
      const ranked = await ranker.topK({ turns, partial }, kind, k, used[kind]);
      const skipped = skip ? ranked.filter((c) => skip(c.index)) : [];
      if (skipped.length === 0) return ranked;
      for (const c of skipped) used[kind].add(c.index);
    }
  };
  const answer = options.answer;
  if (answer) {
    const t0 = nowMs();
    const probabilities = await intent.predict({ turns, partial });
    intentMs += nowMs() - t0;
    steps.push({ probabilities, intent: 'text', forcedBy: 'about-the-demo', candidates: [{ index: answer.row, score: 0 }], intentMs, rankMs: 0 });
    await take('text', { index: answer.row, score: 0 });
    steps.push({ probabilities: await intent.predict({ turns, partial }), intent: 'stop', forcedBy: 'about-the-demo', candidates: [], intentMs: 0, rankMs: 0 });
    return { elements, steps, timings: { intentMs, rankMs, totalMs: nowMs() - start } };
  }
  const request = options.request;
  if (request && request.images[0]) {
    // The visitor asked for a picture: a text that goes with one, then the picture, then stop.
    const t0 = nowMs();
    const probabilities = await intent.predict({ turns, partial });
    const t1 = nowMs();
    const texts = await rank('text', Math.max(topN, request.depth));
    // The written intros are left out of every ranking (the caller's exclusions), so the first one is taken as it is.
    const fallback = request.fallbackRows[0];
    const withPicture = texts.find((c) => request.textRows(c.index)) ?? (fallback === undefined ? undefined : { index: fallback, score: 0 });
    const t2 = nowMs();
    intentMs += t1 - t0;
    rankMs += t2 - t1;
    if (withPicture) {
      steps.push({
        probabilities,
        intent: 'text',
        forcedBy: 'request',
        candidates: [withPicture, ...texts.filter((c) => c !== withPicture)].slice(0, topN),
        intentMs: t1 - t0,
        rankMs: t2 - t1,
      });
      await take('text', withPicture);
    }
    steps.push({
      probabilities: await intent.predict({ turns, partial }),
      intent: 'image',
      forcedBy: 'request',
      candidates: request.images.slice(0, topN),
      intentMs: 0,
      rankMs: 0,
    });
    await take('image', request.images[0]);
    steps.push({ probabilities: await intent.predict({ turns, partial }), intent: 'stop', forcedBy: 'request', candidates: [], intentMs: 0, rankMs: 0 });
    return { elements, steps, timings: { intentMs, rankMs, totalMs: nowMs() - start } };
  }
  for (let j = 0; j <= maxElements + 1; j++) {
    const t0 = nowMs();
    const probabilities = await intent.predict({ turns, partial });
    const owed = owesImage();
    const predicted = j >= maxElements ? 'stop' : chooseIntent(probabilities, j);
    const chosen = owed ? 'image' : predicted;
    const forced = chosen !== predicted ? { forcedBy: 'invitation' as const } : {};
    const t1 = nowMs();
    intentMs += t1 - t0;
    if (chosen === 'stop') {
      steps.push({ probabilities, intent: chosen, candidates: [], intentMs: t1 - t0, rankMs: 0 });
      break;
    }
    const prefer = chosen === 'text' ? options.preferText : undefined;
    const ranked = await rank(chosen, Math.max(topN, prefer?.depth ?? 0));
    const t2 = nowMs();
    rankMs += t2 - t1;
    const named = prefer ? ranked.slice(0, prefer.depth).find((c) => prefer.names(c.index)) : undefined;
    const best = named ?? ranked[0];
    const preferred = named && named !== ranked[0] ? { preferred: 'names-photo-object' as const } : {};
    steps.push({ probabilities, intent: chosen, ...forced, ...preferred, candidates: ranked.slice(0, topN), intentMs: t1 - t0, rankMs: t2 - t1 });
    if (!best) break; // every candidate of that modality is already used
    await take(chosen, best);
  }
  return { elements, steps, timings: { intentMs, rankMs, totalMs: nowMs() - start } };
}
