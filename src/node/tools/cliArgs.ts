import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { errorMessage } from '../../engine/errors';

/**
 * One way for every command under src/node to read its command line (node:util's parseArgs, strict)
 * and to fail: a bad command line is one sentence and the usage (exit 2), any other failure is
 * "<command> failed: <sentence>" (exit 1), and --help prints the usage (exit 0).
 */

/** A command line the command cannot run with: the sentence says what is wrong, the usage line how to call it. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** --help or -h: not an error, but it stops the command the same way. */
class HelpRequest extends UsageError {}

/** node:util's parse errors, said as one sentence each (its own messages carry hints about positionals). */
function usageSentence(error: unknown): string {
  const message = errorMessage(error);
  const code = (error as { code?: unknown } | null)?.code;
  const option = /'(--?[^' <]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `Unknown option ${option}.`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `Unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? '?'}": settings are given as --name value.`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    if (/does not take an argument/.test(message)) return `${option} takes no value.`;
    if (/ambiguous/.test(message)) return `${option} needs a value, but the next word is another option.`;
    return `${option} needs a value.`;
  }
  return message;
}

function askedForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/**
 * `parseArgs` in strict mode (unknown options are errors), with each error turned into a UsageError
 * that names the option. `argumentNames` are the words the command takes besides options, in order,
 * all required; any other word is an error.
 */
export function parseCommandArguments<const O extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: O,
  usage: string,
  argumentNames: readonly string[],
) {
  if (askedForHelp(args)) throw new HelpRequest('', usage);
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: argumentNames.length > 0 });
  } catch (error) {
    throw new UsageError(usageSentence(error), usage);
  }
  const { values, positionals } = parsed;
  if (positionals.length > argumentNames.length) {
    throw new UsageError(
      `Unexpected argument "${positionals[argumentNames.length]}": the command takes ${argumentNames.map((n) => `<${n}>`).join(' ')} and settings as --name value.`,
      usage,
    );
  }
  const missing = argumentNames.slice(positionals.length);
  if (missing.length > 0) throw new UsageError(`${missing.map((m) => `<${m}>`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.`, usage);
  return { values, positionals };
}

/** Options only, no other words: see parseCommandArguments. */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(args: readonly string[], options: O, usage: string) {
  return parseCommandArguments(args, options, usage, []).values;
}

/**
 * The first word chooses one of `commands` and the rest is that command's to parse, as in
 * "npm run bench -- dialog --pack mini-clip". `noun` names what the word chooses, for the messages.
 */
export function parseSubcommand<K extends string>(
  args: readonly string[],
  commands: readonly K[],
  noun: string,
  usage: string,
): { command: K; rest: string[] } {
  const [first, ...rest] = args;
  if (first === '--help' || first === '-h') throw new HelpRequest('', usage);
  if (first === undefined || first.startsWith('-')) throw new UsageError(`Say which ${noun} to run.`, usage);
  if (!(commands as readonly string[]).includes(first)) throw new UsageError(`There is no ${noun} "${first}".`, usage);
  return { command: first as K, rest };
}

/** A whole number of at least `min` from an option's text. */
export function integerOption(value: string, name: string, usage: string, min = 1): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`--${name} must be a whole number of at least ${min}, not "${value}".`, usage);
  return n;
}

/** One of `allowed`. */
export function choiceOption<T extends string>(value: string, name: string, allowed: readonly T[], usage: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not "${value}".`, usage);
  return value as T;
}

/** A comma-separated list whose every entry is one of `allowed`, in the order given, without repeats. */
export function listOption<T extends string>(value: string, name: string, allowed: readonly T[], usage: string): T[] {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) throw new UsageError(`--${name} is empty; choose from ${allowed.join(', ')}.`, usage);
  const unknown = entries.filter((e) => !(allowed as readonly string[]).includes(e));
  if (unknown.length > 0)
    throw new UsageError(
      `--${name}: ${unknown.map((u) => `"${u}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known; choose from ${allowed.join(', ')}.`,
      usage,
    );
  return [...new Set(entries)] as T[];
}

/** Options a command cannot run without. */
export function requireOptions(values: Record<string, unknown>, names: readonly string[], usage: string): void {
  const missing = names.filter((n) => typeof values[n] !== 'string' || values[n] === '');
  if (missing.length > 0) throw new UsageError(`${missing.map((m) => `--${m}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.`, usage);
}

/** Where a command's end is written; process.stdout, process.stderr and process.exit by default, fakes in tests. */
export interface CliOutput {
  log(text: string): void;
  error(text: string): void;
  exit(code: number): void;
}

const PROCESS_OUTPUT: CliOutput = {
  log: (text) => console.log(text),
  error: (text) => console.error(text),
  exit: (code) => process.exit(code),
};

/**
 * Runs a command and ends it in the shared style: --help prints the usage (exit 0), a UsageError its
 * sentence and the usage (exit 2), any other error "<name> failed: <sentence>" (exit 1). Returns
 * what `main` returns when it succeeds.
 */
export async function runCommand<T>(name: string, main: () => T | Promise<T>, output: CliOutput = PROCESS_OUTPUT): Promise<T> {
  try {
    return await main();
  } catch (error) {
    if (error instanceof HelpRequest) {
      output.log(`Usage: ${error.usage}`);
      output.exit(0);
    } else if (error instanceof UsageError) {
      output.error(`${error.message}\nUsage: ${error.usage}`);
      output.exit(2);
    } else {
      output.error(`${name} failed: ${errorMessage(error)}`);
      output.exit(1);
    }
    throw error; // only a fake exit gets here
  }
}
