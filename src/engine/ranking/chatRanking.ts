import { EngineError } from '../errors';
import type { Int8Matrix } from '../retrieval/int8Matrix';
import { type ScoredIndex, dot, l2Normalize, topKOfScores } from '../retrieval/vectors';
import type { ChatEncoder } from '../response/chatEncoder';
import type { CandidateItem, Modality, RankerId, ResponseState } from '../response/types';

/**
 * Ranking with the conversational encoder (chatEncoder.ts): its own keys for the pool's texts and
 * images (an image by its label), and the stored contexts of context matching. Plain functions and
 * two rankers, shared by the page's reply session and `bench -- select`.
 */

/**
 * The train contexts the pool's human texts answered: each context's query vector, the pool text row of
 * its response, and the pool text row of its latest turn (-1 when that turn is not in the pool).
 */
export interface StoredContexts {
  vectors: Int8Matrix;
  responseRows: Int32Array;
  latestRows: Int32Array;
}

/** How context matching turns neighbours into a query: the k nearest stored contexts, softmax(similarity / temperature). */
export interface ContextMatchSettings {
  neighbours: number;
  temperature: number;
}

export const DEFAULT_CONTEXT_MATCH: ContextMatchSettings = { neighbours: 32, temperature: 0.05 };

/** The conversational encoder's part of a pool. */
export interface ChatPool {
  encoder: ChatEncoder;
  /** One unit key per pool text, in the pool's order. */
  textKeys: Int8Matrix;
  /** One unit key per pool image (of its label), in the pool's order. */
  imageKeys: Int8Matrix;
  /** Null for a pool without them (a dataset of the visitor's): context match is then not offered. */
  contexts: StoredContexts | null;
  contextMatch: ContextMatchSettings;
}

/**
 * The words the encoder reads for a photo nothing was recognised in (no confident caption): it was
 * shared, and a reply can still answer that, as people answer a photo they cannot make out.
 */
const UNDESCRIBED_PHOTO_TEXT = 'a photo';

/** What the encoder reads of the dialogue: each turn's texts (a photo by its caption), oldest first; turns with nothing to read are left out. */
export function chatContextTurns(state: ResponseState, turns = Infinity): string[] {
  return state.turns
    .slice(Math.max(0, state.turns.length - turns))
    .map((t) =>
      t.elements
        .map((e) => (e.kind === 'image' && e.text.trim() === '' ? UNDESCRIBED_PHOTO_TEXT : e.text.trim()))
        .filter((text) => text !== '')
        .join(' '),
    )
    .filter((text) => text !== '');
}

/** Every row's score of an int8 matrix against a float query, as float dot products. */
function int8Scores(matrix: Int8Matrix, query: Float32Array): Float64Array {
  const { scores, queryScale } = matrix.scores(query);
  // A plain loop: Float64Array.from with a map function iterates generically, 10x slower over 65k rows.
  const out = new Float64Array(scores.length);
  for (let i = 0; i < scores.length; i++) out[i] = scores[i]! * queryScale;
  return out;
}

/** A row of an int8 matrix as floats. */
function int8Row(matrix: Int8Matrix, row: number): Float32Array {
  const out = new Float32Array(matrix.dim);
  const at = row * matrix.stride;
  const scale = matrix.scales[row]!;
  for (let j = 0; j < matrix.dim; j++) out[j] = matrix.codes[at + j]! * scale;
  return out;
}

/** The `count` stored contexts nearest a query, best first (their dot products). */
export function nearestContexts(query: Float32Array, contexts: StoredContexts, count: number): ScoredIndex[] {
  return topKOfScores(int8Scores(contexts.vectors, query), Math.min(count, contexts.vectors.rows));
}

/**
 * Context matching, the classic way to make a weak encoder sound apt: the `neighbours` stored
 * contexts most like the query, weighted by softmax(similarity / temperature), and the weighted mean
 * of the keys of their responses as a new query in key space. A candidate then scores by how close it
 * is to what was said after contexts like this one, so the responses themselves rank first and
 * texts like them follow. `near` may hold the nearest contexts already found (at least `neighbours`).
 */
