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

/**
 * Reads dialogues_text.txt. The original file ends every turn with "__eou__", so an empty piece after
 * the last separator is expected; any other empty turn, a blank line or a one-turn line means the
 * file is not what it should be.
 */
export function parseDailyDialog(text: string, file: string): DailyDialogue[] {
  const lines = text.split('\n');
  // One final newline is not a blank line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const dialogues: DailyDialogue[] = [];
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const where = `${file}, line ${i + 1}`;
    if (line.trim() === '') invalid(`${where} is empty. ${FORMAT} Remove the blank line.`);
    const pieces = line.split(SEPARATOR).map((t) => t.trim());
    if (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
    const empty = pieces.findIndex((t) => t === '');
    if (empty >= 0) invalid(`${where}: turn ${empty + 1} is empty (nothing between two "${SEPARATOR}"). Remove the extra separator.`);
    if (pieces.length < 2) invalid(`${where} has one turn; a dialogue needs at least two, so that one answers the other. ${FORMAT}`);
    dialogues.push({ line: i + 1, turns: pieces });
  });
  if (dialogues.length === 0) invalid(`${file} is empty. ${FORMAT}`);
  return dialogues;
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
