import { type TargetRank, rankAmong } from '../metrics/dialogMetrics';
import { type CorpusStats, LexicalIndex, type LexicalMethod } from './lexical';
import { type ChatEncoder } from '../response/chatEncoder';
import { type ContextMatchSettings, type StoredContexts, chatContextTurns, contextMatchQuery, nearestContexts } from './chatRanking';
import { type FusionQuery, fuseScores } from './fusion';
import type { Int8Matrix } from '../retrieval/int8Matrix';
import { seededRandom } from '../random';
import { type ContextOptions, contextText, contextVector } from './ranker';
import { type QuestionAnswerTable, QuestionAnswerRanker } from './questionAnswerRanker';
import { applyMap } from './clipMapRanker';
import type { SelectionMethodId } from '../response/methods';
import type { ResponseState } from '../response/types';
import { dot } from '../retrieval/vectors';
import type { RankingGroup } from '../selection/protocols';

/**
 * The response engine's ranking methods applied to text-only response selection, a whole candidate
 * group at a time: a 1-of-100 batch indexes or maps its 100 responses once for its 100 contexts.
 * Contexts are built as the engine builds them (contextText, contextVector), with `turns: 1` for the
 * immediate context and `turns: Infinity` for the whole history.
 */
export interface SelectionScorer {
  readonly id: SelectionMethodId | 'question-answer';
  /** One row of candidate scores per query of the group. */
  score(group: RankingGroup): Float64Array[] | Promise<Float64Array[]>;
}

/** Unit CLIP text embedding of a text the caller has encoded. */
export type TextEmbedding = (text: string) => Float32Array;

const NO_EMBEDDING = new Float32Array(0);

/** Dialogue turns (oldest first) as the engine's state: one text element per turn, speakers alternating back from the last. */
function dialogueState(turns: readonly string[], embedding: TextEmbedding = () => NO_EMBEDDING): ResponseState {
  return {
    turns: turns.map((text, i) => ({ speaker: ((turns.length - 1 - i) % 2) as 0 | 1, elements: [{ kind: 'text', text, embedding: embedding(text) }] })),
    partial: [],
  };
}

/** tf-idf or BM25 (PolyAI's keyword baselines) with document frequencies from `stats` (a train corpus). */
export function lexicalScorer(method: LexicalMethod, stats: CorpusStats, context: ContextOptions): SelectionScorer {
  return {
    id: method,
    score(group) {
      const index = LexicalIndex.build(method, group.candidates, stats);
      return group.queries.map((q) => index.score(contextText(dialogueState(q.turns), context)));
    },
  };
}

function cosineScorer(id: 'clip-sim' | 'clip-map', candidate: TextEmbedding, embedding: TextEmbedding, context: ContextOptions): SelectionScorer {
  return {
    id,
    score(group) {
      const ys = group.candidates.map(candidate);
      return group.queries.map((q) => {
        const x = contextVector(dialogueState(q.turns, embedding), context);
        return Float64Array.from(ys, (y) => dot(x, y));
      });
    },
  };
}

/** clip-sim: cosine of the context's mean unit embedding and each candidate's. */
export function clipSimScorer(embedding: TextEmbedding, context: ContextOptions): SelectionScorer {
  return cosineScorer('clip-sim', embedding, embedding, context);
}

/**
 * clip-map: cosine(x, (W + aI) y) (PolyAI's map method). Each distinct candidate text is mapped once
 * and kept, as ClipMapRanker maps its pool once, so a text met in many batches costs one product.
 */
export function clipMapScorer(params: { w: Float32Array; a: number }, embedding: TextEmbedding, context: ContextOptions): SelectionScorer {
  const mapped = new Map<string, Float32Array>();
  const mappedEmbedding = (text: string) => {
    let m = mapped.get(text);
    if (!m) mapped.set(text, (m = applyMap(params, embedding(text))));
    return m;
  };
  return cosineScorer('clip-map', mappedEmbedding, embedding, context);
}

/**
 * Keys of candidate texts by the conversational encoder, each text encoded once (a 1-of-100 text
 * returns in many contexts' batches only as a candidate of its own batch, but VisDial's options repeat).
 */
export class ChatKeyCache {
  private readonly keys = new Map<string, Float32Array>();
  private readonly queries = new Map<string, Float32Array>();
  constructor(readonly encoder: ChatEncoder) {}

  /** The encoder's query of a dialogue (its latest turns, as much of them as the context gives), each encoded once. */
  async queryOf(turns: readonly string[], context: ContextOptions): Promise<Float32Array> {
    const read = chatContextTurns(dialogueState(turns), context.turns ?? 1).slice(-this.encoder.config.contextTurns);
    const key = read.join('\n');
    let query = this.queries.get(key);
    if (!query) this.queries.set(key, (query = await this.encoder.encodeContext(read)));
    return query;
  }

  async keysOf(texts: readonly string[]): Promise<Float32Array[]> {
    const fresh = [...new Set(texts.filter((t) => !this.keys.has(t)))];
    if (fresh.length > 0) {
      const m = await this.encoder.encodeResponses(fresh);
      fresh.forEach((t, i) => this.keys.set(t, m.data.slice(i * m.dim, (i + 1) * m.dim)));
    }
    return texts.map((t) => this.keys.get(t)!);
  }
}

