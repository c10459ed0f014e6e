import type { TurnVideo } from '../../engine/video/videoTurn';
import type { ChatMessage, VideoElement } from '../../shared/conversation';

/**
 * The video a visitor's turn is about, for the reply (engine/video/videoTurn.ts decides how it is
 * answered): the video shared with the turn, once watched; else, for a turn without photos, the video
 * the person shared last, when their last shared media was a video that has been watched. A photo in
 * the turn, or one shared since the video, makes the turn about the photo.
 */
export function turnVideoOf(turn: { watched: VideoElement | null; photos: number }, earlier: readonly ChatMessage[]): TurnVideo | null {
  const video = turn.watched ?? (turn.photos === 0 ? lastSharedVideo(earlier) : null);
  if (!video?.analysis) return null;
  const { analysis } = video;
  return {
    videoId: video.videoId,
    sharedNow: turn.watched !== null,
    seconds: video.seconds,
    description: video.description ?? null,
    ...(analysis.shown ? { shown: analysis.shown } : {}),
    features: analysis.features,
    unfit: analysis.check === 'unfit',
    earlier: earlierRounds(earlier, video.videoId),
  };
}

/** The video the person shared last, if their last shared media was a video. */
function lastSharedVideo(messages: readonly ChatMessage[]): VideoElement | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const media = m.elements.filter((e) => e.kind === 'image' || e.kind === 'video');
    if (media.length === 0) continue;
    const last = media[media.length - 1]!;
    return last.kind === 'video' ? last : null;
  }
  return null;
}

/** The earlier questions about this video in the conversation, and the answers given (AVSD's dialog history). */
function earlierRounds(messages: readonly ChatMessage[], videoId: string): { question: string; answer: string }[] {
  return messages.flatMap((m) => {
    const video = m.reply?.video;
    if (!video || video.videoId !== videoId || video.answeredFrom === 'watched') return [];
    const answer = m.elements.find((e) => e.kind === 'text');
    return answer?.kind === 'text' ? [{ question: video.question, answer: answer.text }] : [];
  });
}
