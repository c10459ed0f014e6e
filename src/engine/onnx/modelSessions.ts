import { float16BitsToFloat32 } from './float16';
import { hashBytes } from '../pool/contentHash';
import { EngineError, errorMessage } from '../errors';
import { type ExecutionPlan, type ModelDtype, pickOnnxFile, wasmFallbackPlan } from './executionPlan';
import { type OrtSession, type SessionFactory, createOrtSession, type ort } from './ortSessions';
import { onnxInputNames } from './onnxInputs';
import type { FileProgress, PackFileSource } from '../pack/fileSource';

/** One ONNX model of a set: its file name without variant suffix (onnx/<file>.onnx) and what to call it in messages. */
export interface ModelSpec<K extends string> {
  key: K;
  /** e.g. "text_model": the file is onnx/text_model.onnx, or a variant of it. */
  file: string;
  /** e.g. "text encoder", for error messages. */
  label: string;
}

export interface SessionsState<K extends string> {
  provider: ExecutionPlan['provider'];
  dtypes: Record<K, ModelDtype>;
  reason: string;
  /** Set when the models run on WASM because WebGPU failed. */
  fallbackFrom: 'webgpu' | null;
}

export interface SessionsOptions<K extends string> {
  onProgress?: (progress: FileProgress) => void;
  onBackendChange?: (state: SessionsState<K>) => void;
  createSession?: SessionFactory;
  /** What to do when a model file is missing, after "<file> is missing, so ...". */
  missingAdvice: string;
  /**
   * Models whose files are read (and hashed, for fingerprints) at load but whose sessions are created
   * when first run: the image tower and the detector, which a text turn never needs, so Ready does
   * not wait for them (issue 38). A warm-up run after Ready creates them in idle time.
   */
  deferred?: readonly K[];
}

type Feeds = Record<string, ort.Tensor>;

/**
 * The ONNX sessions of one model folder on onnxruntime-web, with the WebGPU -> WASM fallback every
 * model of the app gets: if WebGPU fails when the sessions are created or during a run, the models
 * are reloaded on WASM and the request is retried, so callers only see the backend change.
 */
export class ModelSessions<K extends string> {
  private fallback: Promise<void> | null = null;
  /** onnxruntime-web runs one inference at a time per model set; runs are queued here. */
  private runQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly source: PackFileSource,
    private readonly files: ReadonlySet<string>,
    private readonly models: readonly ModelSpec<K>[],
    private plan: ExecutionPlan,
    private readonly options: SessionsOptions<K>,
    private loaded: LoadedSessions<K>,
  ) {}

  static async load<K extends string>(
    source: PackFileSource,
    files: ReadonlySet<string>,
    models: readonly ModelSpec<K>[],
    plan: ExecutionPlan,
    options: SessionsOptions<K>,
  ): Promise<ModelSessions<K>> {
    let loaded: LoadedSessions<K>;
    try {
      loaded = await createSessions(source, files, models, plan, options);
    } catch (error) {
      if (plan.provider !== 'webgpu' || !isBackendFailure(error)) throw error;
      plan = wasmFallbackPlan(plan, errorMessage(error));
      loaded = await createSessions(source, files, models, plan, options, 'webgpu');
    }
    return new ModelSessions(source, files, models, plan, options, loaded);
  }

  get state(): SessionsState<K> {
    return this.loaded.state;
  }

  /** "<file>:<hash>" of every model file loaded, for fingerprints of what the models compute. */
  get fileHashes(): readonly string[] {
    return this.loaded.fileHashes;
  }

  /** Input names of a model, so a caller can feed optional inputs only to models that declare them. */
  inputNames(key: K): readonly string[] {
    return this.loaded.sessions[key]?.inputNames ?? this.loaded.deferred.get(key)!.inputNames;
  }

  /** The element type a model declares for an input (fp16 exports may take float16 pixels), or null when it does not say (or its session is not created yet). */
  inputType(key: K, name: string): string | null {
    const meta = this.loaded.sessions[key]?.inputMetadata.find((m) => m.name === name);
    return meta?.isTensor ? meta.type : null;
  }

  run(key: K, feeds: () => Feeds): Promise<Record<string, ort.Tensor>> {
    const result = this.runQueue.then(() => this.runNow(key, feeds));
    this.runQueue = result.catch(() => undefined);
    return result;
  }

  /** Moves to WASM after WebGPU failed outside a run (for example, the GPU device was lost). */
  async fallBackToWasm(failure: string): Promise<void> {
    if (this.loaded.state.provider !== 'webgpu') return;
    this.fallback ??= (async () => {
      this.plan = wasmFallbackPlan(this.plan, failure);
      const old = this.loaded;
      // Models not created yet stay deferred, now for WASM.
      const deferred = this.models.filter((m) => !old.sessions[m.key]).map((m) => m.key);
      this.loaded = await createSessions(this.source, this.files, this.models, this.plan, { ...this.options, deferred }, 'webgpu');
      await releaseAll(old);
    })().finally(() => {
      this.fallback = null;
    });
    await this.fallback;
  }

  async release(): Promise<void> {
    await releaseAll(this.loaded);
  }

  /** A model's session, created now if it was deferred (once, however many runs wait for it). */
  private session(key: K): Promise<OrtSession> {
    const loaded = this.loaded;
    const ready = loaded.sessions[key];
    if (ready) return Promise.resolve(ready);
    const pending = loaded.deferred.get(key)!;
    pending.creating ??= createSession(this.source, pending.file, pending.bytes, this.plan, this.options).then((session) => {
      loaded.sessions[key] = session;
      pending.bytes = new Uint8Array(0);
      return session;
    });
    return pending.creating;
  }

  private async runNow(key: K, feeds: () => Feeds): Promise<Record<string, ort.Tensor>> {
    if (this.fallback) await this.fallback;
    try {
      return await (await this.session(key)).run(feeds());
    } catch (error) {
      if (this.loaded.state.provider !== 'webgpu') throw this.runError(key, error);
      await this.fallBackToWasm(errorMessage(error));
      const session = await this.session(key);
      return await session.run(feeds()).catch((e: unknown) => {
        throw this.runError(key, e);
      });
    }
  }

  private runError(key: K, error: unknown): EngineError {
    if (error instanceof EngineError) return error;
    const label = this.models.find((m) => m.key === key)?.label ?? key;
    return new EngineError('backend-failed', `The ${label} failed: ${errorMessage(error)}. Reload the page; if it happens again, switch to WASM in settings.`, {
      cause: error,
    });
  }
}

