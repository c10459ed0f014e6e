import { EngineError } from '../errors';
import { topKOfScores } from '../retrieval/vectors';
import { type ChatPool, ChatEncoderRanker, ContextMatchRanker, LexicalContextMatchRanker } from './chatRanking';
import { UTTERANCE_KINDS } from '../response/replyPolicy';
import { evenWeights, fuseScores } from './fusion';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from '../response/types';
import type { PoolScoringRanker } from './ranker';
import { LexicalRanker } from './lexicalRanker';
import { type QuestionAnswerTable, QuestionAnswerRanker } from './questionAnswerRanker';

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
