import { type Conversation, type CorpusFile, keepConversation, noneSkipped } from '../conversations/corpus';
import { invalid } from './validation';
import type { PolyaiExample } from './polyai';

/** One DailyDialog dialogue (Li et al. 2017): its line in dialogues_text.txt and its turns, in order. */
export interface DailyDialogue {
  /** 1-based line number in the file, for messages. */
  readonly line: number;
  readonly turns: readonly string[];
}

const SEPARATOR = '__eou__';
const FORMAT = `Each line of dialogues_text.txt is one dialogue, its turns separated by "${SEPARATOR}".`;

export interface DailyDialogFile {
  dialogues: DailyDialogue[];
  skipped: CorpusFile['skipped'];
}

/**
 * Reads dialogues_text.txt. The original file ends every turn with "__eou__", so an empty piece after
 * the last separator is expected. Any other empty turn is skipped and counted, and so is a line left
 * with fewer than two turns (a blank line among them): one bad line never stops a benchmark or a
 * build. A file with no dialogue at all is refused.
 */
export function parseDailyDialog(text: string, file: string): DailyDialogFile {
  const lines = text.split('\n');
  // One final newline is not a blank line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const kept: Conversation[] = [];
  const skipped = noneSkipped();
  lines.forEach((raw, i) => {
    const pieces = raw.replace(/\r$/, '').split(SEPARATOR);
    if (pieces.length > 1 && pieces[pieces.length - 1]!.trim() === '') pieces.pop();
    keepConversation(String(i + 1), pieces, skipped, kept);
  });
  if (kept.length === 0) invalid(`${file} has no dialogue of two turns or more. ${FORMAT}`);
  return { dialogues: kept.map((c) => ({ line: Number(c.id), turns: c.turns })), skipped };
}

/**
 * A dialogue as PolyAI examples: every turn after the first is a response, the turn before it its
 * context, and the turns before that its extra contexts, the most recent first (context/0).
 */
export function dailyDialogExamples(dialogue: DailyDialogue): PolyaiExample[] {
  const { turns } = dialogue;
  return turns.slice(1).map((response, i) => ({
    context: turns[i]!,
    response,
    extraContexts: turns.slice(0, i).reverse(),
  }));
}
