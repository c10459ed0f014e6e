import { EngineError, assertNever, errorMessage } from '../engine/errors';
import type { BackendState, CaptionerStatus, DetectorStatus, FileProgress, LocalHeadsStatus, PoolRowsStatus, WorkerEvent, WorkerMethods, WorkerRequest } from './protocol';
import { BACKGROUND_METHODS, IDLE_METHODS, isWorkerRequest } from './protocol';

/** What the worker needs from an engine; the real one and the tests' fake both implement it. */
export interface WorkerApi {
  /** onDetector: the detector's status when it changes after the load (a move to WASM, or a failure). */
  loadPack(
    params: WorkerMethods['loadPack']['params'],
    onProgress: (p: FileProgress) => void,
    onBackend: (b: BackendState) => void,
    onDetector: (d: DetectorStatus) => void,
    onCaptioner: (c: CaptionerStatus) => void,
    /** In-worker training for a pack without Python heads, as it goes and when done (after the load has answered). */
    onLocalHeads?: (packId: string, status: LocalHeadsStatus) => void,
    /** The pool's CLIP text rows computed after Ready, as they go (for this pool and any later one). */
    onPoolRows?: (status: PoolRowsStatus) => void,
  ): Promise<WorkerMethods['loadPack']['result']>;
  usePool(params: WorkerMethods['usePool']['params'], onProgress: (p: FileProgress) => void): Promise<WorkerMethods['usePool']['result']>;
  stageDatasetFiles(params: WorkerMethods['stageDatasetFiles']['params']): Promise<WorkerMethods['stageDatasetFiles']['result']>;
  importDataset(params: WorkerMethods['importDataset']['params'], onProgress: (p: FileProgress) => void): Promise<WorkerMethods['importDataset']['result']>;
  resumeDataset(params: WorkerMethods['resumeDataset']['params'], onProgress: (p: FileProgress) => void): Promise<WorkerMethods['resumeDataset']['result']>;
  checkImage(params: WorkerMethods['checkImage']['params']): Promise<WorkerMethods['checkImage']['result']>;
  reply(params: WorkerMethods['reply']['params']): Promise<WorkerMethods['reply']['result']>;
  listReferenceDialogues(params: WorkerMethods['listReferenceDialogues']['params']): Promise<WorkerMethods['listReferenceDialogues']['result']>;
  loadReferenceDialogue(params: WorkerMethods['loadReferenceDialogue']['params']): Promise<WorkerMethods['loadReferenceDialogue']['result']>;
  replayTurn(params: WorkerMethods['replayTurn']['params']): Promise<WorkerMethods['replayTurn']['result']>;
  scoreReference(params: WorkerMethods['scoreReference']['params']): Promise<WorkerMethods['scoreReference']['result']>;
  trainHeads(): Promise<WorkerMethods['trainHeads']['result']>;
  encodeTexts(params: WorkerMethods['encodeTexts']['params']): Promise<WorkerMethods['encodeTexts']['result']>;
  encodeImages(params: WorkerMethods['encodeImages']['params']): Promise<WorkerMethods['encodeImages']['result']>;
  clevrLoad(params: WorkerMethods['clevrLoad']['params']): Promise<WorkerMethods['clevrLoad']['result']>;
  clevrRender(params: WorkerMethods['clevrRender']['params']): Promise<WorkerMethods['clevrRender']['result']>;
  clevrAnswer(params: WorkerMethods['clevrAnswer']['params']): Promise<WorkerMethods['clevrAnswer']['result']>;
  analyzeVideo(params: WorkerMethods['analyzeVideo']['params']): Promise<WorkerMethods['analyzeVideo']['result']>;
  answerVideo(params: WorkerMethods['answerVideo']['params']): Promise<WorkerMethods['answerVideo']['result']>;
  warmUp(params: WorkerMethods['warmUp']['params']): Promise<WorkerMethods['warmUp']['result']>;
  /** Receives a promise maker that resolves once no request is queued or running: background work waits on it between batches. */
  useIdleGate?(whenIdle: () => Promise<void>): void;
}

/**
 * Turns requests into engine calls and every outcome into exactly one result or error event.
 * Requests run one at a time, in arrival order, so a reply never races a pack load; dataset imports
 * (minutes for a large folder) run beside that queue and read the encoder only between batches.
 * Idle requests (warm-up steps) wait aside and join the queue one at a time, only when it is empty.
 * `yieldToMessages` lets messages already posted arrive before the next idle one starts.
 */
