import type { ChatMessage, VideoElement } from '../../shared/conversation';

/**
 * Where a visitor's turn goes: a video shared with it is watched first, then a question about it is
 * answered by the video pipeline and anything else acknowledged; a question right after a watched
 * video (no photo since) is about that video; everything else is a reply of the MMDialog pipeline. A
 * message the visitor screen flags is never answered about a video: it gets the reply path's written line.
 */
export type TurnRoute =
  | { kind: 'watch-then-answer' }
  | { kind: 'watch-then-acknowledge' }
  | { kind: 'watch-then-reply' }
  | { kind: 'ask-last-video'; video: VideoElement }
  | { kind: 'reply' };

const QUESTION_START = /^(what|who|whom|whose|where|when|why|how|which|is|are|was|were|does|do|did|can|could|will|would|has|have|any)\b/i;

/** A question: it ends with "?" or starts as English questions do ("is it…", "what…"). */
export function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) || QUESTION_START.test(text.trim());
}

/** The video the person shared last, if their last shared media was a video that has been watched. */
function lastSharedVideo(messages: readonly ChatMessage[]): VideoElement | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const media = m.elements.filter((e) => e.kind === 'image' || e.kind === 'video');
    if (media.length === 0) continue;
    const last = media[media.length - 1]!;
    return last.kind === 'video' && last.analysis ? last : null;
  }
  return null;
}

/** The route of a turn of `text` with `photos` photos and maybe a new video, after `earlier`. */
export function routeTurn(turn: { text: string; photos: number; newVideo: boolean; flagged?: boolean }, earlier: readonly ChatMessage[]): TurnRoute {
  if (turn.flagged) return { kind: turn.newVideo ? 'watch-then-reply' : 'reply' };
  const asks = turn.text !== '' && isQuestion(turn.text);
  if (turn.newVideo) return { kind: asks ? 'watch-then-answer' : 'watch-then-acknowledge' };
  const video = turn.photos === 0 && asks ? lastSharedVideo(earlier) : null;
  return video ? { kind: 'ask-last-video', video } : { kind: 'reply' };
}
