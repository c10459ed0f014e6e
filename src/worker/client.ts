import type {
  BackendState,
  CaptionerStatus,
  DetectorStatus,
  FileProgress,
  LocalHeadsStatus,
  PoolRowsStatus,
  WorkerEvent,
  WorkerMethod,
  WorkerMethods,
  WorkerRequest,
} from './protocol';

export class WorkerCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerCallError';
  }
}

interface Pending {
  method: WorkerMethod;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (progress: FileProgress) => void;
}

/** The minimal port the client needs; a Worker is one, and tests can pass a fake. */
export interface WorkerPort {
  postMessage(message: WorkerRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerEvent>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
}

/** Typed calls into the model worker: each call resolves with its own method's result. */
export class WorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly backendListeners = new Set<(backend: BackendState) => void>();
  private readonly detectorListeners = new Set<(detector: DetectorStatus) => void>();
  private readonly localHeadsListeners = new Set<(packId: string, status: LocalHeadsStatus) => void>();
  private readonly poolRowsListeners = new Set<(status: PoolRowsStatus) => void>();
  private readonly captionerListeners = new Set<(captioner: CaptionerStatus) => void>();

  constructor(private readonly port: WorkerPort) {
    port.addEventListener('message', (event) => this.receive(event.data));
    port.addEventListener('error', (event) => {
      const message = `The model worker crashed (${event.message || 'unknown error'}). Reload the page.`;
      for (const [id, call] of this.pending) {
        call.reject(new WorkerCallError('internal', message));
        this.pending.delete(id);
      }
    });
  }

  call<K extends WorkerMethod>(
    method: K,
    params: WorkerMethods[K]['params'],
    onProgress?: (progress: FileProgress) => void,
  ): Promise<WorkerMethods[K]['result']> {
    const id = this.nextId++;
    return new Promise<WorkerMethods[K]['result']>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, ...(onProgress ? { onProgress } : {}) });
      this.port.postMessage({ type: method, id, params } as WorkerRequest);
    });
  }

  onBackendChange(listener: (backend: BackendState) => void): () => void {
    this.backendListeners.add(listener);
    return () => this.backendListeners.delete(listener);
  }

  /** The captioner failed after the pack loaded (its status at load comes with loadPack's result). */
  onCaptionerChange(listener: (captioner: CaptionerStatus) => void): () => void {
    this.captionerListeners.add(listener);
    return () => this.captionerListeners.delete(listener);
  }

  /** The object detector moved to WASM or failed after the pack loaded (its status at load comes with loadPack's result). */
  onDetectorChange(listener: (detector: DetectorStatus) => void): () => void {
    this.detectorListeners.add(listener);
    return () => this.detectorListeners.delete(listener);
  }

  /** clip-map and the intent head being trained in the worker for a pack without Python heads. */
  onLocalHeadsChange(listener: (packId: string, status: LocalHeadsStatus) => void): () => void {
    this.localHeadsListeners.add(listener);
    return () => this.localHeadsListeners.delete(listener);
  }

  /** The pool's CLIP text rows being computed after Ready. */
  onPoolRowsChange(listener: (status: PoolRowsStatus) => void): () => void {
    this.poolRowsListeners.add(listener);
    return () => this.poolRowsListeners.delete(listener);
  }

  private receive(event: WorkerEvent): void {
    switch (event.type) {
      case 'backend':
        for (const listener of this.backendListeners) listener(event.backend);
        return;
      case 'detector':
        for (const listener of this.detectorListeners) listener(event.detector);
        return;
      case 'localHeads':
        for (const listener of this.localHeadsListeners) listener(event.packId, event.status);
        return;
      case 'poolRows':
        for (const listener of this.poolRowsListeners) listener(event.status);
        return;
      case 'captioner':
        for (const listener of this.captionerListeners) listener(event.captioner);
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
      default: {
        const unknown: never = event;
        throw new Error(`Unknown worker event ${JSON.stringify(unknown)}`);
      }
    }
  }
}