/** A float output of a run as float32 (float16 outputs of fp16 exports are widened), or an error that says the model is not the kind the app expects. */
export function floatOutput(results: Record<string, ort.Tensor>, name: string, what: string): Float32Array {
  const output = results[name];
  if (!output) throw new EngineError('pack-file-corrupt', `The model has no output named "${name}"; it is not ${what}.`);
  if (output.data instanceof Float32Array) return output.data;
  if (output.type === 'float16' && output.data instanceof Uint16Array) return float16BitsToFloat32(output.data);
  throw new EngineError('pack-file-corrupt', `The model's "${name}" is ${output.type}, not float32 or float16.`);
}

/** Errors from onnxruntime itself (not from reading files) are what a WASM retry can cure. */
function isBackendFailure(error: unknown): boolean {
  return !(error instanceof EngineError) || error.code === 'backend-failed';
}

async function releaseAll<K extends string>(loaded: LoadedSessions<K>): Promise<void> {
  const creating = [...loaded.deferred.values()].flatMap((d) => (d.creating ? [d.creating] : []));
  const sessions = new Set([
    ...Object.values<OrtSession | undefined>(loaded.sessions),
    ...(await Promise.allSettled(creating)).map((r) => (r.status === 'fulfilled' ? r.value : undefined)),
  ]);
  await Promise.allSettled([...sessions].flatMap((s) => (s ? [s.release()] : [])));
}

/** A model read at load whose session is created on first use. */
interface DeferredModel {
  file: string;
  /** The file's bytes until the session is made from them. */
  bytes: Uint8Array;
  inputNames: readonly string[];
  creating?: Promise<OrtSession>;
}

interface LoadedSessions<K extends string> {
  sessions: Partial<Record<K, OrtSession>>;
  deferred: Map<K, DeferredModel>;
  state: SessionsState<K>;
  fileHashes: string[];
}

/** One session on the plan's provider; on WASM a failure means the file is damaged (on WebGPU the caller retries on WASM). */
async function createSession<K extends string>(
  source: PackFileSource,
  file: string,
  bytes: Uint8Array,
  plan: ExecutionPlan,
  options: SessionsOptions<K>,
): Promise<OrtSession> {
  try {
    return await (options.createSession ?? createOrtSession)(bytes, plan.provider);
  } catch (cause) {
    if (plan.provider === 'webgpu') throw cause;
    throw new EngineError(
      'pack-file-corrupt',
      `${source.location}${file} could not be loaded as an ONNX model (${errorMessage(cause)}). The file is damaged or incomplete: restore it and reload.`,
      { cause },
    );
  }
}

async function createSessions<K extends string>(
  source: PackFileSource,
  files: ReadonlySet<string>,
  models: readonly ModelSpec<K>[],
  plan: ExecutionPlan,
  options: SessionsOptions<K>,
  fallbackFrom: 'webgpu' | null = null,
): Promise<LoadedSessions<K>> {
  const deferredKeys = new Set(options.deferred ?? []);
  const picked = models.map((model) => {
    const choice = pickOnnxFile(model.file, plan.dtypes, files);
    if (!choice) throw new EngineError('pack-file-missing', `${source.location}onnx/${model.file}.onnx is missing, so ${options.missingAdvice}`);
    return choice;
  });
  const settled = await Promise.allSettled(
    picked.map(async ({ file }, i) => {
      const bytes = await source.readBytes(file, options.onProgress);
      const hash = `${file}:${hashBytes(bytes)}`;
      if (deferredKeys.has(models[i]!.key)) return { hash, deferred: { file, bytes, inputNames: onnxInputNames(bytes, `${source.location}${file}`) } };
      return { session: await createSession(source, file, bytes, plan, options), hash };
    }),
  );
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    // Do not leak a model that did load: the caller may retry on another provider.
    await Promise.allSettled(settled.flatMap((r) => (r.status === 'fulfilled' && r.value.session ? [r.value.session.release()] : [])));
    throw failure.reason;
  }
  const loaded = settled.map((r) => (r as PromiseFulfilledResult<{ session?: OrtSession; deferred?: DeferredModel; hash: string }>).value);
  const sessions: Partial<Record<K, OrtSession>> = {};
  const deferred = new Map<K, DeferredModel>();
  const dtypes = {} as Record<K, ModelDtype>;
  models.forEach((m, i) => {
    const { session, deferred: later } = loaded[i]!;
    if (session) sessions[m.key] = session;
    if (later) deferred.set(m.key, later);
    dtypes[m.key] = picked[i]!.dtype;
  });
  const state: SessionsState<K> = { provider: plan.provider, dtypes, reason: plan.reason, fallbackFrom };
  options.onBackendChange?.(state);
  return { sessions, deferred, state, fileHashes: loaded.map((l) => l.hash) };
}
