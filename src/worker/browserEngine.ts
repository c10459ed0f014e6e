import { ClipEncoder } from '../engine/clip/clipEncoder';
import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/mmdialog';
import { parseMediaCatalogue, parseTextCatalogue } from '../engine/datasets/poolCatalogue';
import { EngineError, errorMessage } from '../engine/errors';
import { type BackendCapabilities, chooseExecutionPlan } from '../engine/onnx/executionPlan';
import { configureWasm, ort } from '../engine/onnx/ortSessions';
import { type EmbeddedPool, type PoolEmbeddingsFile, type PoolImageItem, type PoolTextItem, embedPool, imageContentKey, parsePoolEmbeddings } from '../engine/pool/poolEmbeddings';
import { MajorityIntent } from '../engine/response/compose';
import { ResponseHeads } from '../engine/response/heads';
import { type DialogueRecord, parseConversationsBytes, readDialogueRecord } from '../engine/datasets/mmdialog';
import { nowMs } from '../engine/clock';
import { type StoredDataset, embeddingCache, loadDatasetImage, loadDialogues, saveManifest } from '../persistence/datasetDb';
import { copyDataset, requireDataset } from './datasetImport';
import { type PoolImageInfo, Responder } from './responder';
import { decodeImage } from './decodeImage';
import { FetchPackSource } from './fetchPackSource';
import type { WorkerEngine } from './requestHandler';
import type { BackendState, DatasetFile, DatasetImported, FileProgress, PoolLoaded, PoolRef } from './protocol';
async function detectCapabilities(forceWasm: boolean): Promise<BackendCapabilities> {
  const base = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency || 1, forceWasm };
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (forceWasm || !gpu) return { ...base, webgpuAdapter: false, shaderF16: false };
  try {
    const adapter = await gpu.requestAdapter();
    return { ...base, webgpuAdapter: adapter !== null, shaderF16: adapter?.features.has('shader-f16') ?? false };
  } catch {
    return { ...base, webgpuAdapter: false, shaderF16: false };
  }
}

interface ActivePool {
  loaded: PoolLoaded;
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
}

/** The engine as the browser worker runs it: packs over fetch, images via createImageBitmap. */
export class BrowserEngine implements WorkerEngine {
  private encoder: ClipEncoder | null = null;
  private pool: ActivePool | null = null;
  private packId = '';
  private responder: Responder | null = null;
  /** Where the reference dialogues of the pool in use come from, and those already parsed. */
  private dialogueSource: PoolRef | null = null;
  private readonly referenceSplits = new Map<string, Promise<DialogueRecord[]>>();

  async loadPack(params: Parameters<WorkerEngine['loadPack']>[0], onProgress: Parameters<WorkerEngine['loadPack']>[1], onBackend: (b: BackendState) => void) {
    const start = nowMs();
    const caps = await detectCapabilities(params.forceWasm);
    const plan = chooseExecutionPlan(caps);
    configureWasm(plan.wasmThreads);
    await this.encoder?.release();
    this.encoder = null;
    this.pool = null;
    const encoder = await ClipEncoder.load(new FetchPackSource(params.pack.baseUrl), params.pack.files, plan, { onProgress, onBackendChange: onBackend });
    if (encoder.backend.provider === 'webgpu') this.watchDeviceLoss(encoder);
    // Trained heads belong to the pack; without them (or if they do not fit) replies use the zero-shot methods.
    let heads: ResponseHeads | null = null;
    let note = 'This pack has no trained response heads: replies use the zero-shot methods and the majority intent.';
    try {
      heads = await ResponseHeads.load(new FetchPackSource(params.pack.baseUrl), new Set(params.pack.files), encoder.fingerprint);
      if (heads) note = 'This pack has trained heads: replies use the trained intent head and the trained DE++ ranker; Settings offers clip-map and the zero-shot methods.';
    } catch (error) {
      note = `The pack's trained heads could not be used (${errorMessage(error)}); replies use the zero-shot methods.`;
    }
    this.encoder = encoder;
    this.packId = params.pack.id;
    this.responder = new Responder(encoder, heads, note, embeddingCache);
    const pool = await this.usePool({ pool: params.pool }, onProgress);
    return { packId: params.pack.id, methods: this.responder.methods(), backend: encoder.backend, loadMs: nowMs() - start, projectionDim: encoder.config.projectionDim, pool };
  }

