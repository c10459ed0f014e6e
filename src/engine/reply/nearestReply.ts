import type { ClipEncoder } from '../clip/clipEncoder';
import { nowMs } from '../clock';
import { EngineError } from '../errors';
import type { RgbaImage } from '../image/rgbaImage';
import { ScoreMatrix, topKRows } from '../retrieval/scoreMatrix';
import { type EmbeddingMatrix, type ScoredIndex, l2Normalize, meanVector } from '../retrieval/vectors';

export interface TurnInput {
  texts: readonly string[];
  images: readonly RgbaImage[];
}

export interface ReplyCandidate {
  index: number;
  text: string;
  score: number;
}

export interface NearestReply {
  text: string;
  /** Cosine between the turn embedding and the reply's embedding. */
  score: number;
  candidates: ReplyCandidate[];
  /** The normalized embedding of the turn (mean of its elements' unit embeddings). */
  turnEmbedding: Float32Array;
  timings: { encodeMs: number; rankMs: number; totalMs: number };
}

/** The candidate texts with their unit-length CLIP text embeddings, one matrix. */
export class TextPoolIndex {
  private constructor(
    readonly texts: readonly string[],
    readonly matrix: EmbeddingMatrix,
  ) {}

  static async build(encoder: ClipEncoder, texts: readonly string[], batchSize = 64, onProgress?: (done: number, total: number) => void): Promise<TextPoolIndex> {
    const rows: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = await encoder.encodeTexts(texts.slice(start, start + batchSize));
      for (const v of batch) rows.push(l2Normalize(v));
      onProgress?.(rows.length, texts.length);
    }
    return new TextPoolIndex(texts, ScoreMatrix.fromRows(rows));
  }

  get size(): number {
    return this.texts.length;
  }
}

/** The turn as one unit vector: the mean of its text and image embeddings, each normalized first. */
export async function embedTurn(encoder: ClipEncoder, turn: TurnInput): Promise<Float32Array> {
  const texts = turn.texts.map((t) => t.trim()).filter((t) => t.length > 0);
  if (texts.length === 0 && turn.images.length === 0) {
    throw new EngineError('invalid-input', 'The message is empty. Type something or add a photo.');
  }
  const [textEmbeds, imageEmbeds] = await Promise.all([encoder.encodeTexts(texts), encoder.encodeImages(turn.images)]);
  return l2Normalize(meanVector([...textEmbeds, ...imageEmbeds].map(l2Normalize)));
}

/**
 * The foundation's reply: the pool text nearest to the last turn by CLIP cosine. The MMDialog
 * composition (intent + ranking, paper sec. 7.2) replaces this in the response engine.
 */
export async function nearestTextReply(encoder: ClipEncoder, pool: { texts: readonly string[]; matrix: EmbeddingMatrix }, turn: TurnInput, k = 5): Promise<NearestReply> {
  const start = nowMs();
  const turnEmbedding = await embedTurn(encoder, turn);
  const encoded = nowMs();
  const top: ScoredIndex[] = topKRows(pool.matrix, turnEmbedding, k);
  const ranked = nowMs();
  const candidates = top.map(({ index, score }) => ({ index, score, text: pool.texts[index]! }));
  const best = candidates[0];
  if (!best) throw new EngineError('invalid-input', 'The candidate pool is empty, so there is nothing to reply with.');
  return {
    text: best.text,
    score: best.score,
    candidates,
    turnEmbedding,
    timings: { encodeMs: encoded - start, rankMs: ranked - encoded, totalMs: ranked - start },
  };
}
