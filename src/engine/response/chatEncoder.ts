import type { ClipTokenizer } from '../clip/tokenizer';
import { EngineError, errorMessage } from '../errors';
import { type OrtSession, createOrtSession, ort } from '../onnx/ortSessions';
import { type FileProgress, type PackFileSource, readPackJson } from '../pack/fileSource';
import { hashBytes, hashText } from '../pool/contentHash';
import type { EmbeddingMatrix } from '../retrieval/vectors';

/**
 * The conversational dual encoder of a pack (models/<pack>/chat/, made by `npm run chat:train`):
 * PolyAI's recipe (Henderson et al. 2019) trained on the train parts of DailyDialog and Topical-Chat.
 * A context (the latest turns) and a candidate text each become a unit vector; the dot product says
 * how well the text answers the context. Candidate keys of the pool are computed once (and shipped
 * precomputed), so a reply costs one context pass and one pass over the keys.
 */
const CHAT_ENCODER_FILES = ['chat/chat.json', 'chat/chat_encoder.onnx'] as const;

const CHAT_ENCODER_VERSION = 1;

export interface ChatEncoderConfig {
  /** Turns of context the query sees, the latest first. */
  contextTurns: number;
  /** Tokens read per turn or text (its start). */
  maxTokens: number;
  dim: number;
  /** The token that pads (CLIP's end of text); the model maps it to nothing. */
  padId: number;
  /** The CLIP tokenizer the training data was tokenized with: the pack's must be the same. */
  tokenizer: string;
  /** Valid figures of training, shown in benchmarks. */
  training: { bestEpoch: number; valid: Record<string, { r1: number; mrr: number; contexts: number }>; seconds: number };
}

function parseConfig(json: unknown, location: string): ChatEncoderConfig {
  const bad = (what: string): never => {
    throw new EngineError(
      'pack-config-invalid',
      `${location}chat/chat.json ${what}. Train the encoder again (npm run chat:data && npm run chat:train) or remove the chat folder.`,
    );
  };
  if (typeof json !== 'object' || json === null) bad('is not an object');
  const j = json as Record<string, unknown>;
  if (j['version'] !== CHAT_ENCODER_VERSION) bad(`is version ${JSON.stringify(j['version'])}, and this app reads version ${CHAT_ENCODER_VERSION}`);
  const whole = (name: string) => {
    const v = j[name];
    return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : bad(`has no valid "${name}"`);
  };
  const training = j['training'] as ChatEncoderConfig['training'] | undefined;
  if (typeof j['tokenizer'] !== 'string') bad('has no "tokenizer"');
  if (typeof training !== 'object' || training === null) bad('has no "training"');
  return {
    contextTurns: whole('contextTurns'),
    maxTokens: whole('maxTokens'),
    dim: whole('dim'),
    padId: whole('padId'),
    tokenizer: j['tokenizer'] as string,
    training: training!,
  };
}

export class ChatEncoder {
  private constructor(
    readonly config: ChatEncoderConfig,
    private readonly session: OrtSession,
    private readonly tokenizer: ClipTokenizer,
    /** Changes whenever the keys could change (weights, config): keys the precomputed pool keys. */
    readonly fingerprint: string,
  ) {}

  /** Null when the pack has none; an error when it exists but cannot be used. */
  static async load(
    source: PackFileSource,
    files: ReadonlySet<string>,
    tokenizer: ClipTokenizer,
    options: { onProgress?: (progress: FileProgress) => void } = {},
  ): Promise<ChatEncoder | null> {
    if (!files.has(CHAT_ENCODER_FILES[0])) return null;
    for (const f of CHAT_ENCODER_FILES)
      if (!files.has(f))
        throw new EngineError(
          'pack-file-missing',
          `${source.location}${f} is missing, so the conversational encoder cannot be used. Train it again (npm run chat:train) or remove the chat folder.`,
        );
    const json = await readPackJson(source, 'chat/chat.json');
    const config = parseConfig(json, source.location);
    if (config.tokenizer !== tokenizer.fingerprint)
      throw new EngineError(
        'pack-config-invalid',
        `The conversational encoder in ${source.location}chat/ was trained with another tokenizer than this pack's. Train it again (npm run chat:data && npm run chat:train).`,
      );
    const bytes = await source.readBytes('chat/chat_encoder.onnx', options.onProgress);
    let session: OrtSession;
    try {
      // One pass per reply over a few hundred tokens: WASM, where it needs no GPU start and no transfer.
      session = await createOrtSession(bytes, 'wasm');
    } catch (cause) {
      throw new EngineError(
        'pack-file-corrupt',
        `${source.location}chat/chat_encoder.onnx could not be loaded (${errorMessage(cause)}). Train the encoder again.`,
        { cause },
      );
    }
    const { reference: _, ...settings } = json as Record<string, unknown>;
    return new ChatEncoder(config, session, tokenizer, hashText(`${hashBytes(bytes)}\n${JSON.stringify(settings)}`));
  }

