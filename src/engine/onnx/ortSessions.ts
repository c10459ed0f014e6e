import * as ort from 'onnxruntime-web';
import type { ExecutionProvider } from './executionPlan';

export type OrtSession = ort.InferenceSession;
export { ort };

/** Creates an inference session on one provider; split out so tests can inject a failing WebGPU. */
export type SessionFactory = (model: Uint8Array, provider: ExecutionProvider) => Promise<OrtSession>;

/** A URL prefix of onnxruntime's .wasm/.mjs files, or the two files themselves (absolute URLs). */
export type WasmFiles = string | { mjs: string; wasm: string };

export function configureWasm(threads: number, wasmPaths?: WasmFiles): void {
  // ORT's warnings about shape ops placed on the CPU are expected, not actionable.
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
}

/**
 * The smallest model there is (y = Identity(x), one float), made with python3-onnx's helper and checked
 * by its checker: creating a session of it starts onnxruntime's WebAssembly runtime and nothing more.
 */
export const IDENTITY_MODEL = Uint8Array.from(atob('CAg6OwoQCgF4EgF5IghJZGVudGl0eRIFc3RhcnRaDwoBeBIKCggIARIECgIIAWIPCgF5EgoKCAgBEgQKAggBQgQKABAN'), (c) =>
  c.charCodeAt(0),
);

/**
 * Starts onnxruntime's WebAssembly runtime now: fetching and compiling its .wasm (14 or 28 MB) is most of what
 * the first session of a load waits for, and begun first it runs while the pack's configs and
 * tokenizer are fetched and parsed (issue 38). For a WASM plan only: on WebGPU it kept the pack's
 * sessions from using WebGPU. Never rejects: a runtime that fails to start fails again, with its own
 * message, at the pack's first session.
 */
export function startRuntime(): Promise<void> {
  return ort.InferenceSession.create(IDENTITY_MODEL, { executionProviders: ['wasm'] }).then(
    (session) => void session.release(),
    () => undefined,
  );
}

/**
 * onnxruntime-web's WebGPU-capable build runs one inference at a time across all its sessions (a second
 * run while one is in flight throws "Session already started" or "Session mismatch"), and the worker
 * runs models side by side: a reply's encoders while the pool's rows are computed in the background.
 * Every session's runs therefore go through one queue.
 */
let runQueue: Promise<unknown> = Promise.resolve();

function oneRunAtATime(session: OrtSession): OrtSession {
  const run = session.run.bind(session) as (...args: unknown[]) => Promise<ort.InferenceSession.ReturnType>;
  (session as { run: (...args: unknown[]) => Promise<ort.InferenceSession.ReturnType> }).run = (...args: unknown[]) => {
    const result = runQueue.then(() => run(...args));
    runQueue = result.catch(() => undefined);
    return result;
  };
  return session;
}

export const createOrtSession: SessionFactory = async (model, provider) =>
  oneRunAtATime(
    await ort.InferenceSession.create(model, {
      executionProviders: [provider],
      graphOptimizationLevel: 'all',
      // Keep outputs on the CPU: the engine reads every embedding it computes.
      ...(provider === 'webgpu' ? { preferredOutputLocation: 'cpu' as const } : {}),
    }),
  );
