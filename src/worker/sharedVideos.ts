import { errorMessage } from '../engine/errors';
import type { ExecutionPlan } from '../engine/onnx/executionPlan';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { type PhotoChecker, checkVideoFrames } from '../engine/perception/photoCheck';
import { nowMs } from '../engine/clock';
import { shownDetections } from '../engine/perception/photoCaptions';
import { AvsdRankers } from '../engine/video/avsdRankers';
import { SpeechDetector, VAD_MODEL_FILE } from '../engine/video/speechDetector';
import { analyzeVideo } from '../engine/video/videoAnalyzer';
import { FetchPackSource } from './fetchPackSource';
import type { AvsdRef, VideoAnalyzed, VideoPayload, WorkerMethods } from '../protocol/protocol';
import type { RequestContext } from './requestHandler';

/** How many sounds sent ahead are kept for their analysis. */
const HEARD_KEPT = 4;
const MISSING_ADVICE = 'Restore models/avsd (npm run avsd:train) and reload.';

/** What is said of a video the photo check called unfit: nothing seen, nothing heard, nothing to answer from. */
function notWatched(totalMs: number): VideoAnalyzed {
  return {
    description: '',
    shown: { drawn: false, answer: '' },
    features: { video: [], audio: [] },
    frames: [],
    timeline: null,
    speechChecked: false,
    detectorUsed: false,
    problems: [],
    timings: { detectMs: 0, encodeMs: 0, audioMs: 0, totalMs, analysedFrames: 0 },
    check: 'unfit',
  };
}

/**
 * The worker's side of shared videos, the owner of hearVideo and analyzeVideo and of the video models:
 * understands videos with the engine's analyzeVideo (the pack's photo path for the frames, Silero VAD
 * for speech), and loads the AVSD rankers that the reply session answers questions about them with
 * (`rankers`, handed to WorkerModels' reply). Models load on the first video, since a chat without
 * videos never needs them. `runtime` gives the pack's execution plan, `photoPath` its photo analyzer
 * and photo check (their parts are null before a pack loads).
 */
export class SharedVideos {
  constructor(
    private readonly runtime: (forceWasm: boolean) => Promise<ExecutionPlan>,
    private readonly photoPath: () => { analyzer: PhotoAnalyzer | null; photoCheck: PhotoChecker | null },
  ) {}

  /** The frames go through the loaded pack's photo path (detector and image tower) when there is one. */
  analyzeVideo(params: WorkerMethods['analyzeVideo']['params'], context: RequestContext) {
    const { analyzer, photoCheck } = this.photoPath();
    return this.analyze(params.video, params.avsd, analyzer, () => this.runtime(params.forceWasm), context.signal, photoCheck);
  }

  hearVideo(params: WorkerMethods['hearVideo']['params']) {
    return this.hear(params.soundId, params.audio, params.avsd, () => this.runtime(params.forceWasm));
  }

  /** The AVSD rankers, loaded with the video models (once); rejects with what to do when models/avsd is missing or broken. */
  async rankers(ref: AvsdRef | null, forceWasm: boolean): Promise<AvsdRankers> {
    const { rankers } = await this.load(ref, () => this.runtime(forceWasm));
    if (!rankers) throw new Error(`Questions about videos cannot be answered here: the video answer rankers are not loaded. ${MISSING_ADVICE}`);
    return rankers;
  }

  private loaded: Promise<{ speech: SpeechDetector | null; rankers: AvsdRankers | null; problems: string[] }> | null = null;

