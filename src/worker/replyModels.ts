import type { ClipTokenizer } from '../engine/clip/tokenizer';
import { errorMessage } from '../engine/errors';
import type { FileProgress, PackFileSource } from '../engine/pack/fileSource';
import { ChatEncoder, loadChatFusion } from '../engine/response/chatEncoder';
import { ResponseHeads } from '../engine/response/heads';
import { type SessionChat, sessionChat } from '../engine/response/session';

/** A pack's optional reply model: loaded, absent (null), or present but unusable, with why. */
export type Optional<T> = T | { failed: string } | null;

export function usable<T extends object>(loaded: Optional<T>): T | null {
  return loaded && !('failed' in loaded) ? loaded : null;
}

/** The pack's trained heads (intent and DE++); without them, or if they do not fit, replies use the zero-shot methods. */
export function loadHeads(source: PackFileSource, files: ReadonlySet<string>, packFingerprint: string): Promise<Optional<ResponseHeads>> {
  return ResponseHeads.load(source, files, packFingerprint).catch((error: unknown) => ({ failed: errorMessage(error) }));
}

/** The pack's conversational encoder and its fusion weights; without it, texts come from the heads or the zero-shot methods. */
export async function loadChat(
  source: PackFileSource,
  files: ReadonlySet<string>,
  tokenizer: ClipTokenizer,
  onProgress: (p: FileProgress) => void,
): Promise<Optional<SessionChat>> {
  try {
    const chatEncoder = await ChatEncoder.load(source, files, tokenizer, { onProgress });
    return chatEncoder ? sessionChat(chatEncoder, await loadChatFusion(source, files)) : null;
  } catch (error) {
    return { failed: errorMessage(error) };
  }
}

/** What the responder says of how replies are made with these models (Settings shows it). */
export function replyModelsNote(heads: Optional<ResponseHeads>, chat: Optional<SessionChat>): string {
  const untrained =
    'replies use the zero-shot methods and the majority intent until clip-map and the intent head are trained in this browser (the status area shows it).';
  const headsNote = usable(heads)
    ? 'This pack has trained heads: replies use the trained intent head and the trained DE++ ranker; Settings offers the hybrid of BM25 and DE++, clip-map and the zero-shot methods.'
    : heads && 'failed' in heads
      ? `The pack's trained heads could not be used (${heads.failed.replace(/\.$/, '')}), so ${untrained}`
      : `This pack has no trained heads from Python: ${untrained}`;
  const loadedChat = usable(chat);
  const chatNote = loadedChat
    ? ` Texts come from the conversational encoder trained on real conversations (DailyDialog, Topical-Chat), fused with BM25 and context match${loadedChat.hybridWeights ? '' : ' (with even weights: the pack has no learned ones)'}.`
    : chat && 'failed' in chat
      ? ` The pack's conversational encoder could not be used (${chat.failed.replace(/\.$/, '')}), so texts come from the methods without it.`
      : '';
  return headsNote + chatNote;
}
