import { describeJson, invalid, isPlainObject, ownValue } from './validation';

/**
 * VisDial v1.0 (Das et al. 2017): dialogues about a COCO image, each round a question, its answer and
 * 100 answer options to rank, one of them the ground truth (gt_index). Questions and answers are
 * indices into the file's shared lists.
 */
interface VisdialRound {
  readonly question: string;
  readonly answer: string;
  /** The 100 answer options, as texts. */
  readonly options: readonly string[];
  readonly gtIndex: number;
}

interface VisdialDialog {
  /** The COCO image id, as a string. */
  readonly imageId: string;
  readonly caption: string;
  readonly rounds: readonly VisdialRound[];
}

export interface VisdialData {
  readonly split: string;
  readonly dialogs: readonly VisdialDialog[];
  /** The file's whole question and answer lists (more than the dialogues use). */
  readonly questions: readonly string[];
  readonly answers: readonly string[];
}

const VISDIAL_OPTIONS = 100;
const FORMAT = 'A VisDial v1.0 file is {"version", "split", "data": {"questions": [...], "answers": [...], "dialogs": [...]}}.';

function stringList(data: object, key: string, file: string): string[] {
  const list = ownValue(data, key);
  if (!Array.isArray(list)) invalid(`${file}: data.${key} is ${describeJson(list)}, not an array of strings. ${FORMAT}`);
  list.forEach((v: unknown, i) => {
    if (typeof v !== 'string') invalid(`${file}: data.${key}[${i}] is ${describeJson(v)}, not a string.`);
  });
  return list as string[];
}

function indexInto(raw: unknown, list: readonly string[], what: string, where: string): string {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw >= list.length) {
    invalid(
      `${where}: ${what} ${typeof raw === 'number' ? raw : describeJson(raw)} is not an index into data.${what === 'question' ? 'questions' : 'answers'} (0 to ${list.length - 1}).`,
    );
  }
  return list[raw]!;
}

function readRound(raw: unknown, where: string, questions: readonly string[], answers: readonly string[]): VisdialRound {
  if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}, not an object {"question", "answer", "gt_index", "answer_options"}.`);
  const question = indexInto(ownValue(raw, 'question'), questions, 'question', where);
  const rawAnswer = ownValue(raw, 'answer');
  const gtIndex = ownValue(raw, 'gt_index');
  if (rawAnswer === undefined || gtIndex === undefined) {
    invalid(
      `${where} has no ${rawAnswer === undefined ? '"answer"' : '"gt_index"'}, so its options cannot be scored (the VisDial test split answers only the last round). Use the val split.`,
    );
  }
  const answer = indexInto(rawAnswer, answers, 'answer', where);
  const rawOptions = ownValue(raw, 'answer_options');
  if (!Array.isArray(rawOptions)) invalid(`${where}: answer_options is ${describeJson(rawOptions)}, not an array of ${VISDIAL_OPTIONS} answer indices.`);
  if (rawOptions.length !== VISDIAL_OPTIONS)
    invalid(`${where} has ${rawOptions.length} answer options; VisDial ranks ${VISDIAL_OPTIONS} per round. Check that this is a VisDial v1.0 file.`);
  const options = rawOptions.map((o: unknown, k) => indexInto(o, answers, 'answer', `${where}, answer_options[${k}]`));
  if (typeof gtIndex !== 'number' || !Number.isInteger(gtIndex) || gtIndex < 0 || gtIndex >= VISDIAL_OPTIONS) {
    invalid(
      `${where}: gt_index ${typeof gtIndex === 'number' ? gtIndex : describeJson(gtIndex)} is outside the ${VISDIAL_OPTIONS} answer options (0 to ${VISDIAL_OPTIONS - 1}).`,
    );
  }
  if (rawOptions[gtIndex] !== rawAnswer) {
    invalid(
      `${where}: gt_index ${gtIndex} points to answer ${JSON.stringify(rawOptions[gtIndex])}, but the round's answer is ${JSON.stringify(rawAnswer)}. The file is inconsistent; export it again.`,
    );
  }
  return { question, answer, options, gtIndex };
}

export function parseVisdial(json: unknown, file: string): VisdialData {
  if (!isPlainObject(json)) invalid(`${file} is ${describeJson(json)}, not an object. ${FORMAT}`);
  const data = ownValue(json, 'data');
  if (!isPlainObject(data)) invalid(`${file}: "data" is ${describeJson(data)}, not an object. ${FORMAT}`);
  const split = ownValue(json, 'split');
  const questions = stringList(data, 'questions', file);
  const answers = stringList(data, 'answers', file);
  const rawDialogs = ownValue(data, 'dialogs');
  if (!Array.isArray(rawDialogs)) invalid(`${file}: data.dialogs is ${describeJson(rawDialogs)}, not an array. ${FORMAT}`);
  if (rawDialogs.length === 0) invalid(`${file}: data.dialogs is empty; there is nothing to rank.`);
  const dialogs = rawDialogs.map((raw: unknown, d): VisdialDialog => {
    const where = `${file}, data.dialogs[${d}]`;
    if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}, not an object {"image_id", "caption", "dialog"}.`);
    const imageId = ownValue(raw, 'image_id');
    if (typeof imageId !== 'number' && typeof imageId !== 'string') invalid(`${where}: image_id is ${describeJson(imageId)}, not a number or string.`);
    const caption = ownValue(raw, 'caption');
    if (typeof caption !== 'string') invalid(`${where}: caption is ${describeJson(caption)}, not a string.`);
    const rounds = ownValue(raw, 'dialog');
    if (!Array.isArray(rounds)) invalid(`${where}: dialog is ${describeJson(rounds)}, not an array of rounds.`);
    if (rounds.length === 0) invalid(`${where}: dialog is empty; a dialogue needs at least one round.`);
    return { imageId: String(imageId), caption, rounds: rounds.map((r: unknown, k) => readRound(r, `${where}.dialog[${k}]`, questions, answers)) };
  });
  return { split: typeof split === 'string' ? split : 'unknown', dialogs, questions, answers };
}
