import { nowMs } from '../clock';
import type { DialogueRecord, DialogueTurn } from '../datasets/mmdialog';
import { EngineError } from '../errors';
import { seededRandom } from '../random';
import type { EmbeddingMatrix } from '../retrieval/vectors';
import { shuffleWith } from '../selection/protocols';
import { type MapQuery, mapRecallAmongNegatives, trainClipMapInSlices } from '../ranking/trainClipMap';
import type { IntentModel } from './compose';
import { type IntentSample, type LocalHeads, intentFeatures, intentFigures, linearIntentSteps, trainInSlices } from './localHeads';
import { contextVector } from '../ranking/ranker';
import type { CandidatePool, ContextElement, ContextTurn, Modality } from './types';

/** What training reads from the reply session: its pool and train split, and its way of embedding the dialogues' texts and images. */
export interface LocalHeadsSource {
  pool: CandidatePool;
  train: readonly DialogueRecord[];
  /** The train split's majority intent, the baseline the intent head is compared with. */
  majority: IntentModel;
  /** Whether a text already has its embedding (a pool row, or encoded before). */
  knowsText(text: string): boolean;
  /** Encodes texts in one batch, kept for later. */
  embedTexts(texts: readonly string[]): Promise<void>;
  /** A dialogue turn's elements as the session embeds them. */
  turnElements(elements: DialogueTurn['elements']): ContextElement[];
  textEmbedding(text: string): Float32Array;
  /** A pool image's embedding, or null when the pool has no image of that key. */
  imageEmbedding(key: string): Float32Array | null;
}

export interface LocalHeadsOptions {
  yieldControl: () => Promise<void>;
  onProgress?: (phase: string, done: number, total: number) => void;
  seed?: number;
  maxPairs?: number;
  maxValidQueries?: number;
}

/**
 * Trains clip-map and the intent head on the train split, early-stopped on `valid` (never test): what
 * a pack without Python heads can have (localHeads.ts). Texts not embedded yet are encoded in batches
 * first. Hands control back between slices through `yieldControl`.
 */
