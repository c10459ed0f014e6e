import { nowMs } from '../engine/clock';
import { EngineError, errorMessage } from '../engine/errors';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { EmbeddedPool, PoolImageItem, PoolTextItem } from '../engine/pool/poolEmbeddings';
import { dot, l2Normalize } from '../engine/retrieval/vectors';
import { type IntentModel, MajorityIntent, composeResponse, poolElement } from '../engine/response/compose';
import { captionBank } from '../engine/response/captioner';
import { type PhotoTimings, type AnalyzedPhoto, PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { type EmbeddingCache, embedPool } from '../engine/pool/poolEmbeddings';
import type { EmbeddingMatrix } from '../engine/retrieval/vectors';
import type { ResponseHeads } from '../engine/response/heads';
import { ClipMapRanker, ClipSimRanker, LexicalRanker, RandomRanker, type Ranker, contextVector } from '../engine/response/rankers';
import type { CandidatePool, ContextElement, ContextTurn } from '../engine/response/types';
import type { DialogueRecord } from '../engine/datasets/mmdialog';
import { scoreResponse } from '../engine/response/evaluate';
import type { HistoryElement, HistoryTurn, ImagePayload, PhotoCaption, ReferenceDialogue, ReferenceElement, ReplayTurnResult, ReplyResult, ResponseMethodId, ResponseMethods, WorkerMethods } from './protocol';
import { type CaptionedPhoto, groundedPhotoCaption, imageEncoderCaption } from './photoCaptions';

type Decode = (image: ImagePayload) => Promise<RgbaImage>;

/** Negatives each reference element is ranked among, as MMDialog does (1 of 1,000). */
export const REFERENCE_NEGATIVES = 999;

export interface PoolImageInfo {
  key: string;
  alt: string;
  label: string;
  url: string | null;
  kind: string;
  keywords: readonly string[];
}

/**
 * Composes replies in the worker: the conversation so far becomes the context U (embeddings cached
 * per text and per photo, so a long chat is not re-encoded each turn), then the response engine
 * builds the reply from the active pool with the chosen method. New photos go through the
 * PhotoAnalyzer: the object detector (when there is one), the grounded caption, the image tower.
 */
export class Responder {
  private readonly elements = new Map<string, ContextElement>();
  private readonly rankers = new Map<ResponseMethodId, Promise<Ranker>>();
  private pool: CandidatePool | null = null;
  private images: PoolImageInfo[] = [];
  private imageRow = new Map<string, number>();
  private textRow = new Map<string, number>();
  private majority: IntentModel = new MajorityIntent([[1, 0, 0], [0, 0, 1]]);
  private captions: Promise<{ bank: string[]; matrix: EmbeddingMatrix }> | null = null;

  constructor(
    private analyzer: PhotoAnalyzer,
    private readonly heads: ResponseHeads | null,
    private readonly headsNote: string,
    private readonly cache?: EmbeddingCache,
    /** Called when the detector failed on a photo that the image encoder alone could read; later photos go without it. */
    private readonly onDetectorFailed?: (reason: string) => void,
  ) {}

  private get encoder() {
    return this.analyzer.encoder;
  }

  /** The caption bank of the active pool, embedded on first use (and cached like the pool). */
  private captionBank(): Promise<{ bank: string[]; matrix: EmbeddingMatrix }> {
    this.captions ??= (async () => {
      const bank = captionBank(this.images.map((i) => ({ kind: i.kind, label: i.label, alt: i.alt, keywords: i.keywords })));
      const texts = bank.map((text, i) => ({ id: String(i), text }));
      const embedded = await embedPool({ encoder: this.encoder, texts, images: [], imageKeys: [], loadImage: () => Promise.reject(new Error('no images')), cache: this.cache, batchSize: 128 });
      return { bank, matrix: embedded.textMatrix };
    })();
    return this.captions;
  }

  setPool(embedded: EmbeddedPool<PoolTextItem, PoolImageItem>, images: PoolImageInfo[], majority: IntentModel | null): void {
    this.pool = {
      texts: embedded.texts.map((t) => t.text),
      textMatrix: embedded.textMatrix,
      imageKeys: images.map((i) => i.key),
      imageCaptions: images.map((i) => i.label),
      imageMatrix: embedded.imageMatrix,
    };
    this.images = images;
    this.imageRow = new Map(images.map((i, r) => [i.key, r]));
    this.textRow = new Map(this.pool.texts.map((t, r) => [t, r]));
    this.rankers.clear();
    this.captions = null;
    if (majority) this.majority = majority;
    // Build the default ranker now rather than on the first message: DE++ passes every pool row
    // through its candidate model once (about 1.8 s for the demo pool with mini-clip). A reply that
    // comes sooner waits on the same promise; a failure shows on that reply.
    void this.ranker(this.methods().preferred, this.pool).catch(() => undefined);
  }

  /** Whether replies use the majority intent (no trained heads), so the pool loader knows to gather it. */
  get needsMajority(): boolean {
    return this.heads === null;
  }

  methods(): ResponseMethods {
    const available: ResponseMethodId[] = ['random', 'tfidf', 'bm25', 'clip-sim', ...(this.heads ? (['clip-map', 'depp'] as const) : [])];
    // With heads, the trained DE++ system is the default: on the demo valid split it has the best
    // recall of every method and MM-Relevance level with clip-map under the same intent head
    // (README, "Response engine, measured").
    return { available, preferred: this.heads ? 'depp' : 'clip-sim', note: this.headsNote };
  }

  private ranker(method: ResponseMethodId, pool: CandidatePool): Promise<Ranker> {
    let ranker = this.rankers.get(method);
    if (!ranker) {
      const heads = this.heads;
      if ((method === 'depp' || method === 'clip-map') && !heads) throw new EngineError('invalid-input', `The method "${method}" needs trained heads, which this pack does not have. Choose another method in Settings.`);
      ranker = (async (): Promise<Ranker> => {
        switch (method) {
          case 'random': return new RandomRanker(pool, 1);
          case 'tfidf':
          case 'bm25': return new LexicalRanker(method, pool, pool.texts);
          case 'clip-sim': return new ClipSimRanker(pool);
          case 'clip-map': return new ClipMapRanker(pool, heads!.clipMap);
          case 'depp': return heads!.ranker(pool);
        }
      })();
      this.rankers.set(method, ranker);
    }
    return ranker;
  }

  async reply(params: WorkerMethods['reply']['params'], decode: Decode, backend: ReplyResult['backend']): Promise<ReplyResult> {
    const pool = this.requirePool();
    const latest: HistoryTurn = {
      elements: [...params.images.map((i) => ({ kind: 'image' as const, imageId: i.imageId, blob: i.blob })), ...params.texts.map((text) => ({ kind: 'text' as const, text }))],
    };
    if (latest.elements.length === 0) throw new EngineError('invalid-input', 'The message is empty. Type something or add a photo.');
    return (await this.compose(pool, [...params.history, latest], params.method, decode, backend)).reply;
  }

  /**
   * Replays one response turn of a reference dialogue: composes a reply to the turns before it and
   * scores it against it with the benchmark's own function (scoreResponse: MM-Relevance, Intent F1,
   * and each reference element ranked among the record's first 999 negatives).
   */
  async replayTurn(record: DialogueRecord, turn: number, method: ResponseMethodId | null, decode: Decode, backend: ReplyResult['backend']): Promise<ReplayTurnResult> {
    const pool = this.requirePool();
    if (!Number.isInteger(turn) || turn < 1 || turn >= record.turns.length) throw new EngineError('invalid-input', `Dialogue ${record.id} has no response turn ${turn}: it has turns 1 to ${record.turns.length - 1}.`);
    this.describeDialogue(record); // every image of the record must be in the active pool
    const history: HistoryTurn[] = record.turns.map((t) => ({ elements: t.elements.map((e): HistoryElement => (e.kind === 'text' ? { kind: 'text', text: e.text } : { kind: 'poolImage', key: e.key })) }));
    const { reply, turns, composed, ranker, intent } = await this.compose(pool, history.slice(0, turn), method, decode, backend);
    const negativeTexts = record.negativeTexts?.slice(0, REFERENCE_NEGATIVES) ?? [];
    await this.embedTexts([...history[turn]!.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])), ...negativeTexts]);
    const reference = this.contextTurn(pool, history[turn]!);
    const score = await scoreResponse(turns, composed.elements.map((e) => poolElement(pool, e.kind, e.index)), reference, {
      intent,
      ranker,
      negatives: { text: record.negativeTexts, image: record.negativeMediaKeys },
      limit: REFERENCE_NEGATIVES,
      negative: (modality, value) => (modality === 'text' ? this.textElement(pool, value) : this.poolImage(pool, value)),
    });
    return { reply, score };
  }

  /** Scores a reply against the visitor's own answer: MM-Relevance and Intent F1 (no negatives, so no Recall). */
  async scoreReference(params: WorkerMethods['scoreReference']['params'], decode: Decode): Promise<WorkerMethods['scoreReference']['result']> {
    const pool = this.requirePool();
    if (params.reference.length === 0) throw new EngineError('invalid-input', 'Your answer is empty. Type something or add a photo.');
    for (const e of params.reply) {
      if (e.kind === 'poolImage' && !this.imageRow.has(e.key)) throw new EngineError('invalid-input', 'This reply shows an image of a pool that is no longer in use, so it cannot be compared. Choose that pool under "Reply from", or answer a newer reply.');
    }
    const { turns, captions } = await this.embedHistory(pool, [{ elements: params.reply }, { elements: params.reference }], decode);
    return { score: await scoreResponse([], turns[0]!.elements, turns[1]!.elements), captions };
  }

  /** A record as the page shows it; every media key must name an image of the active pool. */
  describeDialogue(record: DialogueRecord): ReferenceDialogue['turns'] {
    return record.turns.map((t) => ({
      elements: t.elements.map((e): ReferenceElement => {
        if (e.kind === 'text') return { kind: 'text', text: e.text };
        const row = this.imageRow.get(e.key);
        if (row === undefined) throw new EngineError('invalid-input', `Dialogue ${record.id} shows the image "${e.key}", which is not in the pool in use. Replay needs the pool its dialogues were written for: choose it under "Reply from".`);
        const info = this.images[row]!;
        return { kind: 'poolImage', key: info.key, alt: info.alt, url: info.url };
      }),
    }));
  }

  private requirePool(): CandidatePool {
    if (!this.pool) throw new EngineError('not-loaded', 'The candidate pool is still loading. Wait for "Ready" and send again.');
    return this.pool;
  }

  /** Embeds the conversation (new texts and photos only), composes the reply with the chosen method, and describes it for the page. */
  private async compose(pool: CandidatePool, history: HistoryTurn[], requested: ResponseMethodId | null, decode: Decode, backend: ReplyResult['backend']) {
    const method = requested && this.methods().available.includes(requested) ? requested : this.methods().preferred;
    const start = nowMs();
    const { turns, captions, decodeMs, detectMs, encodeMs, captionMs } = await this.embedHistory(pool, history, decode);
    const intent = this.heads?.intent ?? this.majority;
    const ranker = await this.ranker(method, pool);
    const composed = await composeResponse(turns.filter((t) => t.elements.length > 0), pool, intent, ranker);
    const latestVector = contextVector({ turns, partial: [] }); // the latest turn, as clip-sim sees it
    const first = composed.elements[0];
    const label = (kind: 'text' | 'image', index: number) => (kind === 'text' ? pool.texts[index]! : this.images[index]!.label);
    const reply: ReplyResult = {
      elements: composed.elements.map((e) =>
        e.kind === 'text'
          ? { kind: 'text', text: pool.texts[e.index]!, score: e.score }
          : { kind: 'poolImage', key: this.images[e.index]!.key, alt: this.images[e.index]!.alt, url: this.images[e.index]!.url, score: e.score },
      ),
      steps: composed.steps.map((s) => ({
        probabilities: [...s.probabilities] as [number, number, number],
        intent: s.intent,
        candidates: s.candidates.map((c) => ({
          kind: s.intent === 'text' ? ('text' as const) : ('poolImage' as const),
          label: label(s.intent === 'text' ? 'text' : 'image', c.index),
          ...(s.intent === 'image' ? { key: this.images[c.index]!.key, url: this.images[c.index]!.url, alt: this.images[c.index]!.alt } : {}),
          score: c.score,
        })),
      })),
      method,
      intentModel: intent.id,
      relevance: first ? dot(latestVector, poolElement(pool, first.kind, first.index).embedding) : 0,
      captions,
      timings: { decodeMs, detectMs, encodeMs, captionMs, intentMs: composed.timings.intentMs, rankMs: composed.timings.rankMs, totalMs: nowMs() - start },
      backend,
    };
    return { reply, turns, composed, intent, ranker };
  }

  /**
   * Every element of the history as a unit embedding: photos not seen before are decoded, analyzed
   * (objects detected, grounded caption, image embedding) and captioned; texts are encoded once, in
   * one batch (a pool text uses its pool row, as the benchmark does).
   */
  private async embedHistory(pool: CandidatePool, history: readonly HistoryTurn[], decode: Decode) {
    const start = nowMs();
    const newImages: { id: string; pixels: RgbaImage }[] = [];
    for (const turn of history) {
      for (const e of turn.elements) {
        if (e.kind === 'image' && !this.elements.has(`u:${e.imageId}`) && e.blob) newImages.push({ id: e.imageId, pixels: await decode({ name: e.imageId, blob: e.blob }) });
      }
    }
    const decoded = nowMs();
    const texts = history.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])));
    const [, analyzed] = await Promise.all([this.embedTexts(texts), this.analyzePhotos(newImages.map((i) => i.pixels))]);
    const encoded = nowMs();
    // Each new photo gets a one-sentence caption: shown under the photo, and its text for the text-only methods.
    const captions: PhotoCaption[] = [];
    if (newImages.length > 0) {
      const bank = analyzed.photos.some((p) => p.description === null) ? await this.captionBank() : null;
      newImages.forEach((img, i) => {
        const photo = analyzed.photos[i]!;
        const embedding = l2Normalize(photo.embedding);
        const captioned: CaptionedPhoto = photo.description ? groundedPhotoCaption(img.id, photo.description) : imageEncoderCaption(img.id, embedding, bank!);
        captions.push(captioned.caption);
        this.elements.set(`u:${img.id}`, { kind: 'image', text: captioned.retrievalText, embedding });
      });
    }
    const captioned = nowMs();
    const { detectMs, captionMs: groundedCaptionMs } = analyzed.timings;
    const turns: ContextTurn[] = history.map((turn, i) => ({ speaker: (i % 2) as 0 | 1, elements: this.contextTurn(pool, turn) }));
    return {
      turns,
      captions,
      decodeMs: decoded - start,
      detectMs,
      // Texts are encoded beside the photos: what the analysis did not spend on detection and grounded captions.
      encodeMs: Math.max(0, encoded - decoded - detectMs - groundedCaptionMs),
      captionMs: groundedCaptionMs + (captioned - encoded),
    };
  }

  /**
   * The analyzer's pass over new photos. If it fails with the detector and succeeds without it, the
   * detector is what failed: this and every later photo are described by the image encoder alone,
   * and the engine is told, so the status area can say so. An encoder failure still fails the reply.
   */
  private async analyzePhotos(images: readonly RgbaImage[]): Promise<{ photos: AnalyzedPhoto[]; timings: PhotoTimings }> {
    if (images.length === 0) return { photos: [], timings: { detectMs: 0, captionMs: 0, encodeMs: 0 } };
    const analyzer = this.analyzer;
    try {
      return await analyzer.analyze(images);
    } catch (error) {
      if (!analyzer.detector) throw error;
      const withoutDetector = new PhotoAnalyzer(analyzer.encoder, null);
      const analyzed = await withoutDetector.analyze(images);
      if (this.analyzer === analyzer) this.analyzer = withoutDetector;
      this.onDetectorFailed?.(errorMessage(error));
      return analyzed;
    }
  }

  /** A turn's elements, once embedded; a photo that could not be read and an image of another pool are left out. */
  private contextTurn(pool: CandidatePool, turn: HistoryTurn): ContextElement[] {
    return turn.elements.flatMap((e): ContextElement[] => {
      if (e.kind === 'text') return [this.textElement(pool, e.text)];
      if (e.kind === 'image') return this.elements.has(`u:${e.imageId}`) ? [this.elements.get(`u:${e.imageId}`)!] : [];
      const row = this.imageRow.get(e.key);
      return row === undefined ? [] : [poolElement(pool, 'image', row)];
    });
  }

  /** Encodes the texts that are neither in the pool nor encoded before, in one batch. */
  private async embedTexts(texts: readonly string[]): Promise<void> {
    const fresh = [...new Set(texts.filter((t) => !this.textRow.has(t) && !this.elements.has(`t:${t}`)))];
    if (fresh.length === 0) return;
    const embeddings = await this.encoder.encodeTexts(fresh);
    fresh.forEach((text, i) => this.elements.set(`t:${text}`, { kind: 'text', text, embedding: l2Normalize(embeddings[i]!) }));
  }

  private textElement(pool: CandidatePool, text: string): ContextElement {
    const row = this.textRow.get(text);
    return row === undefined ? this.elements.get(`t:${text}`)! : poolElement(pool, 'text', row);
  }

  private poolImage(pool: CandidatePool, key: string): ContextElement {
    const row = this.imageRow.get(key);
    if (row === undefined) throw new EngineError('invalid-input', `The image "${key}" is not in the pool in use.`);
    return poolElement(pool, 'image', row);
  }
}
