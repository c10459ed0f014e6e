import { EngineError, errorMessage } from '../errors';
import { type OrtSession, createOrtSession, ort } from '../onnx/ortSessions';
import { type PackFileSource, readPackJson } from '../pack/fileSource';
import { ScoreMatrix } from '../retrieval/scoreMatrix';
import { type EmbeddingMatrix, type ScoredIndex, dot } from '../retrieval/vectors';
import type { IntentModel, IntentProbabilities } from './compose';
import type { ClipMapParams } from '../ranking/clipMapRanker';
import { type PoolScoringRanker, contextVector } from '../ranking/ranker';
import type { CandidateItem, CandidatePool, Modality, ResponseState } from './types';

/**
 * The trained response heads of a pack (models/<pack>/heads/, made by
 * models/scripts/heads/train_heads.py): the intent module I and the ranking module S of DE++
 * (MMDialog sec. 7.2), and the clip-map baseline's learned maps. They belong to the pack whose
 * embeddings they were trained on; a pack without them falls back to the zero-shot methods.
 */
const HEADS_FILES = ['heads/heads.json', 'heads/intent.onnx', 'heads/ranker_context.onnx', 'heads/ranker_candidate.onnx', 'heads/clip_map.bin'] as const;

const HEADS_VERSION = 3;

interface HeadsConfig {
  dim: number;
  keyDim: number;
  maxElements: number;
  packFingerprint: string;
  segments: { other: number; self: number; partial: number };
  clipMap: { text: { a: number }; image: { a: number } };
}

function parseHeadsConfig(json: unknown, location: string): HeadsConfig {
  const bad = (what: string): never => {
    throw new EngineError('pack-config-invalid', `${location}heads/heads.json ${what}. Retrain the heads (npm run heads:train) or remove the heads folder.`);
  };
  if (typeof json !== 'object' || json === null) bad('is not an object');
  const j = json as Record<string, unknown>;
  const num = (v: unknown, name: string) => (typeof v === 'number' && Number.isFinite(v) ? v : bad(`has no valid "${name}"`));
  const seg = j['segments'] as Record<string, unknown> | undefined;
  const map = j['clipMap'] as Record<string, Record<string, unknown>> | undefined;
  // Version 3: the intent head also takes the reply state (replyState); since version 2 the ranker's
  // context pass takes the anchor (the latest turn's unit mean embedding).
  if (j['version'] !== HEADS_VERSION) bad(`is version ${JSON.stringify(j['version'])}, and this app reads version ${HEADS_VERSION}`);
  if (typeof j['packFingerprint'] !== 'string') bad('has no "packFingerprint"');
  return {
    dim: num(j['dim'], 'dim'),
    keyDim: num(j['keyDim'], 'keyDim'),
    maxElements: num(j['maxElements'], 'maxElements'),
    packFingerprint: j['packFingerprint'] as string,
    segments: { other: num(seg?.['other'], 'segments.other'), self: num(seg?.['self'], 'segments.self'), partial: num(seg?.['partial'], 'segments.partial') },
    clipMap: { text: { a: num(map?.['text']?.['a'], 'clipMap.text.a') }, image: { a: num(map?.['image']?.['a'], 'clipMap.image.a') } },
  };
}

/** The heads' input for [U, R<j]: the latest elements, each with modality and segment relative to the one replying. */
function headInputs(state: ResponseState, config: HeadsConfig) {
  const replying = state.turns.length; // index of the turn being built
  const elements = [
    ...state.turns.flatMap((turn, s) => turn.elements.map((e) => ({ e, segment: (replying - s) % 2 === 0 ? config.segments.self : config.segments.other }))),
    ...state.partial.map((e) => ({ e, segment: config.segments.partial })),
  ].slice(-config.maxElements);
  const n = elements.length;
  if (n === 0) throw new EngineError('invalid-input', 'There is no context to reply to.');
  const data = new Float32Array(n * config.dim);
  elements.forEach(({ e }, i) => data.set(e.embedding, i * config.dim));
  return {
    elements: new ort.Tensor('float32', data, [1, n, config.dim]),
    modality: new ort.Tensor(
      'int64',
      BigInt64Array.from(elements, ({ e }) => BigInt(e.kind === 'text' ? 0 : 1)),
      [1, n],
    ),
    segment: new ort.Tensor(
      'int64',
      BigInt64Array.from(elements, ({ segment }) => BigInt(segment)),
      [1, n],
    ),
    mask: new ort.Tensor('float32', new Float32Array(n).fill(1), [1, n]),
  };
}

