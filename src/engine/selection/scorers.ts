import { type TargetRank, rankAmong } from '../metrics/dialogMetrics';
import { type CorpusStats, LexicalIndex, type LexicalMethod } from '../ranking/lexical';
import { type FusionQuery, type FusionWeight, fuseScores } from '../response/fusion';
import { seededRandom } from '../random';
import { type ContextOptions, applyMap, contextText, contextVector } from '../response/rankers';
import type { SelectionMethodId } from '../response/methods';
import type { ResponseState } from '../response/types';
import { dot } from '../retrieval/vectors';
import type { RankingGroup } from './protocols';

/**
 * The response engine's ranking methods applied to text-only response selection, a whole candidate
 * group at a time: a 1-of-100 batch indexes or maps its 100 responses once for its 100 contexts.
 * Contexts are built as the engine builds them (contextText, contextVector), with `turns: 1` for the
 * immediate context and `turns: Infinity` for the whole history.
 */
export interface SelectionScorer {
  readonly id: SelectionMethodId;
  /** One row of candidate scores per query of the group. */
  score(group: RankingGroup): Float64Array[];
}

/** Unit CLIP text embedding of a text the caller has encoded. */
export type TextEmbedding = (text: string) => Float32Array;

const NO_EMBEDDING = new Float32Array(0);

/** Dialogue turns (oldest first) as the engine's state: one text element per turn, speakers alternating back from the last. */
export function dialogueState(turns: readonly string[], embedding: TextEmbedding = () => NO_EMBEDDING): ResponseState {
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
 * The hybrid of text-only selection: BM25 and clip-map fused per query by the convex combination of
 * their scores standardised over the group's candidates (response/fusion.ts), the weight learned on
 * train queries (fusionQueries, fitConvexWeight).
 */
export function hybridScorer(lexical: SelectionScorer, dense: SelectionScorer, weight: FusionWeight): SelectionScorer {
  return {
    id: 'hybrid',
    score(group) {
      const l = lexical.score(group), d = dense.score(group);
      return l.map((row, i) => fuseScores(row, d[i]!, weight));
    },
  };
}

/**
 * Every query of the groups as a train query of the fusion weight: both scorers' scores of its
 * candidates, less the copies of its target's text (as rankGroups ranks it).
 */
export function fusionQueries(groups: readonly RankingGroup[], lexical: SelectionScorer, dense: SelectionScorer): FusionQuery[] {
  return groups.flatMap((group) => {
    const l = lexical.score(group), d = dense.score(group);
    return group.queries.map((q, i) => {
      const skip = new Set(q.same);
      const keep = (row: Float64Array) => row.filter((_, j) => !skip.has(j));
      return { lexical: keep(l[i]!), dense: keep(d[i]!), target: q.target - q.same.filter((j) => j < q.target).length };
    });
  });
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
export function rankGroups(groups: readonly RankingGroup[], scorer: SelectionScorer): TargetRank[] {
  const ranks: TargetRank[] = [];
  for (const group of groups) {
    const rows = scorer.score(group);
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