  private load(ref: AvsdRef | null, plan: () => Promise<ExecutionPlan>) {
    this.loaded ??= (async () => {
      if (!ref)
        return {
          speech: null,
          rankers: null,
          problems: [`models/avsd is missing, so speech is not looked for and questions about videos cannot be answered. ${MISSING_ADVICE}`],
        };
      const source = new FetchPackSource(ref.baseUrl, MISSING_ADVICE);
      const files = new Set(ref.files);
      const runPlan = await plan();
      const problems: string[] = [];
      const speech = await SpeechDetector.load(source, files, runPlan, { missingAdvice: `speech is not looked for in videos. ${MISSING_ADVICE}` }).catch(
        (error: unknown) => {
          problems.push(`The voice-activity model (${VAD_MODEL_FILE}) could not be loaded, so speech is not looked for: ${errorMessage(error)}`);
          return null;
        },
      );
      const rankers = await AvsdRankers.load(source, ref.files, runPlan, 'page').catch((error: unknown) => {
        problems.push(`The video answer rankers could not be loaded, so questions about videos cannot be answered: ${errorMessage(error)}`);
        return null;
      });
      return { speech, rankers, problems };
    })();
    return this.loaded;
  }

  /** Speech probabilities of sounds sent ahead (hearVideo), by soundId; a few at most, each taken once. */
  private readonly heard = new Map<string, Promise<number[]>>();

  /** Loads the video models and looks for speech in a video's sound while the page still decodes its frames. */
  async hear(soundId: string, audio: Float32Array, ref: AvsdRef | null, plan: () => Promise<ExecutionPlan>): Promise<{ ms: number }> {
    const start = nowMs();
    const speech = this.load(ref, plan).then(({ speech }) => (speech ? speech.speechProbabilities(audio) : []));
    this.heard.set(soundId, speech);
    // Sounds of videos removed before they were sent are never taken: only the latest few are kept.
    for (const old of [...this.heard.keys()].slice(0, -HEARD_KEPT)) this.heard.delete(old);
    await speech;
    return { ms: nowMs() - start };
  }

  async analyze(
    video: VideoPayload,
    ref: AvsdRef | null,
    photos: PhotoAnalyzer | null,
    plan: () => Promise<ExecutionPlan>,
    signal?: AbortSignal,
    photoCheck: PhotoChecker | null = null,
  ): Promise<VideoAnalyzed> {
    const start = nowMs();
    const frames = video.frames.map((f) => ({ time: f.time, image: { width: f.width, height: f.height, data: f.pixels } }));
    // The sound and answer models load while the frames are checked (a first video waited for both in turn).
    const loading = this.load(ref, plan);
    loading.catch(() => undefined);
    // Checked before anything else: an unfit video is neither described nor answered about (issue 39).
    const check = await checkVideoFrames(
      photoCheck,
      frames.map((f) => f.image),
    );
    signal?.throwIfAborted();
    if (check === 'unfit') return notWatched(nowMs() - start);
    const { speech, problems } = await loading;
    const heardAhead = video.soundId ? this.heard.get(video.soundId) : undefined;
    if (video.soundId) this.heard.delete(video.soundId);
    const heard = heardAhead?.catch(() => (speech && video.audio ? speech.speechProbabilities(video.audio) : []));
    const analysis = await analyzeVideo({ seconds: video.seconds, frames, audio: video.audio }, { photos, speech, ...(heard ? { heard } : {}) }, signal);
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      description: analysis.description,
      shown: analysis.shown,
      features: { video: Array.from(analysis.video, round), audio: Array.from(analysis.audio, round) },
      frames: analysis.frames.map((f) => ({
        time: f.time,
        detections: f.detections ? shownDetections(f.detections) : null,
        shapes: f.blobs.map((b) => ({ label: `${b.color} ${b.shape}`, x: round(b.x), y: round(b.y) })),
      })),
      timeline: analysis.timeline
        ? {
            frameSeconds: analysis.timeline.frameSeconds,
            loudnessDb: analysis.timeline.loudnessDb.map((v) => Math.round(v * 10) / 10),
            speech: analysis.timeline.speech.map((v) => Math.round(v * 100) / 100),
          }
        : null,
      speechChecked: analysis.speechChecked,
      detectorUsed: photos?.detector != null,
      problems,
      timings: analysis.timings,
      check,
    };
  }
}
