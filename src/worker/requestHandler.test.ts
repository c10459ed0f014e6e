import { describe, expect, it, vi } from 'vitest';
import { EngineError } from '../engine/errors';
import type { WorkerAnnouncement, WorkerEvent, WorkerRequest } from '../protocol/protocol';
import { type WorkerApi, createRequestHandler } from './requestHandler';
import { WorkerClient, type WorkerPort, isCancelledCall } from '../protocol/client';

const pool = { poolId: 'demo', name: 'Demo pool', texts: 3, images: 2, embeddings: { fromFile: 5, fromCache: 0, computed: 0, deferred: 0, ms: 1 } };
const backend = { provider: 'wasm' as const, dtypes: { text_model: 'fp32' as const, vision_model: 'fp32' as const }, reason: 'test', fallbackFrom: null };
const detectorBackend = { provider: 'wasm' as const, dtypes: { detector: 'fp32' as const }, reason: 'test', fallbackFrom: null };
/** The detector moved to WASM after the load, as a lost GPU device makes it. */
const detectorFellBack = {
  state: 'ready' as const,
  backend: { ...detectorBackend, reason: 'WASM: WebGPU failed (GPU device lost)', fallbackFrom: 'webgpu' as const },
  loadMs: 40,
};
const cupCaption = {
  imageId: 'photo-1',
  text: 'A cup.',
  source: 'grounded' as const,
  confident: true,
  score: 0.58,
  detections: { width: 600, height: 400, objects: [{ label: 'cup', score: 0.58, box: { x1: 170, y1: 15.5, x2: 415.9, y2: 267.7 } }] },
};

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
let importGate = gate();
/** Holds a CLEVR drawing until the test opens it. */
let renderGate = gate();
/** Holds the warm-up step 'text-turn' until the test opens it. */
let warmGate = gate();
const score = {
  mmRelevance: { pairScores: [60], precision: 60, recall: 60, f1: 60 },
  intentF1: { precision: 100, recall: 100, f1: 100 },
  ranks: [{ modality: 'text' as const, rank: { higher: 2, ties: 0 }, candidates: 1000 }],
};

