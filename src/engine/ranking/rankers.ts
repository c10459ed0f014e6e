import { EngineError } from '../errors';
import { type CorpusStats, LexicalIndex, corpusStats, corpusStatsOfCounts, corpusStatsOfTokens, tokenize } from './lexical';
import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { seededRandom } from '../random';
import { type EmbeddingMatrix, type ScoredIndex, dot, l2Normalize, topKOfScores } from '../retrieval/vectors';
import { type ChatPool, ChatEncoderRanker, ContextMatchRanker, LexicalContextMatchRanker, type StoredContexts } from './chatRanking';
import { textKey } from '../pool/textKey';
import { UTTERANCE_KINDS, type UtteranceKind, utteranceKind } from '../response/replyPolicy';
import { evenWeights, fuseScores } from './fusion';
import { type CandidateItem, type CandidatePool, type Modality, type RankerId, type ResponseState, poolMatrix, poolSize } from '../response/types';

/** The ranking module S: scores candidates of one modality for the dialogue so far. */
export interface Ranker {
  readonly id: RankerId;
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
  return contextElements(state, options)
    .map((e) => e.text)
    .join(' \n ');
}

export class RandomRanker implements Ranker {
  readonly id = 'random' as const;
  private readonly next: () => number;
  constructor(
    private readonly pool: CandidatePool,
    seed: number,
  ) {
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
  /** The last scores per modality, shared by every reading of the same indices: the hybrid's BM25 and its lookup read the same latest line. */
  private readonly lastScores: Partial<Record<Modality, { text: string; scores: Float64Array }>>;
  constructor(
    readonly id: 'tfidf' | 'bm25',
    pool: CandidatePool,
    /** Document frequencies come from this corpus (the pool's texts), never from a split being evaluated. */
    idfCorpus: readonly string[],
    private readonly context: ContextOptions = {},
    built?: { indices: Record<Modality, LexicalIndex>; stats: CorpusStats; lastScores: LexicalRanker['lastScores'] },
  ) {
    this.lastScores = built?.lastScores ?? {};
    const ownCorpus = !built && idfCorpus === pool.texts;
    // The pool's texts are usually the corpus too (their own document frequencies): counted ahead of
    // time when the pool ships its counts, else tokenized once for both.
    const counts = ownCorpus ? pool.textCounts : undefined;
    const textTokens = ownCorpus && !counts ? pool.texts.map(tokenize) : undefined;
    this.stats = built?.stats ?? (counts ? corpusStatsOfCounts(counts) : textTokens ? corpusStatsOfTokens(textTokens) : corpusStats(idfCorpus));
    this.indices = built?.indices ?? {
      text: counts ? LexicalIndex.fromCounts(id, counts, this.stats) : LexicalIndex.build(id, pool.texts, this.stats, {}, textTokens),
      image: LexicalIndex.build(id, pool.imageCaptions, this.stats),
    };
  }

  /** The same indices read with another context (another number of the latest turns), built no second time. */
  withContext(pool: CandidatePool, context: ContextOptions): LexicalRanker {
    return new LexicalRanker(this.id, pool, [], context, { indices: this.indices, stats: this.stats, lastScores: this.lastScores });
  }
  /** Every row's score; the array is shared with the next caller asking for the same text, so it is only read. */
  async poolScores(state: ResponseState, modality: Modality) {
    const text = contextText(state, this.context);
    const last = this.lastScores[modality];
    if (last?.text === text) return last.scores;
    const scores = this.indices[modality].score(text);
    this.lastScores[modality] = { text, scores };
    return scores;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]) {
    return LexicalIndex.build(
      this.id,
      candidates.map((c) => c.text),
      this.stats,
    ).score(contextText(state, this.context));
  }
}

