import type { ClipEncoder } from '../engine/clip/clipEncoder';
import { nowMs } from '../engine/clock';
import { EngineError } from '../engine/errors';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { EmbeddedPool, PoolImageItem, PoolTextItem } from '../engine/pool/poolEmbeddings';
import { dot, l2Normalize } from '../engine/retrieval/vectors';
import { type IntentModel, MajorityIntent, composeResponse, poolElement } from '../engine/response/compose';
import { captionBank, captionImage } from '../engine/response/captioner';
import { type EmbeddingCache, embedPool } from '../engine/pool/poolEmbeddings';
import type { EmbeddingMatrix } from '../engine/retrieval/vectors';
import type { ResponseHeads } from '../engine/response/heads';
import { ClipMapRanker, ClipSimRanker, LexicalRanker, RandomRanker, type Ranker, contextVector } from '../engine/response/rankers';
import type { CandidatePool, ContextElement, ContextTurn } from '../engine/response/types';
import type { HistoryTurn, ImagePayload, ReplyResult, ResponseMethodId, ResponseMethods, WorkerMethods } from './protocol';

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
 * builds the reply from the active pool with the chosen method.
 */
export class Responder {
  private readonly elements = new Map<string, ContextElement>();
  private readonly rankers = new Map<ResponseMethodId, Promise<Ranker>>();
  private pool: CandidatePool | null = null;
  private images: PoolImageInfo[] = [];
  private imageRow = new Map<string, number>();
  private majority: IntentModel = new MajorityIntent([[1, 0, 0], [0, 0, 1]]);
  private captions: Promise<{ bank: string[]; matrix: EmbeddingMatrix }> | null = null;

  constructor(
    private readonly encoder: ClipEncoder,
    private readonly heads: ResponseHeads | null,
    private readonly headsNote: string,
    private readonly cache?: EmbeddingCache,
  ) {}

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
    this.rankers.clear();
    this.captions = null;
    if (majority) this.majority = majority;
  }

  /** Whether replies use the majority intent (no trained heads), so the pool loader knows to gather it. */
  get needsMajority(): boolean {
    return this.heads === null;
  }

  methods(): ResponseMethods {
    const available: ResponseMethodId[] = ['random', 'tfidf', 'bm25', 'clip-sim', ...(this.heads ? (['clip-map', 'depp'] as const) : [])];
    // With heads, clip-map is the default: on the demo valid split it measured best (MM-Relevance 42.9
    // against 37.2 for the DE++ ranker; README, "Response engine, measured"). DE++ stays one click away.
    return { available, preferred: this.heads ? 'clip-map' : 'clip-sim', note: this.headsNote };
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

  async reply(params: WorkerMethods['reply']['params'], decode: (image: ImagePayload) => Promise<RgbaImage>, backend: ReplyResult['backend']): Promise<ReplyResult> {
    const pool = this.pool;
    if (!pool) throw new EngineError('not-loaded', 'The candidate pool is still loading. Wait for "Ready" and send again.');
    const method = params.method && this.methods().available.includes(params.method) ? params.method : this.methods().preferred;
    const start = nowMs();
    const latest: HistoryTurn = {
      elements: [...params.images.map((i) => ({ kind: 'image' as const, imageId: i.imageId, blob: i.blob })), ...params.texts.map((text) => ({ kind: 'text' as const, text }))],
    };
    if (latest.elements.length === 0) throw new EngineError('invalid-input', 'The message is empty. Type something or add a photo.');
    const history = [...params.history, latest];

    // Decode photos not seen before, then encode every new text and photo in one batch each.
    const newImages: { id: string; pixels: RgbaImage }[] = [];
    for (const turn of history) {
      for (const e of turn.elements) {
        if (e.kind === 'image' && !this.elements.has(`u:${e.imageId}`) && e.blob) newImages.push({ id: e.imageId, pixels: await decode({ name: e.imageId, blob: e.blob }) });
      }
    }
    const decoded = nowMs();
    const newTexts = [...new Set(history.flatMap((t) => t.elements.flatMap((e) => (e.kind === 'text' && !this.elements.has(`t:${e.text}`) ? [e.text] : []))))];
    const [textEmbeds, imageEmbeds] = await Promise.all([this.encoder.encodeTexts(newTexts), this.encoder.encodeImages(newImages.map((i) => i.pixels))]);
    newTexts.forEach((text, i) => this.elements.set(`t:${text}`, { kind: 'text', text, embedding: l2Normalize(textEmbeds[i]!) }));
    const encoded = nowMs();
    // New photos get a one-sentence caption: shown under the photo, and their text for text-only methods.
    const captions: ReplyResult['captions'] = [];
    if (newImages.length > 0) {
      const { bank, matrix } = await this.captionBank();
      newImages.forEach((img, i) => {
        const embedding = l2Normalize(imageEmbeds[i]!);
        const caption = captionImage(embedding, bank, matrix);
        captions.push({ imageId: img.id, text: caption.text, score: caption.score });
        this.elements.set(`u:${img.id}`, { kind: 'image', text: caption.text, embedding });
      });
    }
    const captioned = nowMs();

    const turns: ContextTurn[] = history.map((turn, i) => ({
      speaker: (i % 2) as 0 | 1,
      elements: turn.elements.flatMap((e): ContextElement[] => {
        if (e.kind === 'text') return [this.elements.get(`t:${e.text}`)!];
        if (e.kind === 'image') return this.elements.has(`u:${e.imageId}`) ? [this.elements.get(`u:${e.imageId}`)!] : [];
        const row = this.imageRow.get(e.key);
        return row === undefined ? [] : [poolElement(pool, 'image', row)]; // an image of another pool is left out
      }),
    }));
    const intent = this.heads?.intent ?? this.majority;
    const composed = await composeResponse(turns.filter((t) => t.elements.length > 0), pool, intent, await this.ranker(method, pool));
    const latestVector = contextVector({ turns, partial: [] }); // the latest turn, as clip-sim sees it
    const first = composed.elements[0];
    const label = (kind: 'text' | 'image', index: number) => (kind === 'text' ? pool.texts[index]! : this.images[index]!.label);
    return {
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
      timings: { decodeMs: decoded - start, encodeMs: encoded - decoded, captionMs: captioned - encoded, intentMs: composed.timings.intentMs, rankMs: composed.timings.rankMs, totalMs: nowMs() - start },
      backend,
    };
  }
}