/**
 * What the response already holds, as the intent head is told it (train_heads.py reply_state):
 * min(elements, 3) * 2, plus 1 when one of them is an image.
 */
export function replyState(partial: ResponseState['partial']): number {
  return Math.min(partial.length, 3) * 2 + (partial.some((e) => e.kind === 'image') ? 1 : 0);
}

async function output(session: OrtSession, feeds: Record<string, ort.Tensor>, name: string): Promise<Float32Array> {
  const result = (await session.run(feeds))[name];
  if (!result || !(result.data instanceof Float32Array))
    throw new EngineError('pack-file-corrupt', `The heads model has no float output "${name}". Retrain the heads.`);
  return result.data;
}

export class ResponseHeads {
  private constructor(
    private readonly config: HeadsConfig,
    private readonly intentSession: OrtSession,
    private readonly contextSession: OrtSession,
    private readonly candidateSession: OrtSession,
    readonly clipMap: ClipMapParams,
  ) {}

  /** Null when the pack has no heads; an error when they exist but do not fit this pack. */
  static async load(source: PackFileSource, files: ReadonlySet<string>, packFingerprint: string): Promise<ResponseHeads | null> {
    if (!files.has('heads/heads.json')) return null;
    for (const f of HEADS_FILES)
      if (!files.has(f))
        throw new EngineError(
          'pack-file-missing',
          `${source.location}${f} is missing, so the trained heads cannot be used. Retrain them (npm run heads:train) or remove the heads folder.`,
        );
    const config = parseHeadsConfig(await readPackJson(source, 'heads/heads.json'), source.location);
    if (config.packFingerprint !== packFingerprint) {
      throw new EngineError(
        'pack-config-invalid',
        `The trained heads in ${source.location}heads/ were trained on another version of this pack's encoders. Retrain them (npm run heads:train).`,
      );
    }
    const session = async (file: string) => {
      try {
        return await createOrtSession(await source.readBytes(file), 'wasm');
      } catch (cause) {
        throw new EngineError('pack-file-corrupt', `${source.location}${file} could not be loaded (${errorMessage(cause)}). Retrain the heads.`, { cause });
      }
    };
    const [intent, context, candidate] = await Promise.all([
      session('heads/intent.onnx'),
      session('heads/ranker_context.onnx'),
      session('heads/ranker_candidate.onnx'),
    ]);
    const maps = await source.readBytes('heads/clip_map.bin');
    const d = config.dim;
    if (maps.byteLength !== 2 * d * d * 4)
      throw new EngineError('pack-file-corrupt', `${source.location}heads/clip_map.bin has ${maps.byteLength} bytes, not ${2 * d * d * 4}. Retrain the heads.`);
    const w = new Float32Array(2 * d * d);
    new Uint8Array(w.buffer).set(maps);
    const clipMap: ClipMapParams = {
      dim: d,
      text: { w: w.subarray(0, d * d), a: config.clipMap.text.a },
      image: { w: w.subarray(d * d), a: config.clipMap.image.a },
    };
    return new ResponseHeads(config, intent, context, candidate, clipMap);
  }

  readonly intent: IntentModel = {
    id: 'head',
    predict: async (state) => {
      const feeds = { ...headInputs(state, this.config), reply_state: new ort.Tensor('int64', BigInt64Array.of(BigInt(replyState(state.partial))), [1]) };
      const logits = await output(this.intentSession, feeds, 'intent_logits');
      const max = Math.max(logits[0]!, logits[1]!, logits[2]!);
      const e = [0, 1, 2].map((i) => Math.exp(logits[i]! - max));
      const sum = e[0]! + e[1]! + e[2]!;
      return [e[0]! / sum, e[1]! / sum, e[2]! / sum] as IntentProbabilities;
    },
  };

