import { ClevrAnswerers, type ClevrQuestion, baselineAnswer } from '../engine/clevr/clevrAnswerer';
import { objectFeatures, roundInputs, scenePixels } from '../engine/clevr/clevrFeatures';
import { renderSceneInSlices } from '../engine/clevr/render';
import type { Scene } from '../engine/clevr/scene';
import { errorMessage } from '../engine/errors';
import type { ExecutionPlan } from '../engine/onnx/executionPlan';
import { seededRandom } from '../engine/random';
import { FetchPackSource } from './fetchPackSource';
import type { ClevrLoaded, ClevrQuestionParams, ClevrRef, WorkerMethods } from '../protocol/protocol';
import type { RequestContext } from './requestHandler';
import { untilAborted } from '../engine/untilAborted';

const MISSING_ADVICE = 'the CLEVR-Dialog view answers with the baselines only. Restore models/clevr (npm run clevr:train) and reload.';

/**
 * The worker's side of the CLEVR-Dialog view, the owner of its three methods (clevrLoad, clevrRender,
 * clevrAnswer): draws scenes and answers questions with the engine's ClevrAnswerers. Loaded on first
 * use, since the chat never needs it; `runtime` gives the execution plan the pack runs on.
 */
export class ClevrService {
  constructor(private readonly runtime: (forceWasm: boolean) => Promise<ExecutionPlan> = () => Promise.reject(new Error('No runtime was given.'))) {}

  clevrLoad(params: WorkerMethods['clevrLoad']['params'], context: RequestContext): Promise<ClevrLoaded> {
    return this.load(params.clevr, () => this.runtime(params.forceWasm), context.signal);
  }

  clevrRender(params: WorkerMethods['clevrRender']['params'], context: RequestContext) {
    return this.render(params.objects, context.signal);
  }

  clevrAnswer(params: WorkerMethods['clevrAnswer']['params'], context: RequestContext) {
    return this.answer(params, context.signal);
  }

  private answerers: ClevrAnswerers | null = null;
  private loaded: Promise<ClevrLoaded> | null = null;
  /** The baselines' draws: seeded, so a replayed session draws the same. */
  private readonly random = seededRandom(5);

  /**
   * Loads the answerers once. A cancelled call stops waiting at once; the load itself goes on, shared,
   * so that the next call finds it done.
   */
  load(ref: ClevrRef | null, plan: () => Promise<ExecutionPlan>, signal?: AbortSignal): Promise<ClevrLoaded> {
    return untilAborted(this.loadOnce(ref, plan), signal);
  }

  private loadOnce(ref: ClevrRef | null, plan: () => Promise<ExecutionPlan>): Promise<ClevrLoaded> {
    this.loaded ??= (async (): Promise<ClevrLoaded> => {
      if (!ref) return { models: [], defaultModel: null, provider: null, note: `models/clevr is missing, so ${MISSING_ADVICE}` };
      try {
        this.answerers = await ClevrAnswerers.load(new FetchPackSource(ref.baseUrl, MISSING_ADVICE), ref.files, await plan());
        const backend = this.answerers.backend;
        return { models: [...this.answerers.models], defaultModel: this.answerers.defaultModel, provider: backend.provider, note: backend.reason };
      } catch (error) {
        return { models: [], defaultModel: null, provider: null, note: errorMessage(error) };
      }
    })();
    return this.loaded;
  }

  /** Counts drawings asked for: a newer one stops an older one, whose picture nobody would see. */
  private renderings = 0;

  /**
   * Draws in slices of a frame's budget, yielding between them, so a reply asked for meanwhile runs
   * between slices instead of after the whole picture (clevrRender is a background method for this).
   */
  async render(objects: Scene['objects'], signal?: AbortSignal): Promise<{ width: number; height: number; pixels: Uint8ClampedArray }> {
    const rendering = ++this.renderings;
    const picture = await renderSceneInSlices(objects, {
      now: () => performance.now(),
      yieldToOthers: () => new Promise((resolve) => setTimeout(resolve, 0)),
      cancelled: () => rendering !== this.renderings || signal?.aborted === true,
    });
    signal?.throwIfAborted();
    if (!picture) throw new Error('A newer scene was asked for before this one was drawn.');
    return { width: picture.width, height: picture.height, pixels: picture.data };
  }

  async answer(params: ClevrQuestionParams, signal?: AbortSignal): Promise<{ answer: string; probabilities: number[] }> {
    signal?.throwIfAborted();
    if (params.model === 'random' || params.model === 'random-q') {
      const p = baselineAnswer(params.model, { template: params.template, text: params.question }, this.random);
      return { answer: p.answer, probabilities: [...p.probabilities] };
    }
    const answerers = this.answerers;
    if (!answerers) return { ...baselineAnswer('random-q', { template: params.template, text: params.question }, this.random), probabilities: [] };
    const { features, mask } = objectFeatures({ objects: params.objects });
    const inputs = roundInputs(params.caption, params.earlier, params.question, answerers.vocab);
    const question: ClevrQuestion = {
      ...inputs,
      objects: features,
      objectMask: mask,
      pixels: scenePixels({ objects: params.objects }),
      template: params.template,
      text: params.question,
    };
    signal?.throwIfAborted();
    const [prediction] = await answerers.answer(params.model, [question], this.random);
    return { answer: prediction!.answer, probabilities: [...prediction!.probabilities] };
  }
}
