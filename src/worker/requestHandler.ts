import { EngineError, errorMessage } from '../engine/errors';
import type { FileProgress, WorkerAnnouncement, WorkerEvent, WorkerMethod, WorkerMethods, WorkerRequest } from './protocol';
import { METHOD_SCHEDULING, isWorkerRequest } from './protocol';

/** What a request's handler can do besides answering: report its progress, and announce what changes later. */
export interface RequestContext {
  progress(progress: FileProgress): void;
  announce(event: WorkerAnnouncement): void;
}

/**
 * The worker's API: one handler per method of the protocol, typed by WorkerMethods (its params and its
 * result), so the protocol is the one list of methods. The real one (WorkerModels) and the tests'
 * fake both implement it.
 */
export type WorkerApi = { [K in WorkerMethod]: (params: WorkerMethods[K]['params'], context: RequestContext) => Promise<WorkerMethods[K]['result']> } & {
  /** Receives a promise maker that resolves once no request is queued or running: background work waits on it between batches. */
  useIdleGate?(whenIdle: () => Promise<void>): void;
};

/** Calls the handler of a request's method with its params. */
function callHandler<K extends WorkerMethod>(
  api: WorkerApi,
  request: Extract<WorkerRequest, { type: K }>,
  context: RequestContext,
): Promise<WorkerMethods[K]['result']> {
  // TypeScript cannot correlate api[K] with the request's params of the same K; the mapped type guarantees it.
  const handler = api[request.type] as (params: WorkerMethods[K]['params'], context: RequestContext) => Promise<WorkerMethods[K]['result']>;
  return handler.call(api, request.params, context);
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
      const result = await callHandler(engine, request, { progress: (progress) => post({ type: 'progress', id, progress }), announce: post });
      post({ type: 'result', id, method: request.type, result } as WorkerEvent);
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
    const scheduling = METHOD_SCHEDULING[message.type];
    if (scheduling === 'background') return run(message);
    if (scheduling === 'idle') {
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
