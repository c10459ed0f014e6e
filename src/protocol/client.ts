import type {
  FileProgress,
  WorkerAnnouncement,
  WorkerAnnouncementType,
  WorkerEvent,
  WorkerMessage,
  WorkerMethod,
  WorkerMethods,
  WorkerRequest,
} from './protocol';
import { type HeartbeatWatch, allowedSilenceMs } from './heartbeat';

class WorkerCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    // A cancelled call reads as the platform's AbortError, so code that knows fetch's knows this one.
    this.name = code === 'cancelled' ? 'AbortError' : 'WorkerCallError';
  }
}

/** Whether a call ended because it was cancelled on purpose: the page says nothing red about it. */
export function isCancelledCall(error: unknown): boolean {
  return error instanceof WorkerCallError && error.code === 'cancelled';
}

/** How a call's progress is reported, and the signal that cancels it (the worker then stops the work). */
export interface CallOptions {
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignal;
}

interface Pending {
  method: WorkerMethod;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignal;
}

/** The minimal port the client needs; a Worker is one, and tests can pass a fake. */
export interface WorkerPort {
  postMessage(message: WorkerMessage): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerEvent>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate?(): void;
}

/**
 * Typed calls into the model worker: each call resolves with its own method's result. When the worker
 * crashes, the calls in flight are rejected and the crash listeners told; `restart` then carries on
 * over a new worker, and the same client (and every listener) serves it.
 */
export class WorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The listeners of each type of announcement (WorkerAnnouncements). */
  private readonly announcementListeners = new Map<WorkerAnnouncementType, Set<(announcement: WorkerAnnouncement) => void>>();
  private readonly crashListeners = new Set<(reason: string) => void>();
  private port: WorkerPort;
  /**
   * When the worker in use last said anything (null until it first does: its script may take seconds
   * to arrive over a slow network, and a worker that fails to start fires its error event), and
   * whether its last beat said it was busy.
   */
  private lastHeard: number | null = null;
  private busy = false;

  /** `watch`: count a worker that stops beating as crashed (heartbeat.ts); without it only the error event does. */
  constructor(
    port: WorkerPort,
    private readonly watch: HeartbeatWatch | null = null,
  ) {
    this.port = port;
    this.attach(port);
    watch?.every(250, () => this.checkHeartbeat());
  }

  /** Serves a new worker in place of the current one, which is stopped; calls made from now on go to it. */
  restart(port: WorkerPort): void {
    const old = this.port;
    this.port = port;
    old.terminate?.();
    this.stopped = false;
    this.attach(port);
  }

  /** The worker stopped (its error event): every call in flight has been rejected; `reason` is the browser's. */
  onCrash(listener: (reason: string) => void): () => void {
    this.crashListeners.add(listener);
    return () => this.crashListeners.delete(listener);
  }

  private attach(port: WorkerPort): void {
    this.lastHeard = null;
    this.busy = false;
    // Events of a worker already replaced are ignored: its calls were answered when it crashed.
    port.addEventListener('message', (event) => {
      if (this.port !== port) return;
      this.lastHeard = this.watch?.now() ?? 0;
      this.receive(event.data);
    });
    port.addEventListener('error', (event) => {
      if (this.port === port) this.crashed(event.message || 'unknown error');
    });
  }

  /** A worker silent for longer than its heartbeat allows is taken for dead, as if its error event had come. */
  private checkHeartbeat(): void {
    if (!this.watch || this.stopped || this.lastHeard === null) return;
    const silentMs = this.watch.now() - this.lastHeard;
    if (silentMs > allowedSilenceMs(this.busy || this.pending.size > 0)) {
      this.crashed(`it stopped answering: no heartbeat for ${(silentMs / 1000).toFixed(1)} s`);
    }
  }

  /** Until `restart`, a crashed worker is not watched: one crash is reported once. */
  private stopped = false;

  private crashed(reason: string): void {
    this.stopped = true;
    const message = `The model worker stopped (${reason}) before answering. The page restarts it: try again once the status says Ready.`;
    for (const [id, call] of this.pending) {
      call.reject(call.signal?.aborted ? cancelledError(call.method) : new WorkerCallError('worker-crashed', message));
      this.pending.delete(id);
    }
    for (const listener of this.crashListeners) listener(reason);
  }

  /**
   * Calls a method of the worker. When `options.signal` fires, the worker is asked to stop the call,
   * and the promise rejects with a 'cancelled' WorkerCallError (named AbortError) once the worker has
   * let go of it, even if its result came first.
   */
  call<K extends WorkerMethod>(method: K, params: WorkerMethods[K]['params'], options: CallOptions = {}): Promise<WorkerMethods[K]['result']> {
    const { onProgress, signal } = options;
    if (signal?.aborted) return Promise.reject(cancelledError(method));
    const id = this.nextId++;
    const port = this.port;
    return new Promise<WorkerMethods[K]['result']>((resolve, reject) => {
      const cancel = () => {
        if (this.pending.has(id) && this.port === port) port.postMessage({ type: 'cancel', id });
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const settled = () => signal?.removeEventListener('abort', cancel);
      this.pending.set(id, {
        method,
        resolve: (value) => {
          settled();
          if (signal?.aborted) reject(cancelledError(method));
          else resolve(value);
        },
        reject: (error) => {
          settled();
          reject(signal?.aborted ? cancelledError(method) : error);
        },
        ...(onProgress ? { onProgress } : {}),
        ...(signal ? { signal } : {}),
      });
      port.postMessage({ type: method, id, params } as WorkerRequest);
    });
  }

  /** Hears every announcement of `type` the worker makes outside a call (WorkerAnnouncements), until the returned function is called. */
  onAnnouncement<K extends WorkerAnnouncementType>(type: K, listener: (announcement: Extract<WorkerAnnouncement, { type: K }>) => void): () => void {
    const listeners = this.announcementListeners.get(type) ?? new Set();
    this.announcementListeners.set(type, listeners);
    // Called only with announcements of this type (receive looks them up by type).
    const heard = listener as (announcement: WorkerAnnouncement) => void;
    listeners.add(heard);
    return () => listeners.delete(heard);
  }

  private receive(event: WorkerEvent): void {
    switch (event.type) {
      case 'beat':
        this.busy = event.busy;
        return;
      case 'progress':
        this.pending.get(event.id)?.onProgress?.(event.progress);
        return;
      case 'result': {
        const call = this.pending.get(event.id);
        if (!call) return;
        this.pending.delete(event.id);
        call.resolve(event.result);
        return;
      }
      case 'error': {
        const call = this.pending.get(event.id);
        if (!call) return;
        this.pending.delete(event.id);
        call.reject(new WorkerCallError(event.code, event.message));
        return;
      }
      default:
        // What is left is an announcement (WorkerAnnouncements), heard by the listeners of its type.
        for (const listener of this.announcementListeners.get(event.type) ?? []) listener(event);
    }
  }
}

function cancelledError(method: WorkerMethod): WorkerCallError {
  return new WorkerCallError('cancelled', `${method} was cancelled, as asked.`);
}
