/**
 * Real human conversations (DailyDialog, Topical-Chat) as the engine uses them: a conversation is
 * its turns in order, speakers alternating. Readers skip what cannot be a conversation turn (an
 * empty utterance) or a conversation (one turn) and count it, so one bad line never stops a build.
 */
export interface Conversation {
  /** Unique within its corpus: DailyDialog's line number, Topical-Chat's conversation id. */
  readonly id: string;
  readonly turns: readonly string[];
}

/** What a reader left out, by reason. */
export interface SkippedCounts {
  /** Utterances with no text (the conversation keeps its other turns). */
  emptyTurns: number;
  /** Conversations with fewer than two turns left: nothing answers anything. */
  oneTurn: number;
}

export interface CorpusFile {
  conversations: Conversation[];
  skipped: SkippedCounts;
}

export function noneSkipped(): SkippedCounts {
  return { emptyTurns: 0, oneTurn: 0 };
}

export function addSkipped(into: SkippedCounts, more: SkippedCounts): SkippedCounts {
  into.emptyTurns += more.emptyTurns;
  into.oneTurn += more.oneTurn;
  return into;
}

/** Keeps the turns with text; a conversation left with fewer than two is counted and dropped. */
export function keepConversation(id: string, rawTurns: readonly string[], skipped: SkippedCounts, into: Conversation[]): void {
  const turns = rawTurns.map((t) => t.trim()).filter((t) => t !== '');
  skipped.emptyTurns += rawTurns.length - turns.length;
  if (turns.length < 2) {
    skipped.oneTurn++;
    return;
  }
  into.push({ id, turns });
}

/** One context → response example (PolyAI's format): the turns before the response, oldest first. */
export interface ConversationPair {
  readonly context: readonly string[];
  readonly response: string;
}

/** Every turn after the first as a response, with up to `maxContextTurns` turns before it as its context. */
export function conversationPairs(conversation: Conversation, maxContextTurns = Infinity): ConversationPair[] {
  const { turns } = conversation;
  return turns.slice(1).map((response, i) => ({ context: turns.slice(Math.max(0, i + 1 - maxContextTurns), i + 1), response }));
}
