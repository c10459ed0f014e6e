import { describeJson, invalid, isPlainObject, ownValue, parseJsonDocument } from './validation';

/**
 * One example of PolyAI's conversational-datasets (Henderson et al. 2019, sec. 3): a context, its
 * response, and extra contexts going back in time: "context/0" is the turn before "context",
 * "context/1" the one before that, and so on.
 */
export interface PolyaiExample {
  readonly context: string;
  readonly response: string;
  /** extraContexts[i] is "context/i": index 0 is the most recent. */
  readonly extraContexts: readonly string[];
}

/** The turns before the response, oldest first: the extra contexts from the last back to context/0, then the context. */
export function exampleTurns(example: PolyaiExample): string[] {
  return [...example.extraContexts].reverse().concat(example.context);
}

const EXTRA_CONTEXT = /^context\/(\d+)$/;
const FORMAT = 'Each line must be one JSON object {"context": "...", "response": "...", "context/0": "...", ...}.';

function readText(record: object, key: string, where: string): string {
  const raw = ownValue(record, key);
  if (raw === undefined) invalid(`${where}: "${key}" is missing. ${FORMAT}`);
  if (typeof raw !== 'string') invalid(`${where}: "${key}" is ${describeJson(raw)}, not a string. ${FORMAT}`);
  if (raw.trim() === '') invalid(`${where}: "${key}" is empty. Remove the example or give it some text.`);
  return raw;
}

/**
 * Reads PolyAI JSON lines (the repository's "--dataset_format JSON" output). Blank lines are
 * skipped; other keys (Reddit's "context_author", "subreddit"...) are ignored. Extra contexts must be
 * numbered from context/0 without gaps, so that their order in time is unambiguous.
 */
export function parsePolyaiJsonl(text: string, file: string): PolyaiExample[] {
  const examples: PolyaiExample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const where = `${file}, line ${i + 1}`;
    const value = parseJsonDocument(line, where);
    if (!isPlainObject(value)) invalid(`${where} is ${describeJson(value)}, not an object. ${FORMAT}`);
    const context = readText(value, 'context', where);
    const response = readText(value, 'response', where);
    const numbers = Object.keys(value)
      .map((key) => EXTRA_CONTEXT.exec(key))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    numbers.forEach((n, k) => {
      if (n !== k) invalid(`${where}: has "context/${n}" but no "context/${k}". Extra contexts are numbered from context/0 (the most recent) without gaps.`);
    });
    const extraContexts = numbers.map((n) => readText(value, `context/${n}`, where));
    examples.push({ context, response, extraContexts });
  }
  if (examples.length === 0) invalid(`${file} has no examples. ${FORMAT}`);
  return examples;
}

/** Writes examples as PolyAI JSON lines, extra contexts from the oldest down to context/0 as in the repository's README. */
export function formatPolyaiJsonl(examples: readonly PolyaiExample[]): string {
  return examples
    .map((e) => {
      const record: Record<string, string> = {};
      for (let n = e.extraContexts.length - 1; n >= 0; n--) record[`context/${n}`] = e.extraContexts[n]!;
      record['context'] = e.context;
      record['response'] = e.response;
      return JSON.stringify(record);
    })
    .join('\n')
    .concat(examples.length > 0 ? '\n' : '');
}