  async query(state: ResponseState, modality: Modality): Promise<Float32Array> {
    // The query starts from clip-map's context vector (the anchor) and the transformer corrects it.
    const feeds = {
      ...headInputs(state, this.config),
      target_modality: new ort.Tensor('int64', BigInt64Array.of(BigInt(modality === 'text' ? 0 : 1)), [1]),
      anchor: new ort.Tensor('float32', contextVector(state), [1, this.config.dim]),
    };
    return output(this.contextSession, feeds, 'query');
  }

  /** Keys of pool rows computed beforehand (deppKeys.ts), by the rows they were computed from. */
  private readonly shippedKeys = new WeakMap<Float32Array, EmbeddingMatrix>();

  /** The size of a candidate key. */
  get keyDim(): number {
    return this.config.keyDim;
  }

  /** Keys of these rows computed beforehand (a pool's shipped file, checked by shippedDeppImageKeys): the ranker reads them instead of computing them. */
  useShippedKeys(rows: EmbeddingMatrix, keys: EmbeddingMatrix): void {
    this.shippedKeys.set(rows.data, keys);
  }

  /** Keys of candidates (the separate pass over each), in batches. */
  async keys(embeddings: EmbeddingMatrix, modality: Modality, batch = 1024): Promise<EmbeddingMatrix> {
    const { keyDim, dim } = this.config;
    const data = new Float32Array(embeddings.rows * keyDim);
    for (let start = 0; start < embeddings.rows; start += batch) {
      const m = Math.min(batch, embeddings.rows - start);
      const feeds = {
        candidates: new ort.Tensor('float32', embeddings.data.slice(start * dim, (start + m) * dim), [m, dim]),
        modality: new ort.Tensor('int64', new BigInt64Array(m).fill(BigInt(modality === 'text' ? 0 : 1)), [m]),
      };
      data.set(await output(this.candidateSession, feeds, 'keys'), start * keyDim);
    }
    return { data, rows: embeddings.rows, dim: keyDim };
  }

  /**
   * The DE++ ranker over a pool: a modality's candidate keys computed once, when that modality is first
   * ranked (the hybrid ranks only images with it), then one matrix product and a partial top-k per step.
   */
  async ranker(pool: CandidatePool): Promise<PoolScoringRanker> {
    const cached: Partial<Record<Modality, Promise<ScoreMatrix>>> = {};
    const keys = (modality: Modality) => {
      const rows = modality === 'text' ? pool.textMatrix : pool.imageMatrix;
      const shipped = this.shippedKeys.get(rows.data);
      return (cached[modality] ??= shipped ? Promise.resolve(ScoreMatrix.of(shipped)) : this.keys(rows, modality).then((m) => ScoreMatrix.of(m)));
    };
    return {
      id: 'depp',
      topK: async (state, modality, k, exclude): Promise<ScoredIndex[]> => (await keys(modality)).topK(await this.query(state, modality), k, exclude),
      poolScores: async (state, modality) => (await keys(modality)).scores(await this.query(state, modality)),
      score: async (state, modality, candidates: readonly CandidateItem[]) => {
        const q = await this.query(state, modality);
        const dim = this.config.dim;
        const stacked = new Float32Array(candidates.length * dim);
        candidates.forEach((c, i) => stacked.set(c.embedding, i * dim));
        const k = await this.keys({ data: stacked, rows: candidates.length, dim }, modality);
        return Float64Array.from({ length: candidates.length }, (_, i) => dot(k.data.subarray(i * k.dim, (i + 1) * k.dim), q));
      },
    };
  }

  async release(): Promise<void> {
    await Promise.allSettled([this.intentSession.release(), this.contextSession.release(), this.candidateSession.release()]);
  }
}