export function contextMatchQuery(
  query: Float32Array,
  contexts: StoredContexts,
  responseKeys: Int8Matrix,
  settings: ContextMatchSettings,
  near = nearestContexts(query, contexts, settings.neighbours),
): Float32Array {
  const used = near.slice(0, settings.neighbours);
  if (used.length === 0) throw new EngineError('invalid-input', 'There are no stored contexts to match.');
  const top = used[0]!.score;
  const weights = used.map((n) => Math.exp((n.score - top) / settings.temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Float32Array(responseKeys.dim);
  used.forEach((n, i) => {
    const key = int8Row(responseKeys, contexts.responseRows[n.index]!);
    const w = weights[i]! / total;
    for (let j = 0; j < out.length; j++) out[j]! += w * key[j]!;
  });
  return l2Normalize(out);
}

/** The query of a dialogue state, encoded once per state (a reply's steps and its two rankers ask again). */
class QueryMemo {
  private last: { key: string; query: Promise<Float32Array> } | null = null;
  constructor(
    private readonly encoder: ChatEncoder,
    private readonly turns: number,
  ) {}
  get(state: ResponseState): Promise<Float32Array> {
    const context = chatContextTurns(state, this.turns);
    if (context.length === 0) return Promise.reject(new EngineError('invalid-input', 'There is no context to reply to.'));
    const key = context.join('\n');
    if (this.last?.key !== key) this.last = { key, query: this.encoder.encodeContext(context) };
    return this.last.query;
  }
}

/** Scores of candidates given by text, against a query in key space. */
async function candidateScores(encoder: ChatEncoder, query: Float32Array, candidates: readonly CandidateItem[]): Promise<Float64Array> {
  const keys = await encoder.encodeResponses(candidates.map((c) => c.text));
  return Float64Array.from(candidates, (_, i) => dot(keys.data.subarray(i * keys.dim, (i + 1) * keys.dim), query));
}

/** The ranking of a pool by a query vector in key space, texts or images. */
abstract class KeySpaceRanker {
  constructor(protected readonly chat: ChatPool) {}
  protected abstract query(state: ResponseState): Promise<Float32Array>;
  private keys(modality: Modality): Int8Matrix {
    return modality === 'text' ? this.chat.textKeys : this.chat.imageKeys;
  }
  /** The last scan of each modality: a reply's steps ask again for the same context (the partial reply is not read). */
  private readonly lastScan: Partial<Record<Modality, { query: Float32Array; scores: Float64Array }>> = {};
  async poolScores(state: ResponseState, modality: Modality): Promise<Float64Array> {
    const query = await this.query(state);
    const last = this.lastScan[modality];
    if (last?.query === query) return last.scores;
    const scores = int8Scores(this.keys(modality), query);
    this.lastScan[modality] = { query, scores };
    return scores;
  }
  async topK(state: ResponseState, modality: Modality, k: number, exclude: ReadonlySet<number>): Promise<ScoredIndex[]> {
    return topKOfScores(await this.poolScores(state, modality), k, exclude);
  }
  async score(state: ResponseState, _: Modality, candidates: readonly CandidateItem[]): Promise<Float64Array> {
    return candidateScores(this.chat.encoder, await this.query(state), candidates);
  }
}

/** chat-encoder: the dot product of the context's query and each candidate's key (PolyAI's dual encoder). */
export class ChatEncoderRanker extends KeySpaceRanker {
  readonly id = 'chat-encoder' as const;
  private readonly memo: QueryMemo;
  constructor(chat: ChatPool, turns = Infinity) {
    super(chat);
    this.memo = new QueryMemo(chat.encoder, turns);
  }
  protected query(state: ResponseState): Promise<Float32Array> {
    return this.memo.get(state);
  }
}

/** context-match: the stored contexts most like this one, and what was answered to them (contextMatchQuery). */
export class ContextMatchRanker extends KeySpaceRanker {
  readonly id = 'context-match' as const;
  private readonly memo: QueryMemo;
  private readonly contexts: StoredContexts;
  constructor(chat: ChatPool, turns = Infinity) {
    super(chat);
    if (!chat.contexts)
      throw new EngineError(
        'invalid-input',
        'Context match needs the stored contexts of the pool, which this pool does not have. Choose another method in Settings.',
      );
    this.contexts = chat.contexts;
    this.memo = new QueryMemo(chat.encoder, turns);
  }
  private lastQuery: { context: Float32Array; query: Float32Array } | null = null;
  protected async query(state: ResponseState): Promise<Float32Array> {
    // The same context gives the same query vector object (QueryMemo), so the scan below it is memoised too.
    const context = await this.memo.get(state);
    if (this.lastQuery?.context !== context)
      this.lastQuery = { context, query: contextMatchQuery(context, this.contexts, this.chat.textKeys, this.chat.contextMatch) };
    return this.lastQuery.query;
  }
}

/**
 * How the lexical context match weighs its neighbours: the `neighbours` stored contexts whose latest turn
 * scores best by BM25 against the visitor's latest line, each weighted by exp((s / s_best - 1) / temperature),
 * a temperature relative to the best score (BM25 has no fixed scale). Not tuned: the hybrid's fit on valid
 * decides how much the part counts.
 */
const LEXICAL_CONTEXT_MATCH = { neighbours: 16, temperature: 0.1 } as const;

/**
 * lexical-context-match: what the lookup does well (a stored context whose words match the visitor's line
 * says what people answer to such a line), spread over the pool as context match spreads it: the stored
 * contexts whose latest turn is most like the visitor's latest line by BM25, and the weighted mean of the
 * keys of what followed them. Unlike the lookup, a text that never followed a stored context still scores,
 * by how like those answers it is. `latestLineScores`: BM25 of every pool text against the latest line (the
 * stored contexts' latest turns are pool rows, StoredContexts.latestRows).
 */
export class LexicalContextMatchRanker extends KeySpaceRanker {
  readonly id: RankerId = 'lexical-context-match';
  private readonly contexts: StoredContexts;
  constructor(
    chat: ChatPool,
    private readonly latestLineScores: (state: ResponseState) => Promise<Float64Array>,
  ) {
    super(chat);
    if (!chat.contexts)
      throw new EngineError('invalid-input', 'The lexical context match needs the stored contexts of the pool. Choose another method in Settings.');
    this.contexts = chat.contexts;
  }
  protected async query(state: ResponseState): Promise<Float32Array> {
    const matched = await this.latestLineScores(state);
    const { responseRows, latestRows } = this.contexts;
    const byContext = new Float64Array(latestRows.length);
    for (let k = 0; k < latestRows.length; k++) byContext[k] = latestRows[k]! < 0 ? 0 : matched[latestRows[k]!]!;
    const near = topKOfScores(byContext, LEXICAL_CONTEXT_MATCH.neighbours).filter((n) => n.score > 0);
    const out = new Float32Array(this.chat.textKeys.dim);
    if (near.length === 0) return out; // no stored context shares a word with the line: every text scores 0
    const best = near[0]!.score;
    const weights = near.map((n) => Math.exp((n.score / best - 1) / LEXICAL_CONTEXT_MATCH.temperature));
    const total = weights.reduce((a, b) => a + b, 0);
    near.forEach((n, i) => {
      const key = int8Row(this.chat.textKeys, responseRows[n.index]!);
      for (let j = 0; j < out.length; j++) out[j]! += (weights[i]! / total) * key[j]!;
    });
    return l2Normalize(out);
  }
}

/**
 * The echo guard in the encoder's key space: a text whose key is as close to the key of a line said as
 * `bar` (a dot product of unit keys; chosen on valid by `npm run chat:fuse`, where 1 in 100 of people's
 * replies came this close to a line the other person said) is that line again in other words ("I've been
 * learning guitar, my fingers hurt!" after "I have been learning to play the guitar"), not an answer to it.
 * Keys of the lines are encoded once each and kept.
 */
export class KeyEchoGuard {
  private readonly lineKeys = new Map<string, Float32Array>();
  constructor(
    private readonly chat: ChatPool,
    readonly bar: number,
  ) {}

  /** The keys of the lines said, as the rows of `textKeys` are keyed (the encoder's response side). */
  async keysOf(lines: readonly string[]): Promise<Float32Array[]> {
    const fresh = [...new Set(lines.filter((l) => l.trim() !== '' && !this.lineKeys.has(l)))];
    if (fresh.length > 0) {
      const m = await this.chat.encoder.encodeResponses(fresh);
      fresh.forEach((line, i) => this.lineKeys.set(line, m.data.slice(i * m.dim, (i + 1) * m.dim)));
    }
    return lines.flatMap((l) => (this.lineKeys.has(l) ? [this.lineKeys.get(l)!] : []));
  }

  /** Whether the pool text of `row` echoes one of the lines of `keys`. */
  echoes(row: number, keys: readonly Float32Array[]): boolean {
    if (keys.length === 0) return false;
    const key = int8Row(this.chat.textKeys, row);
    return keys.some((k) => dot(key, k) >= this.bar);
  }
}