/** A deterministic engine: fixed results, one progress event, one backend announcement. */
function fakeEngine(): WorkerApi & { calls: string[] } {
  const calls: string[] = [];
  let announce: (announcement: WorkerAnnouncement) => void = () => undefined;
  return {
    calls,
    useAnnouncer(announcer) {
      announce = announcer;
    },
    async loadPack(params, context) {
      calls.push(`load ${params.pack.id}`);
      context.progress({ file: 'onnx/text_model.onnx', loaded: 5, total: 10 });
      announce({ type: 'backend', backend });
      const detector = params.detector
        ? { state: 'ready' as const, backend: detectorBackend, loadMs: 30 }
        : {
            state: 'unavailable' as const,
            reason: 'The object detector is not installed (models/detector/ has no detector.json), so photos are described by the image encoder alone.',
          };
      if (params.detector) setTimeout(() => announce({ type: 'detector', detector: detectorFellBack }), 0);
      // A real load waits for its files: a request that arrives meanwhile must wait for it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      calls.push(`loaded ${params.pack.id}`);
      return {
        packId: params.pack.id,
        methods: { available: ['clip-sim'], preferred: 'clip-sim', note: 'no heads' },
        backend,
        loadMs: 12,
        steps: [{ step: 'CLIP towers', ms: 12 }],
        projectionDim: 16,
        pool,
        detector,
        captioner: { state: 'none' as const },
      };
    },
    async usePool() {
      calls.push('usePool');
      return pool;
    },
    /** A long import: it waits until the test releases it, so the test can show replies are not held up. */
    async importDataset(params, context) {
      calls.push(`import ${params.name}`);
      context.progress({ file: 'Copying images', loaded: 1, total: 2 });
      await importGate.promise;
      calls.push(`imported ${params.name}`);
      return { datasetId: 'ds-1', name: params.name, images: 2, texts: 1, dialogues: 0, problems: [] };
    },
    async stageDatasetFiles(params) {
      return { staged: params.files.length };
    },
    async resumeDataset() {
      return { datasetId: 'ds-1', name: 'x', images: 2, texts: 1, dialogues: 0, problems: [] };
    },
    async checkImage(params) {
      calls.push(`check ${params.image.name}`);
      throw new EngineError('image-unsupported', `"${params.image.name}" is not an image this app can read.`);
    },
    async reply(params) {
      calls.push(`reply ${params.texts.join(' ')}`);
      return {
        elements: [{ kind: 'text', text: 'hi', score: 0.5 }],
        steps: [{ probabilities: [1, 0, 0], intent: 'text', candidates: [{ kind: 'text', label: 'hi', score: 0.5 }] }],
        method: 'clip-sim',
        intentModel: 'majority',
        relevance: 0.5,
        coherence: { invites: false, showsImage: false },
        captions: params.images.map((i) => ({ ...cupCaption, imageId: i.imageId })),
        timings: { decodeMs: 0, detectMs: params.images.length * 5, encodeMs: 1, captionMs: 0, intentMs: 0, rankMs: 1, totalMs: 2 },
        backend,
      };
    },
    async listReferenceDialogues(params) {
      return { split: params.split, dialogues: [{ id: '12', turns: 3, preview: 'how was the trip?' }] };
    },
    async loadReferenceDialogue(params) {
      return { split: params.split, id: params.dialogueId, turns: [{ elements: [{ kind: 'text', text: 'how was the trip?' }] }] };
    },
    async replayTurn(params) {
      calls.push(`replay ${params.dialogueId} turn ${params.turn}`);
      return {
        reply: await this.reply(
          { history: [], texts: ['x'], images: [], method: params.method },
          { progress: () => undefined, signal: new AbortController().signal },
        ),
        score,
      };
    },
    async scoreReference(params) {
      calls.push(`score ${params.reference.length}`);
      return { score: { ...score, ranks: [] }, captions: [] };
    },
    async trainHeads() {
      return { started: false };
    },
    async encodeTexts(params) {
      return { embeddings: params.texts.map(() => [1, 0]) };
    },
    async encodeImages(params) {
      return { embeddings: params.images.map(() => [0, 1]) };
    },
    async clevrLoad() {
      return { models: [], defaultModel: null, provider: null, note: 'none' };
    },
    async clevrRender() {
      calls.push('draw');
      await renderGate.promise;
      calls.push('drawn');
      return { width: 1, height: 1, pixels: new Uint8ClampedArray(4) };
    },
    async clevrAnswer() {
      return { answer: 'yes', probabilities: [] };
    },
    async hearVideo() {
      throw new Error('not used by these tests');
    },
    async analyzeVideo() {
      throw new Error('not used by these tests');
    },
    async preparePhotoPath() {
      calls.push('prepare photo path');
      return { ms: 1 };
    },
    async preparePhoto() {
      throw new Error('not used by these tests');
    },
    async warmUp(params) {
      calls.push(`warm ${params.step}`);
      if (params.step === 'text-turn') await warmGate.promise;
      return { step: params.step, ms: 1 };
    },
  };
}