export async function learnLocalHeads(source: LocalHeadsSource, valid: readonly DialogueRecord[], options: LocalHeadsOptions): Promise<LocalHeads> {
  const start = nowMs();
  const { pool, train } = source;
  if (train.length === 0) throw new EngineError('invalid-input', 'This pool has no train split, so nothing can be trained for it: replies stay zero-shot.');
  const seed = options.seed ?? 7;
  const validNegatives = 99;
  const texts = [...train, ...valid].flatMap((r) => r.turns.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []))));
  const fresh = [...new Set([...texts, ...valid.flatMap((r) => r.negativeTexts?.slice(0, validNegatives) ?? [])])].filter((t) => !source.knowsText(t));
  const batch = 64;
  for (let i = 0; i < fresh.length; i += batch) {
    await source.embedTexts(fresh.slice(i, i + batch));
    options.onProgress?.('Encoding dialogue texts', Math.min(fresh.length, i + batch), fresh.length);
    await options.yieldControl();
  }
  const encodeMs = nowMs() - start;
  const asTurns = (record: DialogueRecord): ContextTurn[] =>
    record.turns.map((t, i) => ({ speaker: (i % 2) as 0 | 1, elements: source.turnElements(t.elements) }));
  const label = (kind: Modality) => (kind === 'text' ? 0 : 1);
  const intentSamples = (records: readonly DialogueRecord[]): IntentSample[] =>
    records.flatMap((record) => {
      const turns = asTurns(record);
      return turns.slice(1).flatMap((response, r) => {
        const history = turns.slice(0, r + 1);
        if (history.at(-1)!.elements.length === 0) return [];
        return Array.from({ length: response.elements.length + 1 }, (_, j) => ({
          features: intentFeatures({ turns: history, partial: response.elements.slice(0, j) }),
          label: j < response.elements.length ? label(response.elements[j]!.kind) : 2,
        }));
      });
    });
  // Intent head.
  const intentStart = nowMs();
  options.onProgress?.('Training the intent head', 0, 1);
  const trainSamples = intentSamples(train);
  const validSamples = intentSamples(valid);
  const intent = await trainInSlices(
    linearIntentSteps(trainSamples, validSamples, { seed, onEpoch: ({ epoch }) => options.onProgress?.('Training the intent head', epoch, 30) }),
    options.yieldControl,
  );
  const majority = source.majority;
  let majorityRight = 0;
  for (const record of valid) {
    const turns = asTurns(record);
    for (const [r, response] of turns.slice(1).entries()) {
      if (turns[r]!.elements.length === 0) continue;
      for (let j = 0; j <= response.elements.length; j++) {
        const p = await majority.predict({ turns: turns.slice(0, r + 1), partial: response.elements.slice(0, j) });
        const predicted = p[0] >= p[1] && p[0] >= p[2] ? 0 : p[1] >= p[2] ? 1 : 2;
        if (predicted === (j < response.elements.length ? label(response.elements[j]!.kind) : 2)) majorityRight++;
      }
    }
  }
  const intentMs = nowMs() - intentStart;
  // clip-map, one map per modality: x the unit mean of the latest turn, y a response element.
  const maps: Partial<Record<Modality, { w: Float32Array; a: number }>> = {};
  const mapFigures: Partial<LocalHeads['figures']['clipMap']> = {};
  const next = seededRandom(seed);
  for (const modality of ['text', 'image'] as const) {
    const mapStart = nowMs();
    const pairs = (records: readonly DialogueRecord[]) =>
      records.flatMap((record) => {
        const turns = asTurns(record);
        return turns.slice(1).flatMap((response, r) => {
          if (turns[r]!.elements.length === 0) return [];
          const x = contextVector({ turns: turns.slice(0, r + 1), partial: [] });
          return response.elements.filter((e) => e.kind === modality).map((e) => ({ x, y: e.embedding, record, text: e.text }));
        });
      });
    const trainPairs = pairs(train);
    shuffleWith(trainPairs, next);
    const used = trainPairs.slice(0, options.maxPairs ?? 6000);
    const d = pool.textMatrix.dim;
    const stack = (vectors: readonly Float32Array[]): EmbeddingMatrix => {
      const data = new Float32Array(vectors.length * d);
      vectors.forEach((v, i) => data.set(v, i * d));
      return { data, rows: vectors.length, dim: d };
    };
    // Valid: each reference among its record's first 99 negatives of its modality (the heads' protocol).
    const rows: Float32Array[] = [];
    const rowOf = new Map<string, number>();
    const rowFor = (key: string, embedding: Float32Array) => {
      let r = rowOf.get(key);
      if (r === undefined) {
        rowOf.set(key, (r = rows.length));
        rows.push(embedding);
      }
      return r;
    };
    const validPairs = pairs(valid);
    shuffleWith(validPairs, next);
    const queries: MapQuery[] = validPairs.slice(0, options.maxValidQueries ?? 400).flatMap((p) => {
      const negatives =
        modality === 'text'
          ? (p.record.negativeTexts ?? []).slice(0, validNegatives).map((t) => rowFor(`t:${t}`, source.textEmbedding(t)))
          : (p.record.negativeMediaKeys ?? []).slice(0, validNegatives).flatMap((k) => {
              const embedding = source.imageEmbedding(k);
              return embedding ? [rowFor(`i:${k}`, embedding)] : [];
            });
      return negatives.length > 0 ? [{ x: p.x, target: rowFor(`${modality}:${p.text}`, p.y), negatives }] : [];
    });
    const items = stack(rows);
    options.onProgress?.(`Training clip-map (${modality})`, 0, 6);
    const trained = await trainClipMapInSlices(
      { x: stack(used.map((p) => p.x)), y: stack(used.map((p) => p.y)) },
      (map) => mapRecallAmongNegatives(map, items, queries),
      {
        maxEpochs: 6,
        patience: 2,
        batchSize: 64,
        learningRate: 1e-3,
        scale: 20,
        seed,
        onEpoch: ({ epoch }) => options.onProgress?.(`Training clip-map (${modality})`, epoch, 6),
      },
      options.yieldControl,
    );
    maps[modality] = { w: trained.w, a: trained.a };
    mapFigures[modality] = {
      validR1: trained.validR1,
      zeroShotR1: trained.history[0]!.validR1,
      bestEpoch: trained.bestEpoch,
      trainPairs: used.length,
      validQueries: queries.length,
      ms: nowMs() - mapStart,
    };
  }
  const figures = intentFigures(intent.model, validSamples);
  return {
    intent: intent.model,
    clipMap: { dim: pool.textMatrix.dim, text: maps.text!, image: maps.image! },
    figures: {
      intent: {
        validAccuracy: figures.accuracy,
        validMacroF1: figures.macroF1,
        majorityAccuracy: validSamples.length ? majorityRight / validSamples.length : 0,
        bestEpoch: intent.bestEpoch,
        trainSteps: trainSamples.length,
        validSteps: validSamples.length,
        ms: intentMs,
      },
      clipMap: { text: mapFigures.text!, image: mapFigures.image! },
      encodeMs,
      totalMs: nowMs() - start,
    },
  };
}
