import { EngineError, errorMessage } from '../engine/errors';
import type { FileProgress, WorkerAnnouncement, WorkerEvent, WorkerMethod, WorkerMethods, WorkerRequest } from '../protocol/protocol';
import { throttleProgress } from './progressThrottle';
import { WORKER_METHODS, isWorkerCancel, isWorkerRequest } from '../protocol/protocol';

/**
 * What a request's handler can do besides answering: report its progress, and stop when `signal`
 * fires (the page cancelled the call, or a visitor's turn pre-empts an idle step). What changes later,
 * after the call has answered, is announced through the worker's announcer (useAnnouncer), never
 * through a finished call's context.
 */
export interface RequestContext {
  progress(progress: FileProgress): void;
  signal: AbortSignal;
}

/** Why a request's signal fired: the page cancelled it, or a request that someone waits for pre-empted an idle one. */
type AbortReason = 'cancelled' | 'pre-empted';

/**
 * The worker's API: one handler per method of the protocol, typed by WorkerMethods (its params and its
 * result), so the protocol is the one list of methods. The real one (WorkerModels) and the tests'
 * fake both implement it.
 */
export type WorkerApi = { [K in WorkerMethod]: (params: WorkerMethods[K]['params'], context: RequestContext) => Promise<WorkerMethods[K]['result']> } & {
  /**
   * Receives a promise maker that resolves once no request is queued or running, and none was answered
   * within the quiet period: background work (the pool's deferred rows) waits on it between batches.
   */
  useIdleGate?(whenIdle: () => Promise<void>): void;
  /** Receives how to announce something to the page outside any call (WorkerAnnouncements): a move to WASM, the pool's rows. */
  useAnnouncer?(announce: (announcement: WorkerAnnouncement) => void): void;
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
 * Idle requests (warm-up steps) wait aside and join the queue one at a time, only when it is empty;
 * one running when another request arrives is aborted and put back first in line, so that request
 * waits only until the idle handler next checks its signal. A 'cancel' message aborts its request:
 * a queued one never starts, and a running one ends with a 'cancelled' error once its handler stops.
 * `yieldToMessages` lets messages already posted arrive before the next idle one starts.
 * `idleQuietMs`: idle requests start only once no request has been waited for that long (the worker:
 * IDLE_QUIET_MS), so a visitor sending turns one after another, or clicking a sample prompt at
 * Ready, does not find a warm-up step (a session being made takes up to a second) in the way.
 */
export function createRequestHandler(
  engine: WorkerApi,
  post: (event: WorkerEvent) => void,
  yieldToMessages: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
  idleQuietMs = 0,
): (message: unknown) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  /** Requests queued or running, idle ones not counted. */
  let waiting = 0;
  const idle: { request: WorkerRequest; done: () => void }[] = [];
  let idleInQueue = false;
  let idleWaiters: (() => void)[] = [];
  /** Each request not yet answered, by id, with the controller of its signal. */
  const inFlight = new Map<number, AbortController>();
  /** The idle request running now, if any: the one a new request pre-empts. */
  let idleRunning: AbortController | null = null;
  /** When the last request someone waited for was answered. */
  let lastAnswered = -Infinity;
  let quietTimer: ReturnType<typeof setTimeout> | undefined;

  engine.useAnnouncer?.(post);

  // Background batches keep the same quiet period as idle steps: a sample prompt clicked at Ready, or
  // the next turn of a visitor, finds the worker free instead of in a batch of pool rows (issue 38).
  engine.useIdleGate?.(
    () =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (waiting > 0) return void idleWaiters.push(check);
          const quietFor = Date.now() - lastAnswered;
          if (quietFor >= idleQuietMs) resolve();
          else setTimeout(check, idleQuietMs - quietFor);
        };
        check();
      }),
  );

  /** Puts the next idle request in the queue when nothing else is there; a request that arrives meanwhile goes ahead of it. */
  const scheduleIdle = () => {
    if (idleInQueue || waiting > 0 || idle.length === 0) return;
    const quietFor = Date.now() - lastAnswered;
    if (quietFor < idleQuietMs) {
      quietTimer ??= setTimeout(() => {
        quietTimer = undefined;
        scheduleIdle();
      }, idleQuietMs - quietFor);
      return;
    }
    idleInQueue = true;
    queue = queue.then(async () => {
      await yieldToMessages();
      const next = waiting === 0 ? idle.shift() : undefined;
      if (next) {
        const outcome = await run(next.request);
        // Pre-empted: first in line again, to run once the requests that pre-empted it are answered.
        if (outcome === 'pre-empted') idle.unshift(next);
        else next.done();
      }
      idleInQueue = false;
      scheduleIdle();
    });
  };

  /** Runs a request and answers it, unless an idle one was pre-empted (it is then run again, not answered). */
  const run = async (request: WorkerRequest): Promise<'answered' | 'pre-empted'> => {
    const { id } = request;
    const controller = inFlight.get(id) ?? new AbortController();
    inFlight.set(id, controller);
    const isIdle = WORKER_METHODS[request.type].scheduling === 'idle';
    if (isIdle) idleRunning = controller;
    const progress = throttleProgress((p) => post({ type: 'progress', id, progress: p }));
    try {
      controller.signal.throwIfAborted();
      const result = await callHandler(engine, request, { progress: progress.report, signal: controller.signal });
      progress.flush();
      post({ type: 'result', id, method: request.type, result } as WorkerEvent);
    } catch (error) {
      progress.flush();
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : null;
      if (reason === 'pre-empted') {
        // A fresh signal for the next run; a cancel that comes meanwhile aborts that one.
        inFlight.set(id, new AbortController());
        return 'pre-empted';
      }
      if (reason === 'cancelled') post({ type: 'error', id, code: 'cancelled', message: `${request.type} was cancelled, as asked.` });
      else post({ type: 'error', id, code: error instanceof EngineError ? error.code : 'internal', message: errorMessage(error) });
    } finally {
      if (isIdle && idleRunning === controller) idleRunning = null;
    }
    inFlight.delete(id);
    return 'answered';
  };

  const abort = (controller: AbortController, reason: AbortReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };

  return (message: unknown) => {
    if (isWorkerCancel(message)) {
      const controller = inFlight.get(message.id);
      if (controller) abort(controller, 'cancelled');
      return Promise.resolve();
    }
    if (!isWorkerRequest(message)) {
      const id = typeof message === 'object' && message !== null && typeof (message as { id?: unknown }).id === 'number' ? (message as { id: number }).id : -1;
      post({ type: 'error', id, code: 'internal', message: 'The worker received a message it does not understand. Reload the page.' });
      return Promise.resolve();
    }
    inFlight.set(message.id, new AbortController());
    const scheduling = WORKER_METHODS[message.type].scheduling;
    if (scheduling === 'background') return run(message).then(() => undefined);
    if (scheduling === 'idle') {
      const done = new Promise<void>((resolve) => idle.push({ request: message, done: resolve }));
      scheduleIdle();
      return done;
    }
    // Someone waits for this one: the idle step running now gives way.
    if (idleRunning) abort(idleRunning, 'pre-empted');
    waiting++;
    const ran = queue.then(() => run(message));
    queue = ran.then(() => {
      waiting--;
      lastAnswered = Date.now();
      if (waiting === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resume of waiters) resume();
      }
      scheduleIdle();
    });
    return ran.then(() => undefined);
  };
}