/** clip-sim: cosine between the context embedding and each candidate's CLIP embedding. */
export class ClipSimRanker implements PoolScoringRanker {
  readonly id = 'clip-sim' as const;
  private readonly matrices: Record<Modality, ScoreMatrix>;
  constructor(
    pool: CandidatePool,
    private readonly context: ContextOptions = {},
  ) {
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

/**
 * lookup: the classic retrieval chatbot, with no learning: the stored train context whose latest turn is
 * most like the visitor's latest line by BM25, and the line that was said after it. A pool text scores the
 * best BM25 score of the contexts it answered (0 when it answered none), so ranking the pool is ranking the
 * contexts. Images are ranked by BM25 over their labels, as the bm25 method ranks them.
 */
export class LookupRanker implements PoolScoringRanker {
  readonly id = 'lookup' as const;
  private readonly latestTurn: LexicalRanker;
  /** The pool's rows by text key, for candidates given by content (evaluation only): built when first asked. */
  private rowsOfKey: Map<string, number[]> | null = null;
  constructor(
    bm25: LexicalRanker,
    private readonly pool: CandidatePool,
    private readonly contexts: StoredContexts,
  ) {
    this.latestTurn = bm25.withContext(pool, { turns: 1 });
  }
  async poolScores(state: ResponseState, modality: Modality) {
    const matched = await this.latestTurn.poolScores(state, modality);
    if (modality === 'image') return matched;
    const out = new Float64Array(matched.length);
    const { responseRows, latestRows } = this.contexts;
    for (let k = 0; k < responseRows.length; k++) {
      const latest = latestRows[k]!;
      if (latest < 0) continue;
      const row = responseRows[k]!;
      if (matched[latest]! > out[row]!) out[row] = matched[latest]!;
    }
    return out;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  /** A candidate given by content scores as the pool text of its key (0 for a text the pool does not hold). */
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    if (modality === 'image') return this.latestTurn.score(state, modality, candidates);
    const scores = await this.poolScores(state, 'text');
    if (!this.rowsOfKey) {
      const rowsOfKey = new Map<string, number[]>();
      this.pool.texts.forEach((t, r) => rowsOfKey.set(textKey(t), [...(rowsOfKey.get(textKey(t)) ?? []), r]));
      this.rowsOfKey = rowsOfKey;
    }
    const rowsOfKey = this.rowsOfKey;
    return Float64Array.from(candidates, (c) => Math.max(0, ...(rowsOfKey.get(textKey(c.text)) ?? []).map((r) => scores[r]!)));
  }
}

/**
 * How likely a reply of each kind is to follow a turn of each kind (replyPolicy.utteranceKind: a
 * statement, a question, or both), counted over the train parts' turns (`npm run chat:fuse`):
 * counts[context kind][reply kind].
 */
export interface QuestionAnswerTable {
  counts: readonly (readonly number[])[];
}

/** log P(reply kind | kind of the latest turn), with one added to every count (Laplace), so no kind is ruled out. */
function logFollowing(table: QuestionAnswerTable, latest: UtteranceKind): number[] {
  const row = table.counts[UTTERANCE_KINDS.indexOf(latest)]!;
  const total = row.reduce((a, b) => a + b, 0) + row.length;
  return row.map((n) => Math.log((n + 1) / total));
}

/**
 * question-answer: a text scores log P(its kind | the kind of the visitor's latest line), learned from the
 * train parts, so after a question an answer outranks another question ("What's your favourite city?" is
 * not answered with "What's your city like?"). One of the hybrid's parts; images score alike (0).
 */
export class QuestionAnswerRanker implements PoolScoringRanker {
  readonly id = 'question-answer' as const;
  private readonly kinds: Uint8Array;
  private readonly imageCount: number;
  constructor(
    pool: CandidatePool,
    private readonly table: QuestionAnswerTable,
  ) {
    this.kinds = Uint8Array.from(pool.texts, (t) => UTTERANCE_KINDS.indexOf(utteranceKind(t)));
    this.imageCount = pool.imageKeys.length;
  }
  private latestKind(state: ResponseState): UtteranceKind {
    return utteranceKind(contextText(state, { turns: 1 }));
  }
  /** Scores by the latest line's kind, made once each (the same array back for the same kind, so the hybrid can reuse its fusion). */
  private readonly byKind = new Map<UtteranceKind, Float64Array>();
  private noImageScores: Float64Array | null = null;
  async poolScores(state: ResponseState, modality: Modality) {
    if (modality === 'image') return (this.noImageScores ??= new Float64Array(this.imageCount));
    const kind = this.latestKind(state);
    let out = this.byKind.get(kind);
    if (!out) {
      const logP = logFollowing(this.table, kind);
      out = new Float64Array(this.kinds.length);
      for (let r = 0; r < out.length; r++) out[r] = logP[this.kinds[r]!]!;
      this.byKind.set(kind, out);
    }
    return out;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    if (modality === 'image') return new Float64Array(candidates.length);
    const logP = logFollowing(this.table, this.latestKind(state));
    return Float64Array.from(candidates, (c) => logP[UTTERANCE_KINDS.indexOf(utteranceKind(c.text))]!);
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
  constructor(
    pool: CandidatePool,
    private readonly params: ClipMapParams,
    private readonly context: ContextOptions = {},
  ) {
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
 * The hybrid's weights, one per part and modality, in the order HYBRID_PARTS names them; learned
 * offline on valid data that none of the parts was trained on (`npm run chat:fuse`, into the pack's
 * chat/fusion.json), so the page and `bench -- select` fuse with the same numbers.
 */
export interface HybridWeights {
  text: readonly number[];
  image: readonly number[];
  /** The latest turns BM25 reads for texts: 1, or Infinity for the whole conversation (for images it reads the whole conversation). */
  bm25Turns: number;
  /** The question-answer part's table, counted on the train parts; null: that part scores every text alike. */
  questionAnswer: QuestionAnswerTable | null;
  /** Where they were learned, for the benchmarks' header. */
  learnedOn: string;
}

/** The text parts of the 1-of-100 hybrid (`bench -- select`), in the order of ChatFusion.text's weights: the page's, less the lookup, which scores only pool texts. */
export const SELECTION_HYBRID_PARTS = ['bm25', 'chat-encoder', 'context-match', 'question-answer'] as const;

/** The parts the hybrid fuses, per modality, in the order of HybridWeights. */
export const HYBRID_PARTS = {
  text: ['bm25', 'chat-encoder', 'context-match', 'lexical-context-match', 'question-answer'],
  image: ['bm25', 'depp', 'chat-encoder'],
} as const;

/**
 * The hybrid: its parts' scores fused per query by a convex combination of their scores standardised
 * over the candidates (fusion.ts: Σ w_i z_i), with learned weights per candidate modality. topK
 * standardises over the pool's rows of the modality, score over the candidates it is given. Without
 * learned weights every part counts alike, and its note says so.
 */
export class HybridRanker implements PoolScoringRanker {
  readonly id = 'hybrid' as const;
  constructor(
    private readonly parts: Readonly<Record<Modality, readonly PoolScoringRanker[]>>,
    private readonly weights: HybridWeights | null,
  ) {
    for (const m of ['text', 'image'] as const) {
      if (weights && weights[m].length !== parts[m].length)
        throw new EngineError(
          'pack-config-invalid',
          `The hybrid's ${m} weights are ${weights[m].length}, for ${parts[m].length} parts. Learn them again (npm run chat:fuse).`,
        );
    }
  }

  private weightsOf(modality: Modality): readonly number[] {
    return this.weights?.[modality] ?? evenWeights(this.parts[modality].length);
  }

  get note(): string {
    const part = (m: Modality) => this.parts[m].map((p, i) => `${p.id} ${this.weightsOf(m)[i]!.toFixed(2)}`).join(' + ');
    return `${this.weights ? `weights learned on ${this.weights.learnedOn}` : 'no learned weights (the pack has no chat/fusion.json), so every part counts alike'}: text ${part('text')}; images ${part('image')}`;
  }

  /** The parts that count, with their weights: a part of weight 0 adds nothing to Σ w·z, so it is not computed. */
  private weighted(modality: Modality): { parts: PoolScoringRanker[]; weights: number[] } {
    const weights = this.weightsOf(modality);
    const kept = this.parts[modality].flatMap((part, i) => (weights[i]! > 0 ? [{ part, weight: weights[i]! }] : []));
    return { parts: kept.map((k) => k.part), weights: kept.map((k) => k.weight) };
  }

  /** The last fusion of each modality: when every part gives back the same scores (the same context), so does the fusion. */
  private readonly lastFused: Partial<Record<Modality, { scores: readonly Float64Array[]; weights: readonly number[]; fused: Float64Array }>> = {};
  async poolScores(state: ResponseState, modality: Modality) {
    const { parts, weights } = this.weighted(modality);
    const scores = await Promise.all(parts.map((p) => p.poolScores(state, modality)));
    const last = this.lastFused[modality];
    const same = last !== undefined && last.scores.length === scores.length && scores.every((s, i) => s === last.scores[i] && weights[i] === last.weights[i]);
    if (same) return last.fused;
    const fused = fuseScores(scores, weights);
    this.lastFused[modality] = { scores, weights, fused };
    return fused;
  }

  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>) {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }

  async score(state: ResponseState, modality: Modality, candidates: readonly CandidateItem[]) {
    const { parts, weights } = this.weighted(modality);
    return fuseScores(await Promise.all(parts.map((p) => p.score(state, modality, candidates))), weights);
  }
}

/**
 * The hybrid's text parts (HYBRID_PARTS.text) as the page ranks with them: BM25 reading the latest
 * `bm25Turns` turns (its index built once, `bm25`), the encoder, context match, the lexical context match
 * (what followed the stored contexts most like the latest line by BM25, spread over the pool by key) and
 * question-answer. `npm run chat:fuse` learns the page's
 * weights on these same parts, so what it fits is what the page fuses.
 */
export function hybridTextParts(
  bm25: LexicalRanker,
  pool: CandidatePool,
  chat: ChatPool,
  settings: { bm25Turns: number; questionAnswer: QuestionAnswerTable | null },
  encoder = new ChatEncoderRanker(chat),
): PoolScoringRanker[] {
  const latestLine = bm25.withContext(pool, { turns: 1 });
  return [
    bm25.withContext(pool, { turns: settings.bm25Turns }),
    encoder,
    new ContextMatchRanker(chat),
    new LexicalContextMatchRanker(chat, (state) => latestLine.poolScores(state, 'text')),
    new QuestionAnswerRanker(pool, settings.questionAnswer ?? EVEN_QUESTION_ANSWER),
  ];
}

/** Every kind followed alike: question-answer then scores every text the same (a part that z-scores to 0). */
const EVEN_QUESTION_ANSWER: QuestionAnswerTable = { counts: UTTERANCE_KINDS.map(() => UTTERANCE_KINDS.map(() => 0)) };
