/**
 * A visitor's turn about a video, answered inside the one reply session (session.ts compose): a
 * video shared without a question is acknowledged with what was seen and heard; a question about it
 * is answered from the detector's frames when it asks what a real video shows (shownInVideo.ts), and
 * otherwise by the AVSD rankers over the answer bank (answerFromBank), the way `bench -- avsd-video`
 * runs the page's way. Anything else is a reply of the pool, as for any turn.
 */
import type { AvsdModelId } from './avsdModels';
import type { AvsdRankers } from './avsdRankers';
import { AUDIO_FEATURES } from './audioFeatures';
import { type ShownInVideo, answerFromFrames } from './shownInVideo';
import { VIDEO_FEATURES } from './videoFeatures';
import { type VideoQuestion, answerFromBank } from './videoAnswer';
import { EngineError } from '../errors';
import { untilAborted } from '../untilAborted';

const QUESTION_START = /^(what|who|whom|whose|where|when|why|how|which|is|are|was|were|does|do|did|can|could|will|would|has|have|any)\b/i;

/** A question: it ends with "?" or starts as English questions do ("is it…", "what…"). */
export function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) || QUESTION_START.test(text.trim());
}

/** The video a turn is about, as the page knows it once the video has been watched. */
export interface TurnVideo {
  videoId: string;
  /** Shared with this turn (true), or the last media shared before it (false). */
  sharedNow: boolean;
  seconds: number;
  description: string | null;
  /** What the detector found in its frames; absent for analyses saved before it. */
  shown?: ShownInVideo;
  /** The features the AVSD rankers read (VIDEO_FEATURES and AUDIO_FEATURES long); empty for a video the photo check called unfit. */
  features: { video: readonly number[]; audio: readonly number[] };
  /** The photo check called one of its frames unfit: it was not watched, and is answered with a written line. */
  unfit: boolean;
  /** Earlier questions about this video and their answers, oldest first (AVSD's dialog history). */
  earlier: readonly { question: string; answer: string }[];
}

/** How a turn about a video was answered. */
export type VideoTurnAnswer = { videoId: string; text: string } & (
  | /** Shared without a question: what was seen and heard, and an invitation to ask. */ { answeredFrom: 'watched' }
  | /** "What is in it" about a real video: said from what the object detector found in its frames. */ { answeredFrom: 'frames'; question: string }
  | {
      /** The best of 100 candidates the AVSD ranker scored, screened from the answer bank. */
      answeredFrom: 'ranker';
      question: string;
      model: AvsdModelId;
      /** Best first, with the ranker's scores. */
      candidates: { text: string; score: number }[];
      bankSize: number;
    }
);

/**
 * A dataset's question about a video (AVSD's, with its dialog so far) as the page would ask it: a turn
 * about a video shared before it, which `bench -- avsd-video` answers the page's way.
 */
export function askedAbout(videoId: string, question: VideoQuestion): TurnVideo {
  return {
    videoId,
    sharedNow: false,
    seconds: 0,
    description: null,
    features: { video: Array.from(question.video), audio: Array.from(question.audio) },
    unfit: false,
    earlier: question.earlier,
  };
}

/** Whether a turn about this video is answered with the photo check's written line rather than ranked. */
export function answeredAsUnfit(text: string, video: TurnVideo): boolean {
  return video.unfit && (video.sharedNow || isQuestion(text));
}

/** The line that acknowledges a video shared without a question. */
export function acknowledgement(video: Pick<TurnVideo, 'seconds' | 'description'>): string {
  return `I watched your ${video.seconds.toFixed(video.seconds < 10 ? 1 : 0)} s video: ${video.description || 'I could not make out what is in it'}. Ask me about it: what is in it, what moves, whether there is any sound.`;
}

/**
 * The answer to a turn of `text` about `video`, or null when the turn is not about it (a statement
 * after a video shared earlier): that turn is a reply of the pool. `rankers` loads the AVSD rankers,
 * only when a question needs them.
 */
export async function answerVideoTurn(
  text: string,
  video: TurnVideo,
  rankers: () => Promise<AvsdRankers>,
  signal?: AbortSignal,
): Promise<VideoTurnAnswer | null> {
  const question = text.trim();
  if (question === '' || !isQuestion(question))
    return video.sharedNow ? { videoId: video.videoId, text: acknowledgement(video), answeredFrom: 'watched' } : null;
  const fromFrames = answerFromFrames(question, video.shown);
  if (fromFrames !== null) return { videoId: video.videoId, text: fromFrames, answeredFrom: 'frames', question };
  if (video.features.video.length !== VIDEO_FEATURES || video.features.audio.length !== AUDIO_FEATURES)
    throw new EngineError('invalid-input', 'This video was analyzed by another version of the app; share it again to ask about it.');
  const loaded = await untilAborted(rankers(), signal);
  const answered = await answerFromBank(
    loaded,
    { question, earlier: video.earlier, video: Float32Array.from(video.features.video), audio: Float32Array.from(video.features.audio) },
    signal,
  );
  return {
    videoId: video.videoId,
    text: answered.answer,
    answeredFrom: 'ranker',
    question,
    model: answered.model,
    candidates: answered.candidates,
    bankSize: answered.bankSize,
  };
}