  /** Makes a pool the one replies come from; its embeddings come from the precomputed file, the cache, or are computed. */
  async usePool(params: { pool: PoolRef }, onProgress: (p: FileProgress) => void): Promise<PoolLoaded> {
    const encoder = this.encoder;
    const responder = this.responder;
    const packId = this.packId;
    if (!encoder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    const progress = (phase: string, done: number, total: number) => onProgress({ file: `pool ${phase}`, loaded: done, total });
    const ref = params.pool;
    let embedded: EmbeddedPool<PoolTextItem, PoolImageItem>;
    let loaded: Omit<PoolLoaded, 'embeddings'>;
    let imageInfo: PoolImageInfo[];
    let dialogues: DialogueRecord[] = [];
    if (ref.kind === 'demo') {
      const [media, texts] = await Promise.all([fetchJson(`${ref.baseUrl}media.json`), fetchJson(`${ref.baseUrl}texts.json`)]);
      const images = parseMediaCatalogue(media, { file: 'pool/media.json', strict: true });
      const textItems = parseTextCatalogue(texts, { file: 'pool/texts.json', strict: true });
      const precomputed = await fetchPrecomputed(`${ref.baseUrl}embeddings/${packId}`);
      embedded = await embedPool({
        encoder,
        texts: textItems,
        images,
        imageKeys: images.map((m) => imageContentKey(m)),
        loadImage: async (item) => (await decodeImage({ name: item.file, blob: await fetchBlob(`${ref.baseUrl}${item.file}`) })).pixels,
        precomputed,
        cache: embeddingCache,
        onProgress: ({ phase, done, total }) => progress(phase, done, total),
        cancelled: () => this.encoder !== encoder,
      });
      loaded = { poolId: 'demo', name: 'Demo pool', texts: textItems.length, images: images.length };
      imageInfo = images.map((m) => ({ key: m.key, alt: m.alt, label: m.label ?? m.alt, url: `${ref.baseUrl}${m.file}`, kind: m.kind, keywords: m.keywords }));
      // The reference responses of the train split give the majority intent per step, needed only without trained heads.
      const train = responder?.needsMajority ? await fetchBlob(`${ref.baseUrl.replace(/pool\/$/, '')}dialogues/train/conversations.json`).catch(() => null) : null;
      if (train) dialogues = parseConversationsBytes(new Uint8Array(await train.arrayBuffer()), { file: 'dialogues/train/conversations.json' });
    } else {
      const dataset = await requireDataset(ref.datasetId);
      embedded = await this.embedDataset(dataset, encoder, (p) => progress(p.file, p.loaded, p.total ?? 0));
      loaded = { poolId: dataset.id, name: dataset.name, texts: dataset.texts.length, images: dataset.images.length };
      imageInfo = dataset.images.map((i) => ({ key: i.key, alt: i.alt, label: i.alt, url: null, kind: 'image', keywords: [] }));
      for (const { split } of responder?.needsMajority ? dataset.splits : []) {
        const stored = await loadDialogues<unknown>(dataset.id, split);
        stored?.forEach((r, index) => dialogues.push(readDialogueRecord(r, { file: `${split}/conversations.json`, index })));
      }
    }
    const responses = dialogues.flatMap((r) => r.turns.slice(1).map((t) => t.elements.map((e) => (e.kind === 'text' ? ('text' as const) : ('image' as const)))));
    if (this.encoder !== encoder) throw new EngineError('not-loaded', 'The model pack changed while the pool was loading; it will load again for the new pack.');
    this.pool = { loaded: { ...loaded, embeddings: embedded.stats }, embedded };
    this.dialogueSource = ref;
    responder?.setPool(embedded, imageInfo, responses.length > 0 ? MajorityIntent.fromResponses(responses) : null);
    return this.pool.loaded;
  }

  private readonly staged = new Map<string, DatasetFile[]>();

  async stageDatasetFiles(params: { stagingId: string; files: DatasetFile[] }) {
    const files = this.staged.get(params.stagingId) ?? [];
    files.push(...params.files);
    this.staged.set(params.stagingId, files);
    return { staged: files.length };
  }

  async importDataset(params: Parameters<WorkerEngine['importDataset']>[0], onProgress: (p: FileProgress) => void): Promise<DatasetImported> {
    const files = this.staged.get(params.stagingId) ?? [];
    this.staged.delete(params.stagingId);
    const dataset = await copyDataset(params.name, files, onProgress);
    return this.resumeDataset({ datasetId: dataset.id }, onProgress);
  }

  /** Embeds a stored dataset's texts and images with the current pack; rows already cached are kept, so this resumes after a reload. */
  async resumeDataset(params: { datasetId: string }, onProgress: (p: FileProgress) => void): Promise<DatasetImported> {
    const encoder = this.encoder;
    if (!encoder) throw new EngineError('not-loaded', 'The model is still loading; the dataset will be embedded once it is ready.');
    const dataset = await requireDataset(params.datasetId);
    await this.embedDataset(dataset, encoder, onProgress);
    if (dataset.status !== 'ready') {
      dataset.status = 'ready';
      await saveManifest(dataset);
    }
    const dialogues = dataset.splits.reduce((n, s) => n + s.dialogues, 0);
    return { datasetId: dataset.id, name: dataset.name, images: dataset.images.length, texts: dataset.texts.length, dialogues, problems: dataset.problems };
  }

  private embedDataset(dataset: StoredDataset, encoder: ClipEncoder, onProgress: (p: FileProgress) => void) {
    return embedPool({
      encoder,
      texts: dataset.texts,
      images: dataset.images,
      imageKeys: dataset.images.map((i) => i.contentKey),
      loadImage: async (item) => {
        const blob = await loadDatasetImage(dataset.id, item.key);
        if (!blob) throw new EngineError('dataset-invalid', `The image ${item.key} of "${dataset.name}" is missing from this browser's storage. Delete the dataset and load it again.`);
        return (await decodeImage({ name: item.key, blob })).pixels;
      },
      cache: embeddingCache,
      onProgress: ({ phase, done, total }) => onProgress({ file: phase === 'texts' ? 'Embedding texts' : 'Embedding images', loaded: done, total }),
      cancelled: () => this.encoder !== encoder,
    });
  }

  async checkImage(params: Parameters<WorkerEngine['checkImage']>[0]) {
    const { header } = await decodeImage(params.image);
    return header;
  }

  async reply(params: Parameters<WorkerEngine['reply']>[0]) {
    const { encoder } = this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return this.responder.reply(params, async (image) => (await decodeImage(image)).pixels, encoder.backend);
  }

  async listReferenceDialogues(params: Parameters<WorkerEngine['listReferenceDialogues']>[0]) {
    const records = await this.referenceDialogues(params.split);
    const preview = (r: DialogueRecord) => r.turns[0]?.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join(' ').slice(0, 80) ?? '';
    return { split: params.split, dialogues: records.map((r) => ({ id: r.id, turns: r.turns.length, preview: preview(r) })) };
  }

  async loadReferenceDialogue(params: Parameters<WorkerEngine['loadReferenceDialogue']>[0]) {
    const { responder } = this.readyResponder();
    const record = await this.referenceDialogue(params.split, params.dialogueId);
    return { split: params.split, id: record.id, turns: responder.describeDialogue(record) };
  }

  async replayTurn(params: Parameters<WorkerEngine['replayTurn']>[0]) {
    const { encoder, responder } = this.readyResponder();
    const record = await this.referenceDialogue(params.split, params.dialogueId);
    return responder.replayTurn(record, params.turn, params.method, async (image) => (await decodeImage(image)).pixels, encoder.backend);
  }

  async scoreReference(params: Parameters<WorkerEngine['scoreReference']>[0]) {
    const { responder } = this.readyResponder();
    return responder.scoreReference(params, async (image) => (await decodeImage(image)).pixels);
  }

  /**
   * The reference dialogues of a split of the pool in use: the demo's public/dialogues, or the splits
   * stored with a dataset. Parsed once per pool and split.
   */
  private referenceDialogues(split: string): Promise<DialogueRecord[]> {
    const source = this.dialogueSource;
    if (!source) return Promise.reject(new EngineError('not-loaded', 'The candidate pool is still loading. Wait for "Ready" and try again.'));
    const cacheKey = `${source.kind === 'demo' ? 'demo' : source.datasetId}:${split}`;
    let records = this.referenceSplits.get(cacheKey);
    if (!records) {
      records = (async () => {
        const file = `${split}/conversations.json`;
        if (source.kind === 'demo') {
          const bytes = new Uint8Array(await (await fetchBlob(`${source.baseUrl.replace(/pool\/$/, '')}dialogues/${file}`)).arrayBuffer());
          return parseConversationsBytes(bytes, { file: `dialogues/${file}` });
        }
        const stored = await loadDialogues<unknown>(source.datasetId, split);
        if (!stored) throw new EngineError('dataset-invalid', `The dataset in use has no ${split} split, so it has no reference dialogues to replay. Choose another split, or the demo pool under "Reply from".`);
        return stored.map((r, index) => readDialogueRecord(r, { file, index }));
      })();
      records.catch(() => this.referenceSplits.delete(cacheKey)); // a failed fetch may succeed next time
      this.referenceSplits.set(cacheKey, records);
    }
    return records;
  }

  private async referenceDialogue(split: string, id: string): Promise<DialogueRecord> {
    const record = (await this.referenceDialogues(split)).find((r) => r.id === id);
    if (!record) throw new EngineError('invalid-input', `The ${split} split has no dialogue "${id}". Choose one from the list.`);
    return record;
  }

  private readyResponder(): { encoder: ClipEncoder; responder: Responder } {
    const { encoder } = this.ready();
    if (!this.responder) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and try again.');
    return { encoder, responder: this.responder };
  }

  async encodeTexts(params: Parameters<WorkerEngine['encodeTexts']>[0]) {
    const { encoder } = this.ready();
    const embeddings = await encoder.encodeTexts(params.texts);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  async encodeImages(params: Parameters<WorkerEngine['encodeImages']>[0]) {
    const { encoder } = this.ready();
    const images = await Promise.all(params.images.map(async (image) => (await decodeImage(image)).pixels));
    const embeddings = await encoder.encodeImages(images);
    return { embeddings: embeddings.map((e) => Array.from(e)) };
  }

  private ready(): { encoder: ClipEncoder; pool: ActivePool } {
    if (!this.encoder || !this.pool) throw new EngineError('not-loaded', 'The model is still loading. Wait for the status to say "Ready" and send again.');
    return { encoder: this.encoder, pool: this.pool };
  }

  /** A lost GPU device (driver reset, tab in background on some systems) moves the pack to WASM. */
  private watchDeviceLoss(encoder: ClipEncoder): void {
    void (async () => {
      try {
        const device = await (ort.env.webgpu as { device?: GPUDevice | Promise<GPUDevice> }).device;
        const info = await device?.lost;
        if (info && this.encoder === encoder) await encoder.fallBackToWasm(`GPU device lost: ${info.message || info.reason}`);
      } catch (error) {
        console.warn('Could not watch the WebGPU device for loss:', errorMessage(error));
      }
    })();
  }
}

async function fetchBlob(url: string): Promise<Blob> {
  const response = await fetch(url).catch((cause: unknown) => {
    throw new EngineError('pack-file-missing', `${url} could not be loaded (${errorMessage(cause)}). Check the connection to the demo server and reload.`, { cause });
  });
  if (!response.ok) throw new EngineError('pack-file-missing', `${url} is missing (HTTP ${response.status}). Restore the pool (see README, "Candidate pool") and reload.`);
  return response.blob();
}

async function fetchJson(url: string): Promise<unknown> {
  const bytes = new Uint8Array(await (await fetchBlob(url)).arrayBuffer());
  const name = url.slice(url.lastIndexOf('/pool/') + 1);
  return parseJsonDocument(decodeUtf8Strict(bytes, name), name);
}

/** The pool:build output for this pack, or null (then rows come from the cache or are computed). */
async function fetchPrecomputed(base: string): Promise<PoolEmbeddingsFile | null> {
  try {
    const [meta, bin] = await Promise.all([fetch(`${base}.json`), fetch(`${base}.bin`)]);
    if (!meta.ok || !bin.ok) return null;
    return parsePoolEmbeddings(await meta.json(), new Uint8Array(await bin.arrayBuffer()), `${base}.json`);
  } catch (error) {
    console.warn(`Precomputed pool embeddings not used: ${errorMessage(error)}`);
    return null;
  }
}