  /** A text's token ids as the encoder reads them: without start and end of text, at most maxTokens. */
  tokens(text: string): number[] {
    return this.tokenizer.encode(text).slice(1, -1).slice(0, this.config.maxTokens);
  }

  private padded(rows: readonly (readonly number[])[], count: number): { ids: BigInt64Array; width: number } {
    const width = Math.max(1, ...rows.map((r) => r.length));
    const ids = new BigInt64Array(count * width).fill(BigInt(this.config.padId));
    rows.forEach((row, r) => row.forEach((id, c) => (ids[r * width + c] = BigInt(id))));
    return { ids, width };
  }

  private async run(contextTurns: readonly string[], responses: readonly (readonly number[])[]): Promise<{ query: Float32Array; keys: Float32Array }> {
    const turns = this.config.contextTurns;
    const latestFirst = contextTurns
      .slice(-turns)
      .reverse()
      .map((t) => this.tokens(t));
    const context = this.padded(latestFirst, turns);
    const present = Float32Array.from({ length: turns }, (_, i) => (i < latestFirst.length ? 1 : 0));
    const response = this.padded(responses.length > 0 ? responses : [[]], Math.max(1, responses.length));
    const out = await this.session.run({
      context_ids: new ort.Tensor('int64', context.ids, [turns, context.width]),
      context_present: new ort.Tensor('float32', present, [turns]),
      response_ids: new ort.Tensor('int64', response.ids, [Math.max(1, responses.length), response.width]),
    });
    const query = out['query'],
      keys = out['keys'];
    if (!(query?.data instanceof Float32Array) || !(keys?.data instanceof Float32Array))
      throw new EngineError('pack-file-corrupt', 'The conversational encoder gave no float "query" and "keys". Train it again.');
    return { query: query.data, keys: keys.data };
  }

  /** The unit query of a context: its turns, oldest first (only the latest contextTurns are read). */
  async encodeContext(turns: readonly string[]): Promise<Float32Array> {
    if (turns.length === 0) throw new EngineError('invalid-input', 'There is no context to reply to.');
    return (await this.run(turns, [])).query;
  }