describe('worker request handler', () => {
  it('answers each request with exactly one result, tagged with its id and method', async () => {
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(fakeEngine(), (e) => events.push(e));
    await handle({ type: 'reply', id: 7, params: { history: [], texts: ['hello'], images: [], method: null } });
    expect(events).toEqual([
      { type: 'result', id: 7, method: 'reply', result: expect.objectContaining({ method: 'clip-sim', elements: [{ kind: 'text', text: 'hi', score: 0.5 }] }) },
    ]);
  });

  it('forwards progress and backend changes during a load, then the result', async () => {
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(fakeEngine(), (e) => events.push(e));
    await handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'p', baseUrl: '/models/p/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    expect(events.map((e) => e.type)).toEqual(['progress', 'backend', 'result']);
    expect(events[0]).toEqual({ type: 'progress', id: 1, progress: { file: 'onnx/text_model.onnx', loaded: 5, total: 10 } });
  });

  it('posts a burst of byte counts as the first and the latest, before the result', async () => {
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    engine.loadPack = async (_params, context) => {
      for (let loaded = 0; loaded < 1000; loaded += 10) context.progress({ file: 'onnx/text_model.onnx', loaded, total: 1000 });
      return fakeEngine().loadPack(_params, { progress: () => undefined, signal: new AbortController().signal });
    };
    const handle = createRequestHandler(engine, (e) => events.push(e));
    await handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'p', baseUrl: '/models/p/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    const progress = events.flatMap((e) => (e.type === 'progress' ? [e.progress.loaded] : []));
    expect(progress).toEqual([0, 990]);
    expect(events.at(-1)?.type).toBe('result');
  });

  it('turns engine errors into error events with their code and sentence', async () => {
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(fakeEngine(), (e) => events.push(e));
    await handle({ type: 'checkImage', id: 3, params: { image: { name: 'notes.txt', blob: new Blob(['x']) } } });
    expect(events).toEqual([{ type: 'error', id: 3, code: 'image-unsupported', message: '"notes.txt" is not an image this app can read.' }]);
  });

  it('rejects unknown messages instead of ignoring them', async () => {
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(fakeEngine(), (e) => events.push(e));
    await handle({ type: 'format-disk', id: 9, params: {} });
    await handle('hello');
    expect(events).toEqual([
      { type: 'error', id: 9, code: 'internal', message: expect.stringContaining('does not understand') },
      { type: 'error', id: -1, code: 'internal', message: expect.stringContaining('does not understand') },
    ]);
  });

  it('runs requests one at a time, in order', async () => {
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, () => undefined);
    void handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'a', baseUrl: '/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    await handle({ type: 'reply', id: 2, params: { history: [], texts: ['x'], images: [], method: null } });
    expect(engine.calls).toEqual(['load a', 'loaded a', 'reply x']);
  });
});

describe('warm-up steps (idle requests)', () => {
  const warm = (id: number, step: 'reply-models' | 'text-turn' | 'image-ranking' | 'image-tower') => ({ type: 'warmUp', id, params: { step, method: null } });
  const reply = (id: number, text: string) => ({ type: 'reply', id, params: { history: [], texts: [text], images: [], method: null } });

  it("runs a visitor's turn that arrives while warm-up steps are queued before the remaining steps", async () => {
    warmGate = gate();
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const steps = [warm(1, 'reply-models'), warm(2, 'text-turn'), warm(3, 'image-ranking'), warm(4, 'image-tower')].map((m) => handle(m));
    await expect.poll(() => engine.calls).toEqual(['warm reply-models', 'warm text-turn']);
    const replied = handle(reply(5, 'hi'));
    warmGate.open();
    await replied;
    await Promise.all(steps);
    // The step under way finishes; the turn goes next, ahead of the two steps not started.
    expect(engine.calls).toEqual(['warm reply-models', 'warm text-turn', 'reply hi', 'warm image-ranking', 'warm image-tower']);
    expect(events.filter((e) => e.type === 'result').map((e) => e.id)).toEqual([1, 2, 5, 3, 4]);
  });

  it('starts no warm-up step while a request is queued or running, and runs the steps in order after', async () => {
    warmGate = gate();
    warmGate.open();
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, () => undefined);
    const loading = handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'a', baseUrl: '/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    const steps = [handle(warm(2, 'reply-models')), handle(warm(3, 'text-turn'))];
    const replied = handle(reply(4, 'x'));
    await Promise.all([loading, replied, ...steps]);
    expect(engine.calls).toEqual(['load a', 'loaded a', 'reply x', 'warm reply-models', 'warm text-turn']);
  });

  it('with a quiet period, starts no step until that long after the last answer: a turn a moment later goes first', async () => {
    warmGate = gate();
    warmGate.open();
    // The clock is the test's: a slow machine cannot stretch "a moment" past the quiet period.
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const run = async (quietMs: number) => {
        const engine = fakeEngine();
        const handle = createRequestHandler(engine, () => undefined, undefined, quietMs);
        await handle(reply(1, 'a'));
        const step = handle(warm(2, 'image-tower'));
        // The visitor's next turn, 20 ms after the first reply (as typed turns and a sample prompt at Ready come).
        await vi.advanceTimersByTimeAsync(20);
        const second = handle(reply(3, 'b'));
        await vi.advanceTimersByTimeAsync(quietMs + 20);
        await Promise.all([step, second]);
        return engine.calls;
      };
      expect(await run(400)).toEqual(['reply a', 'reply b', 'warm image-tower']);
      // Without one, the step had started in that moment, and the turn came after it.
      expect(await run(0)).toEqual(['reply a', 'warm image-tower', 'reply b']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers a failed step with an error event, and goes on with the next', async () => {
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    engine.warmUp = async (params) => {
      engine.calls.push(`warm ${params.step}`);
      if (params.step === 'reply-models') throw new EngineError('not-loaded', 'The model is still loading.');
      return { step: params.step, ms: 1 };
    };
    const handle = createRequestHandler(engine, (e) => events.push(e));
    await Promise.all([handle(warm(1, 'reply-models')), handle(warm(2, 'image-tower'))]);
    expect(events).toEqual([
      { type: 'error', id: 1, code: 'not-loaded', message: 'The model is still loading.' },
      { type: 'result', id: 2, method: 'warmUp', result: { step: 'image-tower', ms: 1 } },
    ]);
  });
});

