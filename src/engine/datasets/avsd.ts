import { describeJson, invalid, isPlainObject, ownValue } from './validation';

/**
 * DSTC7 Audio Visual Scene-aware Dialog (Alamri et al. 2019), text only: each dialogue is about a
 * Charades video, with its caption, a summary written after the dialogue, and question/answer rounds.
 * In the DSTC7 test file each dialogue stops at the round to be answered: the last one.
 */
interface AvsdRound {
  readonly question: string;
  readonly answer: string;
}

export interface AvsdDialogue {
  /** The Charades video id ("image_id" in the file). */
  readonly id: string;
  readonly caption: string;
  readonly summary: string | null;
  readonly rounds: readonly AvsdRound[];
}

const FORMAT = 'An AVSD file is {"dialogs": [{"image_id", "caption", "summary", "dialog": [{"question", "answer"}, ...]}, ...]}.';

function text(record: object, key: string, where: string): string {
  const raw = ownValue(record, key);
  if (typeof raw !== 'string') invalid(`${where}: "${key}" is ${describeJson(raw)}, not a string. ${FORMAT}`);
  if (raw.trim() === '')
    invalid(`${where}: "${key}" is empty. Give it some text or remove the ${key === 'question' || key === 'answer' ? 'round' : 'dialogue'}.`);
  return raw.trim();
}

export function parseAvsd(json: unknown, file: string): AvsdDialogue[] {
  if (!isPlainObject(json)) invalid(`${file} is ${describeJson(json)}, not an object. ${FORMAT}`);
  const dialogs = ownValue(json, 'dialogs');
  if (!Array.isArray(dialogs)) invalid(`${file}: "dialogs" is ${describeJson(dialogs)}, not an array. ${FORMAT}`);
  if (dialogs.length === 0) invalid(`${file}: "dialogs" is empty; there is nothing to rank.`);
  return dialogs.map((raw: unknown, d): AvsdDialogue => {
    const where = `${file}, dialogs[${d}]`;
    if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}, not an object. ${FORMAT}`);
    const id = text(raw, 'image_id', where);
    const caption = text(raw, 'caption', where);
    const summary = ownValue(raw, 'summary');
    if (summary !== undefined && summary !== null && typeof summary !== 'string') invalid(`${where}: "summary" is ${describeJson(summary)}, not a string.`);
    const rounds = ownValue(raw, 'dialog');
    if (!Array.isArray(rounds)) invalid(`${where}: "dialog" is ${describeJson(rounds)}, not an array of rounds. ${FORMAT}`);
    if (rounds.length === 0) invalid(`${where}: "dialog" is empty; a dialogue needs at least the round to be answered.`);
    return {
      id,
      caption,
      summary: typeof summary === 'string' ? summary : null,
      rounds: rounds.map((r: unknown, k): AvsdRound => {
        const at = `${where}.dialog[${k}]`;
        if (!isPlainObject(r)) invalid(`${at} is ${describeJson(r)}, not an object {"question", "answer"}.`);
        return { question: text(r, 'question', at), answer: text(r, 'answer', at) };
      }),
    };
  });
}
