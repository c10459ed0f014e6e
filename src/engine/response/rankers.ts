import type { DialogueRecord } from '../datasets/mmdialog';
import { EngineError } from '../errors';
import { type CorpusStats, LexicalIndex, corpusStats } from '../ranking/lexical';
import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { seededRandom } from '../random';
import { type EmbeddingMatrix, type ScoredIndex, dot, l2Normalize, topKOfScores } from '../retrieval/vectors';
import { type ConvexFit, type FusionQuery, fitConvexWeight, fuseScores, poolTrainingQueries } from './fusion';
import { RESPONSE_METHODS, type RankerInputs, type ResponseMethodId, methodAvailable } from './methods';
import { type CandidateItem, type CandidatePool, type Modality, type ResponseState, poolMatrix, poolSize } from './types';

/** The ranking module S: scores candidates of one modality for the dialogue so far. */
export interface Ranker {
  readonly id: ResponseMethodId;
  /** The k best pool rows of a modality, never one in `exclude` (elements already in this response). */
  topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>): Promise<ScoredIndex[]>;
  /** Scores of candidates given by content: a reference element and its negatives, in evaluation. */
  score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]): Promise<Float64Array>;
  /** What a benchmark should print about how it ranks, when there is more than its name to say (the hybrid's learned weights). */
  readonly note?: string;
}

/** A ranker that also gives every pool row's score, so the hybrid can standardise its scores over the pool. */
export interface PoolScoringRanker extends Ranker {
  /** The score of every pool row of a modality, in row order. */
  poolScores(state: ResponseState, modality: Modality): Promise<Float64Array>;
}

export interface ContextOptions {
  /** How many of the latest turns the query sees: 1 is the immediate context, Infinity the whole history. */
  turns?: number;
}

function contextElements(state: ResponseState, options: ContextOptions) {
  const turns = options.turns ?? 1;
  return state.turns.slice(Math.max(0, state.turns.length - turns)).flatMap((t) => t.elements);
}

/** The context as one unit vector: the mean of its elements' unit CLIP embeddings. */
export function contextVector(state: ResponseState, options: ContextOptions = {}): Float32Array {
  const elements = contextElements(state, options);
  if (elements.length === 0) throw new EngineError('invalid-input', 'There is no context to reply to.');
  const dim = elements[0]!.embedding.length;
  const sum = new Float32Array(dim);
  for (const e of elements) for (let i = 0; i < dim; i++) sum[i]! += e.embedding[i]!;
  return l2Normalize(sum);
}

export function contextText(state: ResponseState, options: ContextOptions = {}): string {
  return contextElements(state, options).map((e) => e.text).join(' \n ');
}

export class RandomRanker implements Ranker {
  readonly id = 'random' as const;
  private readonly next: () => number;
  constructor(private readonly pool: CandidatePool, seed: number) {
    this.next = seededRandom(seed);
  }
  async topK(_: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    const scores = new Float64Array(poolSize(this.pool, modality)).map(() => this.next());
    return topKOfScores(scores, k, exclude);
  }
  async score(_: ResponseState, __: Modality, candidates: readonly CandidateItem[]) {
    return new Float64Array(candidates.length).map(() => this.next());
  }
}

/** tf-idf or BM25 over text (PolyAI baselines); image candidates are represented by their captions. */
export class LexicalRanker implements PoolScoringRanker {
  private readonly indices: Record<Modality, LexicalIndex>;
  private readonly stats: CorpusStats;
  constructor(
    readonly id: 'tfidf' | 'bm25',
    pool: CandidatePool,
    /** Document frequencies come from this corpus (the train split), not from what is ranked. */
    idfCorpus: readonly string[],
    private readonly context: ContextOptions = {},
  ) {
    this.stats = corpusStats(idfCorpus);
    this.indices = {
      text: LexicalIndex.build(id, pool.texts, this.stats),
      image: LexicalIndex.build(id, pool.imageCaptions, this.stats),
    };
  }
  async poolScores(state: ResponseState, modality: Modality) {
    return this.indices[modality].score(contextText(state, this.context));
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]) {
    return LexicalIndex.build(this.id, candidates.map((c) => c.text), this.stats).score(contextText(state, this.context));
  }
}

/** clip-sim: cosine between the context embedding and each candidate's CLIP embedding. */
export class ClipSimRanker implements PoolScoringRanker {
  readonly id = 'clip-sim' as const;
  private readonly matrices: Record<Modality, ScoreMatrix>;
  constructor(pool: CandidatePool, private readonly context: ContextOptions = {}) {
    // The pool's own matrices when they are ScoreMatrix already (embedPool makes them so), else one copy.
    this.matrices = { text: ScoreMatrix.of(poolMatrix(pool, 'text')), image: ScoreMatrix.of(poolMatrix(pool, 'image')) };
  }
  async poolScores(state: ResponseState, modality: Modality) {
    return this.matrices[modality].scores(contextVector(state, this.context));
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return this.matrices[modality].topK(contextVector(state, this.context), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]) {
    const x = contextVector(state, this.context);
    return Float64Array.from(candidates, (c) => dot(x, c.embedding));
  }
}

/** The learned map of the PolyAI "map" method, one per candidate modality: y -> (W + aI) y. */
export interface ClipMapParams {
  dim: number;
  text: { w: Float32Array; a: number };
  image: { w: Float32Array; a: number };
}

export function applyMap(params: { w: Float32Array; a: number }, y: Float32Array): Float32Array {
  const dim = y.length;
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) {
    let s = params.a * y[i]!;
    const row = i * dim;
    for (let j = 0; j < dim; j++) s += params.w[row + j]! * y[j]!;
    out[i] = s;
  }
  return l2Normalize(out);
}