/** A key as an int8 row stores it (per-row scale), back as floats: what the pool's stored keys cost a ranking. */
function int8RoundTrip(key: Float32Array): Float32Array {
  let max = 0;
  for (const v of key) max = Math.max(max, Math.abs(v));
  const scale = Math.fround(max / 127);
  return scale === 0 ? key : key.map((v) => Math.max(-127, Math.min(127, Math.round(v / scale))) * scale);
}

/** chat-encoder: the dot product of the context's query and each candidate's key (PolyAI's dual encoder). */
export function chatEncoderScorer(keys: ChatKeyCache, context: ContextOptions, options: { int8Keys?: boolean } = {}): SelectionScorer {
  return {
    id: 'chat-encoder',
    async score(group) {
      const ys = (await keys.keysOf(group.candidates)).map((k) => (options.int8Keys ? int8RoundTrip(k) : k));
      const out: Float64Array[] = [];
      for (const q of group.queries) {
        const x = await keys.queryOf(q.turns, context);
        out.push(Float64Array.from(ys, (y) => dot(x, y)));
      }
      return out;
    },
  };
}

export interface ContextMatchData {
  contexts: StoredContexts;
  responseKeys: Int8Matrix;
  settings: ContextMatchSettings;
  /** Nearest contexts already found, by query (for trying several settings on the same queries); at least settings.neighbours each. */
  nearest?: Map<Float32Array, ReturnType<typeof nearestContexts>>;
}

/** context-match: the nearest stored train contexts' responses as the query (chatRanking.ts contextMatchQuery), against each candidate's key. */
export function contextMatchScorer(keys: ChatKeyCache, stored: ContextMatchData, context: ContextOptions): SelectionScorer {
  return {
    id: 'context-match',
    async score(group) {
      const ys = await keys.keysOf(group.candidates);
      const out: Float64Array[] = [];
      for (const q of group.queries) {
        const query = await keys.queryOf(q.turns, context);
        let near = stored.nearest?.get(query);
        if (!near || near.length < stored.settings.neighbours) {
          near = nearestContexts(query, stored.contexts, stored.settings.neighbours);
          stored.nearest?.set(query, near);
        }
        const x = contextMatchQuery(query, stored.contexts, stored.responseKeys, stored.settings, near);
        out.push(Float64Array.from(ys, (y) => dot(x, y)));
      }
      return out;
    },
  };
}

/** question-answer (questionAnswerRanker.ts): each candidate's log P(its kind | the kind of the context's latest turn). */
export function questionAnswerScorer(table: QuestionAnswerTable): SelectionScorer {
  return {
    id: 'question-answer',
    async score(group) {
      const ranker = new QuestionAnswerRanker({ texts: [], textMatrix: NO_MATRIX, imageKeys: [], imageCaptions: [], imageMatrix: NO_MATRIX }, table);
      return Promise.all(
        group.queries.map((q) =>
          ranker.score(
            dialogueState(q.turns),
            'text',
            group.candidates.map((text) => ({ text, embedding: NO_EMBEDDING })),
          ),
        ),
      );
    },
  };
}
const NO_MATRIX = { data: new Float32Array(0), rows: 0, dim: 0 };

/**
 * The hybrid of text-only selection: its parts fused per query by the convex combination of their
 * scores standardised over the group's candidates (ranking/fusion.ts), with the weights the page uses.
 */
export function hybridScorer(parts: readonly SelectionScorer[], weights: readonly number[]): SelectionScorer {
  return {
    id: 'hybrid',
    async score(group) {
      const scored = await Promise.all(parts.map(async (p) => p.score(group)));
      return group.queries.map((_, i) =>
        fuseScores(
          scored.map((rows) => rows[i]!),
          weights,
        ),
      );
    },
  };
}

/**
 * Every query of the groups as a query of the fusion's weights: each part's scores of its candidates,
 * less the copies of its target's text (as rankGroups ranks it).
 */
export async function fusionQueries(groups: readonly RankingGroup[], parts: readonly SelectionScorer[]): Promise<FusionQuery[]> {
  const out: FusionQuery[] = [];
  for (const group of groups) {
    const scored = await Promise.all(parts.map(async (p) => p.score(group)));
    group.queries.forEach((q, i) => {
      const skip = new Set(q.same);
      const keep = (row: Float64Array) => row.filter((_, j) => !skip.has(j));
      out.push({ parts: scored.map((rows) => keep(rows[i]!)), target: q.target - q.same.filter((j) => j < q.target).length });
    });
  }
  return out;
}

/** Chance: independent uniform scores from a seeded generator. */
export function randomScorer(seed: number): SelectionScorer {
  const next = seededRandom(seed);
  return { id: 'random', score: (group) => group.queries.map(() => Float64Array.from(group.candidates, () => next())) };
}

/**
 * Each query's target rank among its group's candidates, ties at their expected rank; candidates
 * with the target's own text (query.same) are left out rather than counted as negatives.
 */
export async function rankGroups(groups: readonly RankingGroup[], scorer: SelectionScorer): Promise<TargetRank[]> {
  const ranks: TargetRank[] = [];
  for (const group of groups) {
    const rows = await scorer.score(group);
    group.queries.forEach((q, i) => {
      const row = rows[i]!;
      if (q.same.length === 0) {
        ranks.push(rankAmong(row, q.target));
        return;
      }
      const skip = new Set(q.same);
      const kept = row.filter((_, j) => !skip.has(j));
      ranks.push(rankAmong(kept, q.target - q.same.filter((j) => j < q.target).length));
    });
  }
  return ranks;
}
