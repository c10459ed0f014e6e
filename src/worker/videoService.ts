import { errorMessage } from '../engine/errors';
import type { ExecutionPlan } from '../engine/onnx/executionPlan';
import type { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { shownDetections } from '../engine/perception/photoCaptions';
import { AvsdRankers, SCREENING_MODEL } from '../engine/video/avsdRankers';
import { textInputs } from '../engine/video/avsdInputs';
import { SpeechDetector, VAD_MODEL_FILE } from '../engine/video/speechDetector';
import { analyzeVideo } from '../engine/video/videoAnalyzer';
import { CANDIDATES_PER_QUESTION } from '../engine/video/videoDialogs';
import { AUDIO_FEATURES } from '../engine/video/audioFeatures';
import { VIDEO_FEATURES } from '../engine/video/videoFeatures';
import { FetchPackSource } from './fetchPackSource';
import type { AvsdRef, VideoAnalyzed, VideoAnswer, VideoAnswerParams, VideoPayload } from './protocol';

const MISSING_ADVICE = 'Restore models/avsd (npm run avsd:train) and reload.';

/**
 * The worker's side of shared videos: understands them with the engine's analyzeVideo (the pack's
 * photo path for the frames, Silero VAD for speech) and answers questions about them with the AVSD
 * rankers. Models load on the first video, since a chat without videos never needs them.
 */
export class VideoService {
  private loaded: Promise<{ speech: SpeechDetector | null; rankers: AvsdRankers | null; problems: string[] }> | null = null;

  private load(ref: AvsdRef | null, plan: () => Promise<ExecutionPlan>) {
    this.loaded ??= (async () => {
      if (!ref) return { speech: null, rankers: null, problems: [`models/avsd is missing, so speech is not looked for and questions about videos cannot be answered. ${MISSING_ADVICE}`] };
      const source = new FetchPackSource(ref.baseUrl, MISSING_ADVICE);
      const files = new Set(ref.files);
      const runPlan = await plan();
      const problems: string[] = [];
      const speech = await SpeechDetector.load(source, files, runPlan, { missingAdvice: `speech is not looked for in videos. ${MISSING_ADVICE}` }).catch((error: unknown) => {
        problems.push(`The voice-activity model (${VAD_MODEL_FILE}) could not be loaded, so speech is not looked for: ${errorMessage(error)}`);
        return null;
      });
      const rankers = await AvsdRankers.load(source, ref.files, runPlan, 'page').catch((error: unknown) => {
        problems.push(`The video answer rankers could not be loaded, so questions about videos cannot be answered: ${errorMessage(error)}`);
        return null;
      });
      return { speech, rankers, problems };
    })();
    return this.loaded;
  }

  async analyze(video: VideoPayload, ref: AvsdRef | null, photos: PhotoAnalyzer | null, plan: () => Promise<ExecutionPlan>): Promise<VideoAnalyzed> {
    const { speech, problems } = await this.load(ref, plan);
    const analysis = await analyzeVideo(
      { seconds: video.seconds, frames: video.frames.map((f) => ({ time: f.time, image: { width: f.width, height: f.height, data: f.pixels } })), audio: video.audio },
      { photos, speech },
    );
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
      timeline: analysis.timeline ? { frameSeconds: analysis.timeline.frameSeconds, loudnessDb: analysis.timeline.loudnessDb.map((v) => Math.round(v * 10) / 10), speech: analysis.timeline.speech.map((v) => Math.round(v * 100) / 100) } : null,
      speechChecked: analysis.speechChecked,
      detectorUsed: photos?.detector != null,
      problems,
      timings: analysis.timings,
    };
  }

  /**
   * Ranks 100 candidates for a question about a video, as AVSD's protocol does: the page has no
   * reference candidates, so they are the 100 answers of the train split's bank the text-only Q+DH
   * model finds most plausible for this question, then ranked by the default (full) model.
   */
  async answer(params: VideoAnswerParams, plan: () => Promise<ExecutionPlan>): Promise<VideoAnswer> {
    const { rankers } = await this.load(params.avsd, plan);
    if (!rankers) throw new Error(`Questions about videos cannot be answered here: the video answer rankers are not loaded. ${MISSING_ADVICE}`);
    if (params.features.video.length !== VIDEO_FEATURES || params.features.audio.length !== AUDIO_FEATURES) {
      throw new Error('This video was analyzed by another version of the app; share it again to ask about it.');
    }
    const video = Float32Array.from(params.features.video);
    const audio = Float32Array.from(params.features.audio);
    const bank = rankers.answers;
    const screen = rankers.models.includes(SCREENING_MODEL) ? SCREENING_MODEL : rankers.defaultModel;
    // The bank in slices of 100, scored by the screening model; the best 100 of all become the candidates.
    const screened: { text: string; score: number }[] = [];
    for (let start = 0; start < bank.length; start += CANDIDATES_PER_QUESTION) {
      const slice = bank.slice(start, start + CANDIDATES_PER_QUESTION);
      const padded = [...slice, ...bank.slice(0, CANDIDATES_PER_QUESTION - slice.length)];
      const [scores] = await rankers.rank(screen, [{ text: textInputs(params.question, params.earlier, padded, rankers.vocab), video, audio }]);
      slice.forEach((text, i) => screened.push({ text, score: scores![i]! }));
    }
    const candidates = screened.sort((a, b) => b.score - a.score).slice(0, CANDIDATES_PER_QUESTION).map((c) => c.text);
    const model = rankers.defaultModel;
    const [scores] = await rankers.rank(model, [{ text: textInputs(params.question, params.earlier, candidates, rankers.vocab), video, audio }]);
    const ranked = candidates.map((text, i) => ({ text, score: scores![i]! })).sort((a, b) => b.score - a.score);
    return { answer: ranked[0]!.text, model, candidates: ranked, bankSize: bank.length };
  }
}
