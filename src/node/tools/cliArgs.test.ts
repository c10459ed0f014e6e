import { describe, expect, it } from 'vitest';
import {
  type CliOutput,
  UsageError,
  choiceOption,
  integerOption,
  listOption,
  parseCommandArguments,
  parseCommandLine,
  parseSubcommand,
  requireOptions,
  runCommand,
} from './cliArgs';

const USAGE = 'npm run bench -- demo --pack ID [--json OUT] [--full]';
const OPTIONS = { pack: { type: 'string' }, json: { type: 'string' }, full: { type: 'boolean', default: false } } as const;

/** The sentence a bad command line gets, with the usage line kept for the caller to print. */
function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).usage).toBe(USAGE);
    return (error as UsageError).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseCommandLine', () => {
  it('reads string and boolean options, with defaults', () => {
    expect(parseCommandLine(['--pack', 'mini-clip', '--json', 'out.json'], OPTIONS, USAGE)).toEqual({ pack: 'mini-clip', json: 'out.json', full: false });
    expect(parseCommandLine(['--full', '--pack=test-tiny-clip'], OPTIONS, USAGE)).toEqual({ pack: 'test-tiny-clip', full: true });
  });

  it('says what is wrong in one sentence, naming the option', () => {
    expect(usageError(() => parseCommandLine(['--pack', 'x', '--packs', 'y'], OPTIONS, USAGE))).toBe('Unknown option --packs.');
    expect(usageError(() => parseCommandLine(['--pack'], OPTIONS, USAGE))).toBe('--pack needs a value.');
    expect(usageError(() => parseCommandLine(['--pack', '--json', 'o.json'], OPTIONS, USAGE))).toBe(
      '--pack needs a value, but the next word is another option.',
    );
    expect(usageError(() => parseCommandLine(['--full=yes'], OPTIONS, USAGE))).toBe('--full takes no value.');
    expect(usageError(() => parseCommandLine(['retrieval'], OPTIONS, USAGE))).toBe('Unexpected argument "retrieval": settings are given as --name value.');
  });

  it('takes the words a command names besides its options, all of them required', () => {
    expect(parseCommandArguments(['mini-clip', '--full'], OPTIONS, USAGE, ['pack'])).toEqual({ values: { full: true }, positionals: ['mini-clip'] });
    expect(usageError(() => parseCommandArguments([], OPTIONS, USAGE, ['pack']))).toBe('<pack> is required.');
    expect(usageError(() => parseCommandArguments(['a', 'b'], OPTIONS, USAGE, ['pack']))).toBe(
      'Unexpected argument "b": the command takes <pack> and settings as --name value.',
    );
  });

  it('chooses a subcommand by its first word and leaves the rest to it', () => {
    const benchmarks = ['dialog', 'perf'] as const;
    expect(parseSubcommand(['dialog', '--pack', 'x'], benchmarks, 'benchmark', USAGE)).toEqual({ command: 'dialog', rest: ['--pack', 'x'] });
    expect(usageError(() => parseSubcommand([], benchmarks, 'benchmark', USAGE))).toBe('Say which benchmark to run.');
    expect(usageError(() => parseSubcommand(['--pack', 'x'], benchmarks, 'benchmark', USAGE))).toBe('Say which benchmark to run.');
    expect(usageError(() => parseSubcommand(['dialogue'], benchmarks, 'benchmark', USAGE))).toBe('There is no benchmark "dialogue".');
  });
});

describe('runCommand', () => {
  function fakeOutput() {
    const out = { logged: [] as string[], errors: [] as string[], code: undefined as number | undefined };
    const output: CliOutput = { log: (t) => out.logged.push(t), error: (t) => out.errors.push(t), exit: (c) => void (out.code = c) };
    return { out, output };
  }

  it('returns what the command returns, and ends nothing', async () => {
    const { out, output } = fakeOutput();
    expect(await runCommand('pool:build', () => 42, output)).toBe(42);
    expect(out).toEqual({ logged: [], errors: [], code: undefined });
  });

  it('prints a bad command line as its sentence and the usage, exit 2', async () => {
    const { out, output } = fakeOutput();
    await expect(runCommand('pool:build', () => parseCommandLine(['--packs', 'x'], OPTIONS, USAGE), output)).rejects.toThrow(UsageError);
    expect(out).toEqual({ logged: [], errors: [`Unknown option --packs.\nUsage: ${USAGE}`], code: 2 });
  });

  it('prints any other failure as "<command> failed: <sentence>", exit 1', async () => {
    const { out, output } = fakeOutput();
    await expect(runCommand('pool:build', async () => Promise.reject(new TypeError('no pack at models/x')), output)).rejects.toThrow();
    expect(out).toEqual({ logged: [], errors: ['pool:build failed: no pack at models/x'], code: 1 });
  });

  it('prints the usage for --help or -h, exit 0, before checking anything else', async () => {
    for (const help of [['--help'], ['--pack', 'x', '-h', '--bogus']]) {
      const { out, output } = fakeOutput();
      await expect(runCommand('bench', () => parseCommandLine(help, OPTIONS, USAGE), output)).rejects.toThrow();
      expect(out).toEqual({ logged: [`Usage: ${USAGE}`], errors: [], code: 0 });
    }
    const { out, output } = fakeOutput();
    await expect(runCommand('bench', () => parseSubcommand(['--help'], ['dialog'], 'benchmark', USAGE), output)).rejects.toThrow();
    expect(out.code).toBe(0);
  });
});

describe('option values', () => {
  it('takes whole numbers from the minimum up', () => {
    expect(integerOption('200', 'turns', USAGE)).toBe(200);
    expect(integerOption('0', 'turns', USAGE, 0)).toBe(0);
    expect(usageError(() => integerOption('0', 'turns', USAGE))).toBe('--turns must be a whole number of at least 1, not "0".');
    expect(usageError(() => integerOption('1.5', 'turns', USAGE))).toBe('--turns must be a whole number of at least 1, not "1.5".');
    expect(usageError(() => integerOption('ten', 'candidates', USAGE, 10))).toBe('--candidates must be a whole number of at least 10, not "ten".');
  });

  it('takes one of a few names', () => {
    expect(choiceOption('avsd', 'format', ['polyai', 'avsd'], USAGE)).toBe('avsd');
    expect(usageError(() => choiceOption('', 'format', ['polyai', 'avsd'], USAGE))).toBe('--format must be one of polyai, avsd, not "".');
  });

  it('takes a comma list of known names, in the order given, once each', () => {
    const known = ['grounded', 'retrieval'] as const;
    expect(listOption('retrieval, grounded,retrieval', 'captioners', known, USAGE)).toEqual(['retrieval', 'grounded']);
    expect(usageError(() => listOption('grounded,magic,oracle', 'captioners', known, USAGE))).toBe(
      '--captioners: "magic", "oracle" are not known; choose from grounded, retrieval.',
    );
    expect(usageError(() => listOption(' , ', 'captioners', known, USAGE))).toBe('--captioners is empty; choose from grounded, retrieval.');
  });

  it('names every required option that is missing', () => {
    expect(() => requireOptions({ pack: 'p', images: 'd', captions: 'c' }, ['pack', 'images', 'captions'], USAGE)).not.toThrow();
    expect(usageError(() => requireOptions({ pack: 'p' }, ['pack', 'images', 'captions'], USAGE))).toBe('--images, --captions are required.');
    expect(usageError(() => requireOptions({ pack: '' }, ['pack'], USAGE))).toBe('--pack is required.');
  });
});