  /** Unit keys of candidate texts, in batches. */
  async encodeResponses(texts: readonly string[], options: { batch?: number; onBatch?: (done: number) => void } = {}): Promise<EmbeddingMatrix> {
    const dim = this.config.dim;
    const data = new Float32Array(texts.length * dim);
    const batch = options.batch ?? 256;
    for (let start = 0; start < texts.length; start += batch) {
      const chunk = texts.slice(start, start + batch).map((t) => this.tokens(t));
      data.set((await this.run([''], chunk)).keys.subarray(0, chunk.length * dim), start * dim);
      options.onBatch?.(Math.min(texts.length, start + batch));
    }
    return { data, rows: texts.length, dim };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** The learned settings of the parts built on the encoder (the pack's chat/fusion.json, from `npm run chat:fuse`). */
export interface ChatFusion {
  /** Context match's neighbours and temperature, chosen on valid. */
  contextMatch: { neighbours: number; temperature: number };
  /**
   * The 1-of-100 hybrid's text weights per kind of context, in the order of SELECTION_HYBRID_PARTS, and how
   * many of the latest turns its BM25 reads (1, or null for all that the other parts read), chosen on valid with them.
   */
  text: Record<'immediate' | 'history', { weights: number[]; mrr: number; alone: number[]; bm25Turns: 1 | null }>;
  /**
   * The page's text weights, in the order of HYBRID_PARTS.text: each valid response ranked among the whole
   * pool, as the page ranks it (each part z-scored over the pool, the echo guard applied).
   */
  page: { weights: number[]; mrr: number; alone: number[]; bm25Turns: 1 | null };
  /** The hybrid's image weights, in the order of HYBRID_PARTS.image. */
  image: { weights: number[]; mrr: number; alone: number[] };
  /** What kind of turn follows what kind (question-answer): counts[latest kind][reply kind] over the train parts, kinds in UTTERANCE_KINDS order. */
  questionAnswer: { counts: number[][] };
  /** The key-space echo guard's bar (chatRanking.ts KeyEchoGuard), chosen on valid, and how. */
  echoKeyBar: { bar: number; chosenOn: string };
  /** Where each was learned, in words. */
  learnedOn: { text: string; page: string; image: string; questionAnswer: string };
}

export const CHAT_FUSION_FILE = 'chat/fusion.json';
const CHAT_FUSION_VERSION = 2;
/** Parts of the 1-of-100 hybrid and of the page's: SELECTION_HYBRID_PARTS and HYBRID_PARTS.text (hybridRanker.ts, which this file may not import). */
const SELECTION_TEXT_PARTS = 4;
const PAGE_TEXT_PARTS = 5;

/** The fusion settings of a pack, or null when it has none; an error when the file is there but unreadable. */
export async function loadChatFusion(source: PackFileSource, files: ReadonlySet<string>): Promise<ChatFusion | null> {
  if (!files.has(CHAT_FUSION_FILE)) return null;
  const json = (await readPackJson(source, CHAT_FUSION_FILE)) as Partial<ChatFusion> & { version?: unknown };
  const bad = (what: string): never => {
    throw new EngineError('pack-config-invalid', `${source.location}${CHAT_FUSION_FILE} ${what}. Learn it again (npm run chat:fuse) or remove it.`);
  };
  if (json.version !== CHAT_FUSION_VERSION) bad(`is version ${JSON.stringify(json.version)}, and this app reads version ${CHAT_FUSION_VERSION}`);
  const weights = (w: unknown, n: number, what: string) =>
    Array.isArray(w) && w.length === n && w.every((x) => typeof x === 'number' && x >= 0) ? (w as number[]) : bad(`has no ${n} weights for ${what}`);
  const cm = json.contextMatch;
  if (!cm || !(cm.neighbours > 0) || !(cm.temperature > 0)) bad('has no valid "contextMatch"');
  weights(json.text?.immediate?.weights, SELECTION_TEXT_PARTS, 'the text parts (immediate)');
  weights(json.text?.history?.weights, SELECTION_TEXT_PARTS, 'the text parts (history)');
  weights(json.page?.weights, PAGE_TEXT_PARTS, "the page's text parts");
  for (const [what, part] of [
    ['the text parts (immediate)', json.text!.immediate],
    ['the text parts (history)', json.text!.history],
    ["the page's text parts", json.page!],
  ] as const) {
    if (part.bm25Turns !== 1 && part.bm25Turns !== null) bad(`has no "bm25Turns" (1 or null) for ${what}`);
  }
  const counts = json.questionAnswer?.counts;
  if (
    !Array.isArray(counts) ||
    counts.length !== 3 ||
    !counts.every((row) => Array.isArray(row) && row.length === 3 && row.every((n) => Number.isInteger(n) && n >= 0))
  )
    bad('has no 3 x 3 "questionAnswer" counts');
  const echoKeyBar = json.echoKeyBar;
  if (typeof echoKeyBar?.bar !== 'number' || !(echoKeyBar.bar > 0 && echoKeyBar.bar <= 1) || typeof echoKeyBar.chosenOn !== 'string')
    bad('has no "echoKeyBar" (a bar above 0 and at most 1, and where it was chosen)');
  const learned = json.learnedOn;
  if (typeof learned?.text !== 'string' || typeof learned.page !== 'string' || typeof learned.image !== 'string' || typeof learned.questionAnswer !== 'string')
    bad('does not say where its weights were learned ("learnedOn")');
  weights(json.image?.weights, 3, 'the image parts');
  return json as ChatFusion;
}
