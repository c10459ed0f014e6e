import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

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

/** node:util's parse errors, said as one sentence each (its own messages carry hints about positionals). */
function usageSentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const option = /'(--?[^' <]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `Unknown option ${option}.`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `Unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? '?'}": settings are given as --name value.`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    if (/does not take an argument/.test(message)) return `${option} takes no value.`;
    if (/ambiguous/.test(message)) return `${option} needs a value, but the next word is another option.`;
    return `${option} needs a value.`;
  }
  return message;
}

/**
 * `parseArgs` in strict mode (unknown options and stray words are errors), with each error turned
 * into a UsageError that names the option.
 */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(args: readonly string[], options: O, usage: string) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(usageSentence(error), usage);
  }
}

/** A whole number of at least `min` from an option's text. */
export function integerOption(value: string, name: string, usage: string, min = 1): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number of at least ${min}, not "${value}".`, usage);
  return n;
}

/** A comma-separated list whose every entry is one of `allowed`, in the order given, without repeats. */
export function listOption<T extends string>(value: string, name: string, allowed: readonly T[], usage: string): T[] {
  const entries = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.length === 0) throw new UsageError(`--${name} is empty; choose from ${allowed.join(', ')}.`, usage);
  const unknown = entries.filter((e) => !(allowed as readonly string[]).includes(e));
  if (unknown.length > 0) throw new UsageError(`--${name}: ${unknown.map((u) => `"${u}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known; choose from ${allowed.join(', ')}.`, usage);
  return [...new Set(entries)] as T[];
}

/** Options a command cannot run without. */
export function requireOptions(values: Record<string, unknown>, names: readonly string[], usage: string): void {
  const missing = names.filter((n) => typeof values[n] !== 'string' || values[n] === '');
  if (missing.length > 0) throw new UsageError(`${missing.map((m) => `--${m}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.`, usage);
}