export function createRequestHandler(
  engine: WorkerApi,
  post: (event: WorkerEvent) => void,
  yieldToMessages: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
): (message: unknown) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  /** Requests queued or running, idle ones not counted. */
  let waiting = 0;
  const idle: { request: WorkerRequest; done: () => void }[] = [];
  let idleInQueue = false;
  let idleWaiters: (() => void)[] = [];
  engine.useIdleGate?.(() => (waiting === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))));

  /** Puts the next idle request in the queue when nothing else is there; a request that arrives meanwhile goes ahead of it. */
  const scheduleIdle = () => {
    if (idleInQueue || waiting > 0 || idle.length === 0) return;
    idleInQueue = true;
    queue = queue.then(async () => {
      await yieldToMessages();
      const next = waiting === 0 ? idle.shift() : undefined;
      if (next) {
        await run(next.request);
        next.done();
      }
      idleInQueue = false;
      scheduleIdle();
    });
  };

  const run = async (request: WorkerRequest): Promise<void> => {
    const { id } = request;
    try {
      switch (request.type) {
        case 'loadPack': {
          const result = await engine.loadPack(
            request.params,
            (progress) => post({ type: 'progress', id, progress }),
            (backend) => post({ type: 'backend', backend }),
            (detector) => post({ type: 'detector', detector }),
            (captioner) => post({ type: 'captioner', captioner }),
            (packId, status) => post({ type: 'localHeads', packId, status }),
            (status) => post({ type: 'poolRows', status }),
          );
          post({ type: 'result', id, method: 'loadPack', result });
          return;
        }
        case 'usePool':
          post({ type: 'result', id, method: 'usePool', result: await engine.usePool(request.params, (progress) => post({ type: 'progress', id, progress })) });
          return;
        case 'stageDatasetFiles':
          post({ type: 'result', id, method: 'stageDatasetFiles', result: await engine.stageDatasetFiles(request.params) });
          return;
        case 'importDataset':
          post({ type: 'result', id, method: 'importDataset', result: await engine.importDataset(request.params, (progress) => post({ type: 'progress', id, progress })) });
          return;
        case 'resumeDataset':
          post({ type: 'result', id, method: 'resumeDataset', result: await engine.resumeDataset(request.params, (progress) => post({ type: 'progress', id, progress })) });
          return;
        case 'checkImage':
          post({ type: 'result', id, method: 'checkImage', result: await engine.checkImage(request.params) });
          return;
        case 'reply':
          post({ type: 'result', id, method: 'reply', result: await engine.reply(request.params) });
          return;
        case 'listReferenceDialogues':
          post({ type: 'result', id, method: 'listReferenceDialogues', result: await engine.listReferenceDialogues(request.params) });
          return;
        case 'loadReferenceDialogue':
          post({ type: 'result', id, method: 'loadReferenceDialogue', result: await engine.loadReferenceDialogue(request.params) });
          return;
        case 'replayTurn':
          post({ type: 'result', id, method: 'replayTurn', result: await engine.replayTurn(request.params) });
          return;
        case 'scoreReference':
          post({ type: 'result', id, method: 'scoreReference', result: await engine.scoreReference(request.params) });
          return;
        case 'trainHeads':
          post({ type: 'result', id, method: 'trainHeads', result: await engine.trainHeads() });
          return;
        case 'encodeTexts':
          post({ type: 'result', id, method: 'encodeTexts', result: await engine.encodeTexts(request.params) });
          return;
        case 'encodeImages':
          post({ type: 'result', id, method: 'encodeImages', result: await engine.encodeImages(request.params) });
          break;
        case 'clevrLoad':
          post({ type: 'result', id, method: 'clevrLoad', result: await engine.clevrLoad(request.params) });
          break;
        case 'clevrRender':
          post({ type: 'result', id, method: 'clevrRender', result: await engine.clevrRender(request.params) });
          break;
        case 'clevrAnswer':
          post({ type: 'result', id, method: 'clevrAnswer', result: await engine.clevrAnswer(request.params) });
          return;
        case 'analyzeVideo':
          post({ type: 'result', id, method: 'analyzeVideo', result: await engine.analyzeVideo(request.params) });
          return;
        case 'answerVideo':
          post({ type: 'result', id, method: 'answerVideo', result: await engine.answerVideo(request.params) });
          return;
        case 'warmUp':
          post({ type: 'result', id, method: 'warmUp', result: await engine.warmUp(request.params) });
          return;
        default:
          assertNever(request);
      }
    } catch (error) {
      post({ type: 'error', id, code: error instanceof EngineError ? error.code : 'internal', message: errorMessage(error) });
    }
  };

  return (message: unknown) => {
    if (!isWorkerRequest(message)) {
      const id = typeof message === 'object' && message !== null && typeof (message as { id?: unknown }).id === 'number' ? (message as { id: number }).id : -1;
      post({ type: 'error', id, code: 'internal', message: 'The worker received a message it does not understand. Reload the page.' });
      return Promise.resolve();
    }
    if (BACKGROUND_METHODS.includes(message.type)) return run(message);
    if (IDLE_METHODS.includes(message.type)) {
      const done = new Promise<void>((resolve) => idle.push({ request: message, done: resolve }));
      scheduleIdle();
      return done;
    }
    waiting++;
    const ran = queue.then(() => run(message));
    queue = ran.then(() => {
      waiting--;
      if (waiting === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resume of waiters) resume();
      }
      scheduleIdle();
    });
    return ran;
  };
}
