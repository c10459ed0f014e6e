import type { ClipEncoder } from '../engine/clip/clipEncoder';
import { type DialogueRecord, dialoguePreview, parseConversationsBytes, readDialogueRecord } from '../engine/datasets/mmdialog';
import { EngineError } from '../engine/errors';
import { loadDialogues } from '../persistence/datasetDb';
import { decodeImage } from './decodeImage';
import { fetchBlob } from './demoPoolFiles';
import { isOffline } from './fetchPackSource';
import type { PoolRef, WorkerMethods } from '../protocol/protocol';
import type { Responder } from './responder';

/**
 * The reference dialogues of the pool in use, and Replay's handlers over them: the owner of the
 * splits read so far. The pack's part (its encoder and responder, once Ready) is asked for, never kept.
 */
export class ReferenceDialogues {
  private poolSource: PoolRef | null = null;
  /** Each split read, by pool and split; a failed read is forgotten, so the next one tries again. */
  private readonly splits = new Map<string, Promise<DialogueRecord[]>>();

  constructor(private readonly readyResponder: () => { encoder: ClipEncoder; responder: Responder }) {}

  /** The pool whose splits Replay reads, from when it is put in use. */
  useSource(source: PoolRef): void {
    this.poolSource = source;
  }

  get source(): PoolRef | null {
    return this.poolSource;
  }

  async listReferenceDialogues(params: WorkerMethods['listReferenceDialogues']['params']) {
    const records = await this.referenceDialogues(params.split);
    return { split: params.split, dialogues: records.map((r) => ({ id: r.id, turns: r.turns.length, preview: dialoguePreview(r) })) };
  }

  async loadReferenceDialogue(params: WorkerMethods['loadReferenceDialogue']['params']) {
    const { responder } = this.readyResponder();
    const record = await this.referenceDialogue(params.split, params.dialogueId);
    return { split: params.split, id: record.id, turns: responder.describeDialogue(record) };
  }

  async replayTurn(params: WorkerMethods['replayTurn']['params']) {
    const { encoder, responder } = this.readyResponder();
    const record = await this.referenceDialogue(params.split, params.dialogueId);
    return responder.replayTurn(record, params.turn, params.method, encoder.backend);
  }

  async scoreReference(params: WorkerMethods['scoreReference']['params']) {
    const { responder } = this.readyResponder();
    return responder.scoreReference(params, async (image) => (await decodeImage(image)).pixels);
  }

  /**
   * The reference dialogues of a split of the pool in use: the demo's public/dialogues, or the splits
   * stored with a dataset. Parsed once per pool and split.
   */
  private referenceDialogues(split: string): Promise<DialogueRecord[]> {
    const source = this.poolSource;
    if (!source) return Promise.reject(new EngineError('not-loaded', 'The candidate pool is still loading. Wait for "Ready" and try again.'));
    return this.dialogues(source, split);
  }

  /** A split of a pool: the demo's public/dialogues, or the splits stored with a dataset; parsed once per pool and split. */
  dialogues(source: PoolRef, split: string): Promise<DialogueRecord[]> {
    const cacheKey = `${source.kind === 'demo' ? 'demo' : source.datasetId}:${split}`;
    let records = this.splits.get(cacheKey);
    if (!records) {
      records = (async () => {
        const file = `${split}/conversations.json`;
        if (source.kind === 'demo') {
          // The train split comes with the offline install; valid and test are stored the first time they are read.
          const blob = await fetchBlob(`${source.baseUrl.replace(/pool\/$/, '')}dialogues/${file}`).catch((error: unknown) => {
            throw isOffline()
              ? new EngineError(
                  'pack-file-missing',
                  `This device is offline, and the ${split} dialogues were never stored for offline use: they are kept once Replay has opened them while online. Connect to the network and open them in Replay once.`,
                )
              : error;
          });
          const bytes = new Uint8Array(await blob.arrayBuffer());
          return parseConversationsBytes(bytes, { file: `dialogues/${file}` });
        }
        const stored = await loadDialogues<unknown>(source.datasetId, split);
        if (!stored)
          throw new EngineError(
            'dataset-invalid',
            `The dataset in use has no ${split} split, so it has no reference dialogues to replay. Choose another split, or the demo pool under "Reply from".`,
          );
        return stored.map((r, index) => readDialogueRecord(r, { file, index }));
      })();
      records.catch(() => this.splits.delete(cacheKey)); // a failed fetch may succeed next time
      this.splits.set(cacheKey, records);
    }
    return records;
  }

  private async referenceDialogue(split: string, id: string): Promise<DialogueRecord> {
    const record = (await this.referenceDialogues(split)).find((r) => r.id === id);
    if (!record) throw new EngineError('invalid-input', `The ${split} split has no dialogue "${id}". Choose one from the list.`);
    return record;
  }
}