describe('the idle gate for background work', () => {
  it('resolves at once when nothing waits, and otherwise once the last queued request is answered', async () => {
    warmGate = gate();
    const engine = fakeEngine();
    let whenIdle: () => Promise<void> = () => Promise.reject(new Error('no gate'));
    engine.useIdleGate = (gate) => (whenIdle = gate);
    const handle = createRequestHandler(engine, () => undefined);
    await whenIdle();
    const loading = handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'a', baseUrl: '/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    const replied = handle({ type: 'reply', id: 2, params: { history: [], texts: ['x'], images: [], method: null } });
    const resumed = whenIdle().then(() => engine.calls.push('background batch'));
    // A warm-up step is idle work: it does not hold the background back.
    const warmed = handle({ type: 'warmUp', id: 3, params: { step: 'reply-models', method: null } });
    await Promise.all([loading, replied, resumed, warmed]);
    expect(engine.calls.slice(0, 4)).toEqual(['load a', 'loaded a', 'reply x', 'background batch']);
  });
});

describe('the idle gate with a quiet period', () => {
  it('holds background work until that long after the last answer, and longer when a turn comes meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const engine = fakeEngine();
      let whenIdle: () => Promise<void> = () => Promise.reject(new Error('no gate'));
      engine.useIdleGate = (gate) => (whenIdle = gate);
      const handle = createRequestHandler(engine, () => undefined, undefined, 400);
      const reply = (id: number, text: string): WorkerRequest => ({ type: 'reply', id, params: { history: [], texts: [text], images: [], method: null } });
      await handle(reply(1, 'a'));
      const batch = whenIdle().then(() => engine.calls.push('background batch'));
      await vi.advanceTimersByTimeAsync(300);
      expect(engine.calls).toEqual(['reply a']);
      // The visitor's next turn, 300 ms after the first reply: the quiet period starts again from its answer.
      await handle(reply(2, 'b'));
      await vi.advanceTimersByTimeAsync(300);
      expect(engine.calls).toEqual(['reply a', 'reply b']);
      await vi.advanceTimersByTimeAsync(120);
      await batch;
      expect(engine.calls).toEqual(['reply a', 'reply b', 'background batch']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('WorkerClient over the handler', () => {
  /** Connects a client to a handler in the same thread, as the worker boundary would. */
  function connected(): WorkerClient {
    const listeners: ((e: MessageEvent<WorkerEvent>) => void)[] = [];
    const handle = createRequestHandler(fakeEngine(), (event) =>
      queueMicrotask(() => listeners.forEach((l) => l({ data: event } as MessageEvent<WorkerEvent>))),
    );
    const port: WorkerPort = {
      postMessage: (message) => void handle(structuredClone(message)),
      addEventListener: ((type: string, listener: (e: MessageEvent<WorkerEvent>) => void) => {
        if (type === 'message') listeners.push(listener);
      }) as WorkerPort['addEventListener'],
    };
    return new WorkerClient(port);
  }

  it('resolves a call with its typed result and reports progress and backend', async () => {
    const client = connected();
    const progress: number[] = [];
    const backends: string[] = [];
    client.onAnnouncement('backend', ({ backend }) => backends.push(backend.provider));
    const loaded = await client.call(
      'loadPack',
      { pack: { id: 'p', baseUrl: '/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
      { onProgress: (p) => progress.push(p.loaded) },
    );
    expect(loaded.pool.texts).toBe(3);
    expect(loaded.detector).toEqual({ state: 'unavailable', reason: expect.stringContaining('photos are described by the image encoder alone') });
    expect(progress).toEqual([5]);
    expect(backends).toEqual(['wasm']);
    expect((await client.call('encodeTexts', { texts: ['a', 'b'] })).embeddings).toEqual([
      [1, 0],
      [1, 0],
    ]);
  });

  it("carries a replayed turn's reply and score, and a visitor reference's score, through the boundary", async () => {
    const client = connected();
    const replayed = await client.call('replayTurn', { split: 'test', dialogueId: '12', turn: 1, method: null });
    expect(replayed.score).toEqual(score);
    expect(replayed.reply.elements).toEqual([{ kind: 'text', text: 'hi', score: 0.5 }]);
    const scored = await client.call('scoreReference', { reply: [{ kind: 'text', text: 'hi' }], reference: [{ kind: 'text', text: 'hello' }] });
    expect(scored.score.ranks).toEqual([]);
    expect((await client.call('listReferenceDialogues', { split: 'valid' })).split).toBe('valid');
  });

  it("carries the detector's status at load, and its later changes, to the page", async () => {
    const client = connected();
    const changes: unknown[] = [];
    client.onAnnouncement('detector', ({ detector }) => changes.push(detector));
    const loaded = await client.call('loadPack', {
      pack: { id: 'p', baseUrl: '/', files: [] },
      detector: { baseUrl: '/models/detector/', files: ['detector.json', 'onnx/model.onnx'] },
      pool: { kind: 'demo', baseUrl: '/pool/' },
      forceWasm: false,
    });
    expect(loaded.detector).toEqual({ state: 'ready', backend: detectorBackend, loadMs: 30 });
    await expect.poll(() => changes).toEqual([detectorFellBack]);
  });

  it("carries a photo's grounded caption, its boxes and the detection time through the boundary", async () => {
    const client = connected();
    const reply = await client.call('reply', {
      history: [],
      texts: [],
      images: [{ imageId: 'photo-7', name: 'coffee.jpg', blob: new Blob(['x']) }],
      method: null,
    });
    expect(reply.captions).toEqual([{ ...cupCaption, imageId: 'photo-7' }]);
    expect(reply.timings.detectMs).toBe(5);
  });

  it("rejects a call with the worker's sentence and code", async () => {
    const client = connected();
    await expect(client.call('checkImage', { image: { name: 'notes.txt', blob: new Blob(['x']) } })).rejects.toMatchObject({
      code: 'image-unsupported',
      message: '"notes.txt" is not an image this app can read.',
    });
  });

  it('draws a CLEVR scene beside the queue, so a reply is answered while the picture is still being drawn', async () => {
    renderGate = gate();
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const drawing = handle({ type: 'clevrRender', id: 1, params: { objects: [] } });
    await handle({ type: 'reply', id: 2, params: { history: [], texts: ['hello'], images: [], method: null } });
    expect(engine.calls).toEqual(['draw', 'reply hello']);
    renderGate.open();
    await drawing;
    expect(engine.calls).toEqual(['draw', 'reply hello', 'drawn']);
    expect(events.filter((e) => e.type === 'result').map((e) => e.id)).toEqual([2, 1]);
  });

  it('runs a dataset import beside the queue, so replies are answered while it is still running', async () => {
    importGate = gate();
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const importing = handle({ type: 'importDataset', id: 1, params: { name: 'holiday', stagingId: 's1' } });
    await handle({ type: 'reply', id: 2, params: { history: [], texts: ['hello'], images: [], method: null } });
    expect(engine.calls).toEqual(['import holiday', 'reply hello']);
    expect(events.filter((e) => e.type === 'result').map((e) => e.id)).toEqual([2]);
    importGate.open();
    await importing;
    expect(engine.calls).toEqual(['import holiday', 'reply hello', 'imported holiday']);
    expect(events.filter((e) => e.type === 'result').map((e) => e.id)).toEqual([2, 1]);
    expect(events.find((e) => e.type === 'progress')).toEqual({ type: 'progress', id: 1, progress: { file: 'Copying images', loaded: 1, total: 2 } });
  });
});

/** Waits until `signal` fires, then fails as a handler that checks its signal does. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(new EngineError('cancelled', 'Building the pool embeddings was cancelled.'))),
  );
}

describe('a visitor’s turn pre-empts warm-up', () => {
  it('aborts the step under way, answers the turn, then runs that step again and the rest', async () => {
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    let textTurnRuns = 0;
    engine.warmUp = async (params, context) => {
      engine.calls.push(`warm ${params.step}`);
      // The first run of this step would never end by itself: only its signal stops it.
      if (params.step === 'text-turn' && textTurnRuns++ === 0) {
        await untilAborted(context.signal).catch((error: unknown) => {
          engine.calls.push(`warm ${params.step} stopped`);
          throw error;
        });
      }
      return { step: params.step, ms: 1 };
    };
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const warm = (id: number, step: 'reply-models' | 'text-turn' | 'image-ranking') => handle({ type: 'warmUp', id, params: { step, method: null } });
    const steps = [warm(1, 'reply-models'), warm(2, 'text-turn'), warm(3, 'image-ranking')];
    await expect.poll(() => engine.calls).toEqual(['warm reply-models', 'warm text-turn']);
    await handle({ type: 'reply', id: 4, params: { history: [], texts: ['hi'], images: [], method: null } });
    expect(engine.calls).toEqual(['warm reply-models', 'warm text-turn', 'warm text-turn stopped', 'reply hi']);
    await Promise.all(steps);
    expect(engine.calls).toEqual(['warm reply-models', 'warm text-turn', 'warm text-turn stopped', 'reply hi', 'warm text-turn', 'warm image-ranking']);
    // The pre-empted step is answered once, by its second run; nothing reports an error.
    expect(events.map((e) => `${e.type} ${'id' in e ? e.id : ''}`)).toEqual(['result 1', 'result 4', 'result 2', 'result 3']);
  });
});

describe('cancel', () => {
  it('stops a running import through its signal and answers it with a cancelled error', async () => {
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    engine.importDataset = async (params, context) => {
      engine.calls.push(`import ${params.name}`);
      context.progress({ file: 'Embedding images', loaded: 1, total: 600 });
      return untilAborted(context.signal);
    };
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const importing = handle({ type: 'importDataset', id: 1, params: { name: 'holiday', stagingId: 's1' } });
    await handle({ type: 'cancel', id: 1 });
    await importing;
    expect(events).toEqual([
      { type: 'progress', id: 1, progress: { file: 'Embedding images', loaded: 1, total: 600 } },
      { type: 'error', id: 1, code: 'cancelled', message: 'importDataset was cancelled, as asked.' },
    ]);
  });

  it('never starts a queued request cancelled before its turn, and ignores a cancel of an id it does not hold', async () => {
    const events: WorkerEvent[] = [];
    const engine = fakeEngine();
    const handle = createRequestHandler(engine, (e) => events.push(e));
    const loading = handle({
      type: 'loadPack',
      id: 1,
      params: { pack: { id: 'a', baseUrl: '/', files: [] }, detector: null, pool: { kind: 'demo', baseUrl: '/pool/' }, forceWasm: false },
    });
    const replied = handle({ type: 'reply', id: 2, params: { history: [], texts: ['x'], images: [], method: null } });
    await handle({ type: 'cancel', id: 2 });
    await handle({ type: 'cancel', id: 99 });
    await Promise.all([loading, replied]);
    expect(engine.calls).toEqual(['load a', 'loaded a']);
    expect(events.filter((e) => e.type === 'result' || e.type === 'error').map((e) => [e.type, e.id])).toEqual([
      ['result', 1],
      ['error', 2],
    ]);
  });

  it("answers with the handler's result when it finishes without looking at its signal", async () => {
    importGate = gate();
    const events: WorkerEvent[] = [];
    const handle = createRequestHandler(fakeEngine(), (e) => events.push(e));
    const importing = handle({ type: 'importDataset', id: 1, params: { name: 'holiday', stagingId: 's1' } });
    await handle({ type: 'cancel', id: 1 });
    importGate.open();
    await importing;
    expect(events.at(-1)).toMatchObject({ type: 'result', id: 1, method: 'importDataset' });
  });
});

describe('WorkerClient: cancel, crash and restart', () => {
  /** A port over a handler in the same thread, whose error event the test can fire as a crashed worker's. */
  function port(engine: WorkerApi) {
    const messages: ((e: MessageEvent<WorkerEvent>) => void)[] = [];
    const errors: ((e: ErrorEvent) => void)[] = [];
    const handle = createRequestHandler(engine, (event) => queueMicrotask(() => messages.forEach((l) => l({ data: event } as MessageEvent<WorkerEvent>))));
    const terminated = { value: false };
    const workerPort: WorkerPort = {
      postMessage: (message) => void handle(structuredClone(message)),
      addEventListener: (type: string, listener: never) => {
        if (type === 'message') messages.push(listener);
        else errors.push(listener);
      },
      terminate: () => (terminated.value = true),
    };
    return { workerPort, terminated, crash: (message: string) => errors.forEach((l) => l({ message } as ErrorEvent)) };
  }

  it('rejects a cancelled call with an AbortError once the worker has stopped it, and the worker goes on answering', async () => {
    const engine = fakeEngine();
    let stopped = 0;
    engine.importDataset = async (_params, context) => untilAborted(context.signal).finally(() => stopped++);
    const client = new WorkerClient(port(engine).workerPort);
    const abort = new AbortController();
    const importing = client.call('importDataset', { name: 'holiday', stagingId: 's1' }, { signal: abort.signal });
    abort.abort();
    const error: unknown = await importing.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError', code: 'cancelled', message: 'importDataset was cancelled, as asked.' });
    expect(isCancelledCall(error)).toBe(true);
    expect(stopped).toBe(1);
    expect((await client.call('encodeTexts', { texts: ['a'] })).embeddings).toEqual([[1, 0]]);
  });

  it('rejects a cancelled call even when its result came first, and posts nothing for a signal already fired', async () => {
    importGate = gate();
    importGate.open();
    const engine = fakeEngine();
    const client = new WorkerClient(port(engine).workerPort);
    const abort = new AbortController();
    const importing = client.call('importDataset', { name: 'holiday', stagingId: 's1' }, { signal: abort.signal });
    abort.abort();
    await expect(importing).rejects.toMatchObject({ code: 'cancelled' });
    await expect(client.call('reply', { history: [], texts: ['late'], images: [], method: null }, { signal: abort.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(engine.calls).toEqual(['import holiday', 'imported holiday']);
  });

  it('rejects the calls in flight when the worker crashes, tells the crash listeners, and serves a restarted worker', async () => {
    const hung = fakeEngine();
    hung.reply = () => new Promise(() => undefined);
    const first = port(hung);
    const client = new WorkerClient(first.workerPort);
    const crashes: string[] = [];
    client.onCrash((reason) => crashes.push(reason));
    const replying = client.call('reply', { history: [], texts: ['hi'], images: [], method: null });
    first.crash('out of memory');
    await expect(replying).rejects.toMatchObject({
      code: 'worker-crashed',
      message: 'The model worker stopped (out of memory) before answering. The page restarts it: try again once the status says Ready.',
    });
    expect(crashes).toEqual(['out of memory']);
    const second = port(fakeEngine());
    client.restart(second.workerPort);
    expect(first.terminated.value).toBe(true);
    // The old worker's late events are not the new one's: a second crash report from it is ignored.
    first.crash('again');
    expect(crashes).toEqual(['out of memory']);
    expect((await client.call('reply', { history: [], texts: ['hi'], images: [], method: null })).elements).toEqual([{ kind: 'text', text: 'hi', score: 0.5 }]);
  });
});
