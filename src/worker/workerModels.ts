import { ImageCaptioner } from '../engine/caption/imageCaptioner';
import { lazyPhotoChecker } from './photoCheckModel';
import type { PhotoChecker } from '../engine/perception/photoCheck';
import { ClipEncoder } from '../engine/clip/clipEncoder';
import { ObjectDetector } from '../engine/detection/objectDetector';
import { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { EngineError, errorMessage } from '../engine/errors';
import { type ExecutionPlan, wasmFallbackPlan } from '../engine/onnx/executionPlan';
import { ort } from '../engine/onnx/ortSessions';
import { type EmbeddedPool, type PoolImageItem, type PoolTextItem, POOL_STARTER_MS } from '../engine/pool/poolEmbeddings';
import { fetchJson, prefetchDemoPool } from './demoPoolFiles';
import type { ResponseHeads } from '../engine/response/heads';
import type { SessionChat } from '../engine/response/session';
import { RESPONSE_METHODS } from '../engine/response/methods';
import type { RgbaImage } from '../engine/image/rgbaImage';
import { nowMs } from '../engine/clock';
import { LoadSteps } from '../engine/loadSteps';
import type { LexicalCounts } from '../engine/ranking/lexical';
import type { TextMarks } from '../engine/response/textMarks';
import { StoredPackSource } from '../persistence/packStore';
import { embeddingCache } from '../persistence/datasetDb';
import { requireDataset } from './datasetImport';
import { type PoolImageInfo, Responder, type VideoRankers } from './responder';
import { decodeImage } from './decodeImage';
import { FetchPackSource } from './fetchPackSource';
import { LocalTraining } from './localTraining';
import { type BackgroundWork, completePoolRows } from './deferredPoolRows';
import { chatPoolParts } from './chatPoolParts';
import { type DemoCatalogues, loadDemoPool, readDemoCatalogues } from './demoPoolLoad';
import { type DetectorWatch, loadCaptioner, loadDetector } from './photoModels';
import { loadChat, loadHeads, replyModelsNote, usable } from './replyModels';
import { ReferenceDialogues } from './referenceDialogues';
import { StoredDatasets } from './storedDatasets';
import type { RequestContext } from './requestHandler';
import type { BackendState, CaptionerStatus, DetectorStatus, FileProgress, PoolLoaded, PoolRef, WorkerAnnouncement } from '../protocol/protocol';
import type { WorkerMethods } from '../protocol/protocol';
import { startInWorker } from './ortArtifacts';

interface ActivePool {
  loaded: PoolLoaded;
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
}

/**
 * The engine as the browser worker runs it, packs over fetch and images via createImageBitmap: the
 * owner of the pack in use and its pool (the encoders, the detector, the responder). The photo path's
 * optional models load in photoModels.ts, the demo pool in demoPoolLoad.ts, the conversational keys in
 * chatPoolParts.ts and the deferred rows in deferredPoolRows.ts. Stored datasets, the reference
 * dialogues, training in the browser, CLEVR-Dialog and videos are owners of their own, which ask this
 * one for the pack when they need it; model.worker.ts joins their handlers into the one API (workerOwners.ts).
 */
export class WorkerModels {
  /** The pack's CLIP towers; each loadPack replaces them, with the detector, captioner and analyzer below. */
  private encoder: ClipEncoder | null = null;
  private detector: ObjectDetector | null = null;
  private captioner: ImageCaptioner | null = null;
  /** The encoder with the detector (or without, when it is unavailable): every photo and pool image goes through it. */
  private analyzer: PhotoAnalyzer | null = null;
  /** Tells the page what changes outside any call (WorkerAnnouncements); the request handler hands it over (useAnnouncer). */
  private announce: (announcement: WorkerAnnouncement) => void = () => undefined;
  private pool: ActivePool | null = null;
  private packId = '';
  private responder: Responder | null = null;
  /** Where the reference dialogues of the pool in use come from, and those already parsed. */
  /** The reference dialogues of the pool in use (Replay, the train split the session reads): its own owner. */
  readonly references = new ReferenceDialogues(() => this.readyResponder());
  /** Datasets copied into this browser and embedded with the pack in use: their own owner. */
  readonly datasets = new StoredDatasets({ encoder: () => this.encoder, analyzer: () => this.embeddingAnalyzer() });
  /** clip-map and the intent head trained in this browser, for a pack without Python heads: their own owner. */
  readonly training = new LocalTraining({
    stillInUse: (encoder, responder, embedded) => this.encoder === encoder && this.responder === responder && this.pool?.embedded === embedded,
    dialogues: (ref, split) => this.references.dialogues(ref, split),
    inUse: () => {
      const { encoder, pool } = this.ready();
      return {
        packId: this.packId,
        encoder,
        responder: this.responder,
        embedded: pool.embedded,
        source: this.references.source,
        hasPythonHeads: this.hasPythonHeads,
      };
    },
  });
  /** The demo pool's catalogues, read while the pack's models load (demoCatalogues); taken by the pool's load. */
  private earlyCatalogues: { baseUrl: string; read: Promise<DemoCatalogues> } | null = null;
  /** The photo check of models/photo-check (null when not installed): shared photos and videos' frames. */
  private photoCheck: PhotoChecker | null = null;

  /** Resolves once no request waits (the request handler's gate): the pool's text rows are computed only then. */
  private whenIdle: () => Promise<void> = () => Promise.resolve();

  /** The detector in use tells the page of a move to WASM, and is watched for a lost WebGPU device, while it is the one in use. */
  private readonly detectorWatch: DetectorWatch = {
    backendChanged: (detector, status) => {
      if (this.detector === detector) this.announce({ type: 'detector', detector: status });
    },
    deviceLoss: (detector) =>
      this.watchDeviceLoss(
        () => this.detector === detector,
        (reason) => detector.fallBackToWasm(reason),
      ),
  };

  /** What the pool's deferred rows are computed with (deferredPoolRows.ts). */
  private readonly background: BackgroundWork = {
    announce: (announcement) => this.announce(announcement),
    markBusy: () => this.markBusy(),
    whenIdle: () => this.whenIdle(),
  };

  useIdleGate(whenIdle: () => Promise<void>): void {
    this.whenIdle = whenIdle;
  }

  /** Marks background work busy for the heartbeat (heartbeat.ts) until the returned function is called: the page then allows a long silence. */
  private markBusy: () => () => void = () => () => undefined;

  useBusyMarker(markBusy: () => () => void): void {
    this.markBusy = markBusy;
  }

  private hasPythonHeads = false;
  /** The pack's trained heads, or null: a demo pool's shipped DE++ keys are handed to them. */
  private heads: ResponseHeads | null = null;
  /** The pack's conversational encoder and its settings, or null. */
  private chat: SessionChat | null = null;
  /** Train clip-map and the intent head as soon as the pool is ready (a downloaded pack), rather than on request. */
  private autoTrain = false;
  /** The plan onnxruntime was configured with by the first load, so the CLEVR-Dialog models run where the pack runs. */
  private runtimePlan: ExecutionPlan | null = null;

  /**
   * `startOnnxRuntime` chooses the execution plan and starts onnxruntime: the browser's (startInWorker),
   * or, in a Node test, Node's onnxruntime on a plan the test gives.
   */
  constructor(private readonly startOnnxRuntime: (forceWasm: boolean) => Promise<ExecutionPlan> = startInWorker) {}

  private async configureRuntime(forceWasm: boolean): Promise<ExecutionPlan> {
    const plan = await this.startOnnxRuntime(forceWasm);
    this.runtimePlan = plan;
    return plan;
  }

  /** The execution plan the first load chose, or one chosen now (CLEVR-Dialog or a video before any pack): their models run where the pack runs. */
  async runtime(forceWasm: boolean): Promise<ExecutionPlan> {
    return this.runtimePlan ?? (await this.configureRuntime(forceWasm));
  }

  /** The loaded pack's photo path (its analyzer: detector and image tower) and the photo check, for a video's frames; null parts before a pack loads. */
  photoPath(): { analyzer: PhotoAnalyzer | null; photoCheck: PhotoChecker | null } {
    return { analyzer: this.analyzer, photoCheck: this.photoCheck };
  }

  useAnnouncer(announce: (announcement: WorkerAnnouncement) => void): void {
    this.announce = announce;
  }

  /**
   * Loads a pack and its pool. What changes after it answers is announced (useAnnouncer): a move to
   * WASM, the detector's and captioner's state, in-worker training, the pool's rows.
   */
  async loadPack(params: WorkerMethods['loadPack']['params'], context: RequestContext) {
    const onProgress = (p: FileProgress) => context.progress(p);
    const onBackend = (backend: BackendState) => this.announce({ type: 'backend', backend });
    const onCaptioner = (captioner: CaptionerStatus) => this.announce({ type: 'captioner', captioner });
    this.autoTrain = params.pack.stored === true;
    const start = nowMs();
    const steps = new LoadSteps();
    // A load the page no longer wants (another pack was chosen) stops at its next step and releases what
    // it made; before the old pack is released, that pack stays in use.
    const { signal } = context;
    const plan = await this.configureRuntime(params.forceWasm);
    signal.throwIfAborted();
    steps.mark('runtime');
    await Promise.all([this.encoder?.release(), this.detector?.release(), this.captioner?.dispose()]);
    this.encoder = null;
    this.detector = null;
    this.captioner = null;
    this.analyzer = null;
    this.pool = null;
    const packSource = params.pack.stored ? new StoredPackSource(params.pack.id) : new FetchPackSource(params.pack.baseUrl);
    if (params.pool.kind === 'demo') {
      prefetchDemoPool(params.pool.baseUrl, params.pack.id);
      const read = this.demoCatalogues(params.pool);
      read.catch(() => undefined); // reported by loadPool, which reads it
      this.earlyCatalogues = { baseUrl: params.pool.baseUrl, read };
    }
    // Ready is the text path: the image tower's session is made at the first photo, or by the warm-up after Ready.
    const encoder = await ClipEncoder.load(packSource, params.pack.files, plan, { onProgress, onBackendChange: onBackend, deferred: ['vision_model'] });
    if (signal.aborted) await encoder.release();
    signal.throwIfAborted();
    steps.mark('CLIP towers', {
      'configs and tokenizer': encoder.timings.totalMs - encoder.timings.sessionMs,
      'sessions and first run': encoder.timings.sessionMs,
    });
    if (encoder.backend.provider === 'webgpu')
      this.watchDeviceLoss(
        () => this.encoder === encoder,
        (reason) => encoder.fallBackToWasm(reason),
      );
    // The heads, the conversational encoder, the detector and the captioner are read side by side:
    // each waits on its files at times the others parse or make a session (issue 38).
    const timed = async <T>(load: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const begun = nowMs();
      const value = await load();
      return { value, ms: nowMs() - begun };
    };
    const fileSet = new Set(params.pack.files);
    // The detector and the captioner run where the pack runs (on WASM at once when WebGPU already failed for the pack).
    const detectorPlan = encoder.backend.fallbackFrom === 'webgpu' ? wasmFallbackPlan(plan, encoder.backend.reason) : plan;
    const [headsLoad, chatLoad, detectorLoad, captionerLoad] = await Promise.all([
      timed(() => loadHeads(packSource, fileSet, encoder.fingerprint)),
      timed(() => loadChat(packSource, fileSet, encoder.tokenizer, onProgress)),
      timed(() => loadDetector(params.detector, detectorPlan, onProgress, this.detectorWatch)),
      timed(() => loadCaptioner(params.captioner ?? null, detectorPlan, onProgress)),
    ]);
    steps.mark(`${params.captioner ? 'heads, chat encoder, detector and captioner' : 'heads, chat encoder and detector'} side by side`, {
      'response heads': headsLoad.ms,
      'chat encoder': chatLoad.ms,
      detector: detectorLoad.ms,
      ...(params.captioner ? { captioner: captionerLoad.ms } : {}),
    });
    const heads = usable(headsLoad.value);
    const chat = usable(chatLoad.value);
    if (signal.aborted) {
      await Promise.allSettled([
        encoder.release(),
        heads?.release(),
        chat?.encoder.release(),
        detectorLoad.value.detector?.release(),
        captionerLoad.value.captioner?.dispose(),
      ]);
      signal.throwIfAborted();
    }
    this.chat?.encoder.release().catch(() => undefined);
    this.chat = chat;
    const { detector, status: detectorStatus } = detectorLoad.value;
    const { captioner, status: captionerStatus } = captionerLoad.value;
    const analyzer = new PhotoAnalyzer(encoder, detector);
    this.captioner = captioner;
    this.encoder = encoder;
    this.detector = detector;
    this.analyzer = analyzer;
    this.packId = params.pack.id;
    this.photoCheck = params.photoCheck ? lazyPhotoChecker(params.photoCheck) : null;
    this.hasPythonHeads = heads !== null;
    this.heads = heads;
    const onCaptionerFailed = (reason: string) => {
      console.warn('The captioner failed; photos keep their grounded captions from now on:', reason);
      if (this.captioner === captioner)
        onCaptioner({
          state: 'unavailable',
          reason: `The captioner failed on a photo (${reason.replace(/\.$/, '')}), so photos keep their grounded captions from now on. Reload the page to try it again.`,
        });
    };
    this.responder = new Responder(
      analyzer,
      heads,
      replyModelsNote(headsLoad.value, chatLoad.value),
      embeddingCache,
      (reason) => detector && this.detectorFailed(detector, reason),
      captioner && { captioner, onFailed: onCaptionerFailed },
      chat,
      this.photoCheck,
    );
    const pool = await this.loadPool({ pool: params.pool }, onProgress, signal, steps);
    return {
      packId: params.pack.id,
      steps: steps.list(),
      methods: this.responder.methods(),
      backend: encoder.backend,
      loadMs: nowMs() - start,
      projectionDim: encoder.config.projectionDim,
      pool,
      detector: this.detectorStatus(detectorStatus),
      captioner: captionerStatus,
    };
  }

  /**
   * What the demo pool's load reads before it needs the encoder: the catalogues, the rows booth
   * strictness leaves out, and the rows' order of use in the train split (rows the pool file lacks are
   * computed after Ready, the most used first). loadPack begins it with the pack's sessions, so its
   * parsing fills the time the worker waits for model files (issue 38); a later usePool reads it anew.
   */
  private demoCatalogues(ref: Extract<PoolRef, { kind: 'demo' }>): Promise<DemoCatalogues> {
    const early = this.earlyCatalogues;
    this.earlyCatalogues = null;
    if (early?.baseUrl === ref.baseUrl) return early.read;
    return readDemoCatalogues(ref, () => this.references.dialogues(ref, 'train'));
  }

  /**
   * The analyzer for work that keeps only embeddings (the pool, datasets, encodeImages). An image
   * tower that does not take the detector's grounding computes the same embedding without it, under
   * the same fingerprint, so the detector is skipped there: it would cost a detection per image
   * (seconds for a few dozen photos on WASM) for nothing. Captions of shared photos always use it.
   */
  private embeddingAnalyzer(): PhotoAnalyzer | null {
    const analyzer = this.analyzer;
    if (!analyzer || !analyzer.detector || analyzer.encoder.takesGrounding) return analyzer;
    return new PhotoAnalyzer(analyzer.encoder, null);
  }

  /** The status as it is now: a fallback to WASM during the load shows in the detector's backend. */
  private detectorStatus(status: DetectorStatus): DetectorStatus {
    return status.state === 'ready' && this.detector ? { ...status, backend: this.detector.backend } : status;
  }

  /** The detector failed on a photo the image encoder alone could read: go on without it, and say so. */
  private detectorFailed(detector: ObjectDetector, reason: string): void {
    if (this.detector !== detector || !this.encoder) return;
    console.warn('The object detector failed; photos are described by the image encoder alone from now on:', reason);
    this.detector = null;
    this.analyzer = new PhotoAnalyzer(this.encoder, null);
    // Not released: a dataset being embedded in the background may still hold the analyzer that uses it.
    this.announce({
      type: 'detector',
      detector: {
        state: 'unavailable',
        reason: `The object detector failed on a photo (${reason.replace(/\.$/, '')}), so photos are now described by the image encoder alone. Reload the page to try the detector again.`,
      },
    });
  }

  /** Makes a pool the one replies come from; its embeddings come from the precomputed file, the cache, or are computed. */
  usePool(params: WorkerMethods['usePool']['params'], context: RequestContext): Promise<PoolLoaded> {
    return this.loadPool(params, (p) => context.progress(p), context.signal);
  }

  /** `signal` stops the work up to the moment the new pool is put in use; the pool in use until then stays. */
  private async loadPool(params: { pool: PoolRef }, onProgress: (p: FileProgress) => void, signal?: AbortSignal, steps = new LoadSteps()): Promise<PoolLoaded> {
    const encoder = this.encoder;
    const analyzer = this.embeddingAnalyzer();
    const responder = this.responder;
    const packId = this.packId;
    if (!encoder || !analyzer) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    const progress = (phase: string, done: number, total: number) => onProgress({ file: `pool ${phase}`, loaded: done, total });
    const ref = params.pool;
    let embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
    let loaded: Omit<PoolLoaded, 'embeddings'>;
    let imageInfo: PoolImageInfo[];
    let loadImage: ((item: PoolImageItem) => Promise<RgbaImage>) | undefined;
    let textCounts: LexicalCounts | null = null;
    // A stored dataset's pool has no marks: the session screens it when a strict reply is first asked for.
    let borderlineTexts: ReadonlySet<number> | undefined;
    // The demo pool ships its texts' keys and photo marks; a stored dataset's are worked out by the session.
    let textMarks: TextMarks | null = null;
    if (ref.kind === 'demo') {
      ({ embedded, loaded, imageInfo, loadImage, textCounts, textMarks, borderlineTexts } = await loadDemoPool(ref, this.demoCatalogues(ref), {
        packId,
        analyzer,
        heads: this.heads,
        progress,
        cancelled: () => this.encoder !== encoder || signal?.aborted === true,
        steps,
      }));
    } else {
      const dataset = await requireDataset(ref.datasetId);
      embedded = await this.datasets.embedDataset(dataset, analyzer, encoder, (p) => progress(p.file, p.loaded, p.total ?? 0), signal);
      loaded = { poolId: dataset.id, name: dataset.name, texts: dataset.texts.length, images: dataset.images.length };
      imageInfo = dataset.images.map((i) => ({ key: i.key, alt: i.alt, label: i.alt, url: null, kind: 'image', keywords: [] }));
    }
    if (this.encoder !== encoder)
      throw new EngineError('not-loaded', 'The model pack changed while the pool was loading; it will load again for the new pack.');
    const chatParts = await chatPoolParts(this.chat, packId, ref, embedded, imageInfo, progress, () => this.encoder !== encoder || signal?.aborted === true);
    steps.mark('chat keys and contexts');
    if (this.encoder !== encoder)
      throw new EngineError('not-loaded', 'The model pack changed while the pool was loading; it will load again for the new pack.');
    signal?.throwIfAborted();
    this.pool = { loaded: { ...loaded, embeddings: embedded.stats }, embedded };
    this.references.useSource(ref);
    // The train split alone gives the majority intent and tf-idf/BM25's document frequencies (never
    // test or valid, which replays score against), read when a method first needs it.
    const rows = completePoolRows(loaded.poolId, embedded, analyzer, loadImage, () => this.pool?.embedded !== embedded, this.background);
    responder?.setPool(
      embedded,
      textCounts,
      imageInfo,
      chatParts,
      { ...rows.session, ...(borderlineTexts ? { borderlineTexts } : {}), ...(textMarks ? { textMarks } : {}) },
      () =>
        this.references.dialogues(ref, 'train').catch((error: unknown) => {
          console.warn(
            `No train dialogues for this pool (${errorMessage(error)}): the majority intent is one text, then stop, and tf-idf/BM25 take document frequencies from the pool's texts.`,
          );
          return null;
        }),
      // The demo's train split comes with its inviting phrases (npm run pool:keys); the session checks they were learned from it.
      ref.kind === 'demo' ? () => fetchJson(`${ref.baseUrl.replace(/pool\/$/, '')}dialogues/train/invitations.json`).catch(() => null) : undefined,
    );
    // A default method that answers from the rows there so far (clip-sim, a downloaded pack's) gets
    // the most used ones before Ready, for at most POOL_STARTER_MS; the rest follow after Ready.
    const preferred = responder?.methods().preferred;
    if (preferred && Object.values(RESPONSE_METHODS[preferred].needs.clipRows).includes('live')) {
      await rows.eagerFor(POOL_STARTER_MS, (ms) => progress('most used rows first (the rest after Ready)', Math.round(ms / 1000), POOL_STARTER_MS / 1000));
    }
    // Heads trained here before are read from the cache; a downloaded pack trains at once, others on request (Settings).
    if (responder && !this.hasPythonHeads) void this.training.start({ packId: this.packId, encoder, responder, ref, embedded }, this.autoTrain);
    // "Ready" means a turn is answered at once: the ranker and the intent model are built first.
    await responder?.firstReplyPrepared();
    steps.mark('first reply prepared');
    return this.pool.loaded;
  }

  async checkImage(params: WorkerMethods['checkImage']['params']) {
    const { header } = await decodeImage(params.image);
    return header;
  }

  async reply(params: WorkerMethods['reply']['params'], context: RequestContext) {
    const { encoder } = this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return this.responder.reply(params, async (image) => (await decodeImage(image)).pixels, encoder.backend, context.signal, this.videoRankers);
  }

  /** The video models' owner's loader of the AVSD rankers (sharedVideos.ts), for turns about a video. */
  private videoRankers: VideoRankers | undefined;

  useVideoRankers(videoRankers: VideoRankers): void {
    this.videoRankers = videoRankers;
  }

  async warmUp(params: WorkerMethods['warmUp']['params'], context: RequestContext) {
    this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return this.responder.warmUp(params, context.signal);
  }

  async preparePhotoPath() {
    this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    return this.responder.preparePhotoPath();
  }

  async preparePhoto(params: WorkerMethods['preparePhoto']['params']) {
    this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    return this.responder.preparePhoto(params.imageId, (await decodeImage(params.image)).pixels);
  }

  readyResponder(): { encoder: ClipEncoder; responder: Responder } {
    const { encoder } = this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    return { encoder, responder: this.responder };
  }

  async encodeTexts(params: WorkerMethods['encodeTexts']['params']) {
    const { encoder } = this.ready();
    const embeddings = await encoder.encodeTexts(params.texts);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  async encodeImages(params: WorkerMethods['encodeImages']['params']) {
    this.ready();
    const images = await Promise.all(params.images.map(async (image) => (await decodeImage(image)).pixels));
    const embeddings = params.grounding
      ? await this.ready().encoder.encodeImages(images, params.grounding)
      : await this.embeddingAnalyzer()!.encodeImages(images);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  private ready(): { encoder: ClipEncoder; analyzer: PhotoAnalyzer; pool: ActivePool } {
    if (!this.encoder || !this.analyzer || !this.pool)
      throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return { encoder: this.encoder, analyzer: this.analyzer, pool: this.pool };
  }

  /**
   * A lost GPU device (driver reset, tab in background on some systems) moves a model to WASM: the
   * pack's towers and the detector each watch it, while they are the ones in use.
   */
  private watchDeviceLoss(stillInUse: () => boolean, fallBackToWasm: (reason: string) => Promise<void>): void {
    void (async () => {
      try {
        const device = await (ort.env.webgpu as { device?: GPUDevice | Promise<GPUDevice> }).device;
        const info = await device?.lost;
        if (info && stillInUse()) await fallBackToWasm(`GPU device lost: ${info.message || info.reason}`);
      } catch (error) {
        console.warn('Could not watch the WebGPU device for loss:', errorMessage(error));
      }
    })();
  }
}
