import type { ClipEncoder } from '../engine/clip/clipEncoder';
import { EngineError } from '../engine/errors';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { embedPool } from '../engine/pool/poolEmbeddings';
import { type StoredDataset, deleteDataset, deleteDatasetImage, embeddingCache, getDataset, loadDatasetImage } from '../persistence/datasetDb';
import { UnreadableDatasetImage, copyDataset, keepManifest, requireDataset } from './datasetImport';
import { decodeImage } from './decodeImage';
import type { DatasetFile, DatasetImported, FileProgress, WorkerMethods } from '../protocol/protocol';
import type { RequestContext } from './requestHandler';

/** Images embedded per batch for a stored dataset: a batch cannot be interrupted once its model run starts. */
const DATASET_BATCH = 8;

/** What a dataset's embedding needs of the pack in use, asked for when needed: loading another pack stops the work. */
export interface PackInUse {
  encoder(): ClipEncoder | null;
  /** The photo path rows are embedded through (the detector's grounding when the image tower takes it). */
  analyzer(): PhotoAnalyzer | null;
}

/**
 * Datasets a person imports: their files staged in parts, copied into IndexedDB (datasetImport.ts),
 * then embedded with the pack in use; the owner of the staged files.
 */
export class StoredDatasets {
  private readonly staged = new Map<string, DatasetFile[]>();

  constructor(private readonly pack: PackInUse) {}

  async stageDatasetFiles(params: WorkerMethods['stageDatasetFiles']['params']) {
    const files = this.staged.get(params.stagingId) ?? [];
    files.push(...params.files);
    this.staged.set(params.stagingId, files);
    return { staged: files.length };
  }

  async importDataset(params: WorkerMethods['importDataset']['params'], context: RequestContext): Promise<DatasetImported> {
    const files = this.staged.get(params.stagingId) ?? [];
    this.staged.delete(params.stagingId);
    const { dataset, keptBeside } = await copyDataset(params.name, files, (p) => context.progress(p), context.signal);
    const imported = await this.resumeDataset({ datasetId: dataset.id }, context);
    return keptBeside ? { ...imported, keptBeside: { name: keptBeside.name, createdAt: keptBeside.createdAt } } : imported;
  }

  /**
   * Embeds a stored dataset's texts and images with the current pack; rows already cached are kept,
   * so this resumes after a reload. An image that cannot be decoded (a truncated JPEG passes the
   * header check) is left out and named in the dataset's problems, and the rest goes on: a dataset
   * never stays "embedding" for good. Deleting the dataset meanwhile stops the work.
   */
  async resumeDataset(params: WorkerMethods['resumeDataset']['params'], context: RequestContext): Promise<DatasetImported> {
    const onProgress = (p: FileProgress) => context.progress(p);
    const encoder = this.pack.encoder();
    const analyzer = this.pack.analyzer();
    if (!encoder || !analyzer) throw new EngineError('not-loaded', 'The model is still loading; the dataset will be embedded once it is ready.');
    // Deleted between the page's list and this call (the page shows "Resuming" and Delete at once): nothing to finish, and nothing failed.
    const dataset = await requireDataset(params.datasetId, 'cancelled');
    for (;;) {
      try {
        await this.embedDataset(dataset, analyzer, encoder, onProgress, context.signal);
        break;
      } catch (error) {
        // The person's Cancel: what was copied and embedded goes, so it never finishes loading by itself after a reload.
        if (context.signal.aborted) {
          await deleteDataset(dataset.id);
          throw error;
        }
        if (!(error instanceof UnreadableDatasetImage)) throw error;
        dataset.images = dataset.images.filter((i) => i.key !== error.key);
        dataset.problems.push(`${error.key}: ${error.reason}; it was left out.`);
        await deleteDatasetImage(dataset.id, error.key);
        await keepManifest(dataset);
      }
    }
    if (dataset.images.length === 0 && dataset.texts.length === 0) {
      await deleteDataset(dataset.id);
      throw new EngineError(
        'dataset-invalid',
        `None of the images of "${dataset.name}" could be decoded (${dataset.problems.slice(-3).join(' ')}), and it has no texts, so it was removed.`,
      );
    }
    if (dataset.status !== 'ready') {
      dataset.status = 'ready';
      await keepManifest(dataset);
    }
    const dialogues = dataset.splits.reduce((n, s) => n + s.dialogues, 0);
    return { datasetId: dataset.id, name: dataset.name, images: dataset.images.length, texts: dataset.texts.length, dialogues, problems: dataset.problems };
  }

  /**
   * `encoder` is the pack the work belongs to: loading another pack, deleting the dataset, or `signal`
   * (the person's Cancel) stops it; rows already computed stay cached, so a later resume starts from them.
   */
  async embedDataset(dataset: StoredDataset, analyzer: PhotoAnalyzer, encoder: ClipEncoder, onProgress: (p: FileProgress) => void, signal?: AbortSignal) {
    let deleted = false;
    const embedding = embedPool({
      encoder: analyzer,
      texts: dataset.texts,
      images: dataset.images,
      imageKeys: dataset.images.map((i) => i.contentKey),
      // Small batches, and a Cancel checked before each image is read: the import stops within a couple of seconds.
      batchSize: DATASET_BATCH,
      loadImage: async (item) => {
        signal?.throwIfAborted();
        const blob = await loadDatasetImage(dataset.id, item.key);
        if (!blob) throw new UnreadableDatasetImage(item.key, "it is missing from this browser's storage");
        try {
          return (await decodeImage({ name: item.key, blob })).pixels;
        } catch {
          // The decoder's own sentence speaks to someone sharing a photo ("Choose another photo"), not to a dataset.
          throw new UnreadableDatasetImage(item.key, 'it could not be decoded, so the file is damaged or incomplete');
        }
      },
      cache: embeddingCache,
      onProgress: ({ phase, done, total }) => {
        // The page deletes datasets itself; whether this one still exists is checked once per batch.
        void getDataset(dataset.id).then(
          (d) => (deleted ||= d === undefined),
          () => undefined,
        );
        onProgress({ file: phase === 'texts' ? 'Embedding texts' : 'Embedding images', loaded: done, total });
      },
      cancelled: () => this.pack.encoder() !== encoder || deleted || signal?.aborted === true,
    });
    try {
      return await embedding;
    } finally {
      if (deleted) await keepManifest(dataset); // throws the "deleted while it loaded" cancellation
    }
  }
}