/**
 * clip-map: cosine(x, (W + aI) y), W and a learned on the train split with the dot-product loss
 * (PolyAI conversational-datasets, "map" baselines). The pool is mapped once, so ranking stays one
 * matrix product and a partial top-k.
 */
export class ClipMapRanker implements PoolScoringRanker {
  readonly id = 'clip-map' as const;
  private readonly mapped: Record<Modality, ScoreMatrix>;
  constructor(pool: CandidatePool, private readonly params: ClipMapParams, private readonly context: ContextOptions = {}) {
    const mapAll = (m: EmbeddingMatrix, p: { w: Float32Array; a: number }): ScoreMatrix => {
      const mapped = ScoreMatrix.allocate(m.rows, m.dim); // mapped rows are written straight into the ranking matrix
      for (let r = 0; r < m.rows; r++) mapped.data.set(applyMap(p, m.data.subarray(r * m.dim, (r + 1) * m.dim)), r * m.dim);
      return mapped;
    };
    this.mapped = { text: mapAll(pool.textMatrix, params.text), image: mapAll(pool.imageMatrix, params.image) };
  }
  async poolScores(state: ResponseState, modality: Modality) {
    return this.mapped[modality].scores(contextVector(state, this.context));
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return this.mapped[modality].topK(contextVector(state, this.context), k, exclude);
  }
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    const x = contextVector(state, this.context);
    return Float64Array.from(candidates, (c) => dot(x, applyMap(this.params[modality], c.embedding)));
  }
}

/**
 * How the hybrid learns its weights on the train split: per modality, 300 train queries, each a
 * reference element among 999 negatives drawn from the pool (as evaluation ranks one among 999),
 * drawn with a fixed seed. About 600 dense queries: a second or two in the page, once.
 */
export const HYBRID_TRAINING = { perModality: 300, negatives: 999, seed: 11 } as const;

/**
 * The hybrid: BM25 and a dense ranker (DE++), fused per query by a convex combination of their
 * scores standardised over the candidates (fusion.ts: fused = w z_lex + (1 − w) z_dense), with one
 * weight per candidate modality learned on the train split. topK standardises over the pool's rows
 * of the modality, score over the candidates it is given.
 */
export class HybridRanker implements Ranker {
  readonly id = 'hybrid' as const;
  constructor(
    private readonly lexical: PoolScoringRanker,
    private readonly dense: PoolScoringRanker,
    /** The learned weight of each modality, with the train MRR and the number of queries it came from. */
    readonly fits: Readonly<Record<Modality, ConvexFit>>,
  ) {}

  /**
   * Learns the weights on the train split (fitConvexWeight over HYBRID_TRAINING's queries, scored by
   * both components over the pool) and returns the ranker. Without train dialogues, or without any
   * train query of a modality, that modality's components count alike.
   */
  static async learn(lexical: PoolScoringRanker, dense: PoolScoringRanker, pool: CandidatePool, train: readonly DialogueRecord[] | null): Promise<HybridRanker> {
    const queries = poolTrainingQueries(train ?? [], pool, { perModality: HYBRID_TRAINING.perModality, negatives: HYBRID_TRAINING.negatives, next: seededRandom(HYBRID_TRAINING.seed) });
    const fit = async (modality: Modality): Promise<ConvexFit> => {
      const scored: FusionQuery[] = [];
      for (const q of queries[modality]) {
        const [l, d] = await Promise.all([lexical.poolScores(q.state, modality), dense.poolScores(q.state, modality)]);
        const rows = [q.target, ...q.negatives];
        scored.push({ lexical: rows.map((r) => l[r]!), dense: rows.map((r) => d[r]!), target: 0 });
      }
      return fitConvexWeight(scored);
    };
    return new HybridRanker(lexical, dense, { text: await fit('text'), image: await fit('image') });
  }

  get note(): string {
    const part = (m: Modality) => {
      const f = this.fits[m];
      if (f.queries === 0) return `${m}: no train reference, so BM25 ${f.lexical.toFixed(2)} / dense ${(1 - f.lexical).toFixed(2)}`;
      const alone = (w: number) => f.curve.find((c) => c.lexical === w)!.mrr.toFixed(3);
      return `${m}: BM25 ${f.lexical.toFixed(2)} / dense ${(1 - f.lexical).toFixed(2)} (train MRR ${f.mrr.toFixed(3)} over ${f.queries} references; BM25 alone ${alone(1)}, dense alone ${alone(0)})`;
    };
    return `weights learned on the train split: ${part('text')}; ${part('image')}`;
  }

  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    const [l, d] = await Promise.all([this.lexical.poolScores(state, modality), this.dense.poolScores(state, modality)]);
    return topKOfScores(fuseScores(l, d, this.fits[modality]), k, exclude);
  }

  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    const [l, d] = await Promise.all([this.lexical.score(state, modality, candidates), this.dense.score(state, modality, candidates)]);
    return fuseScores(l, d, this.fits[modality]);
  }
}

/** The ranker classes, handed to the method table so that it holds no ranker code (the page imports it for names). */
const KIT = { RandomRanker, LexicalRanker, ClipSimRanker, ClipMapRanker, HybridRanker };
export type RankerKit = typeof KIT;

/** The ranker of a method (RESPONSE_METHODS): the one factory of the page and the benchmarks. */
export async function createRanker(method: ResponseMethodId, inputs: RankerInputs): Promise<Ranker> {
  const entry = RESPONSE_METHODS[method];
  if (!methodAvailable(method, { heads: inputs.heads !== null, clipMap: inputs.clipMap !== null })) throw new EngineError('invalid-input', `The method "${method}" needs trained heads, which this pack does not have. Choose another method in Settings.`);
  return entry.create(KIT, inputs);
}
