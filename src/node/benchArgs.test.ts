import { describe, expect, it } from 'vitest';
import { UsageError, integerOption, listOption, parseCommandLine, requireOptions } from './benchArgs';

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
    expect(usageError(() => parseCommandLine(['--pack', '--json', 'o.json'], OPTIONS, USAGE))).toBe('--pack needs a value, but the next word is another option.');
    expect(usageError(() => parseCommandLine(['--full=yes'], OPTIONS, USAGE))).toBe('--full takes no value.');
    expect(usageError(() => parseCommandLine(['retrieval'], OPTIONS, USAGE))).toBe('Unexpected argument "retrieval": settings are given as --name value.');
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

  it('takes a comma list of known names, in the order given, once each', () => {
    const known = ['grounded', 'retrieval'] as const;
    expect(listOption('retrieval, grounded,retrieval', 'captioners', known, USAGE)).toEqual(['retrieval', 'grounded']);
    expect(usageError(() => listOption('grounded,magic,oracle', 'captioners', known, USAGE))).toBe('--captioners: "magic", "oracle" are not known; choose from grounded, retrieval.');
    expect(usageError(() => listOption(' , ', 'captioners', known, USAGE))).toBe('--captioners is empty; choose from grounded, retrieval.');
  });

  it('names every required option that is missing', () => {
    expect(() => requireOptions({ pack: 'p', images: 'd', captions: 'c' }, ['pack', 'images', 'captions'], USAGE)).not.toThrow();
    expect(usageError(() => requireOptions({ pack: 'p' }, ['pack', 'images', 'captions'], USAGE))).toBe('--images, --captions are required.');
    expect(usageError(() => requireOptions({ pack: '' }, ['pack'], USAGE))).toBe('--pack is required.');
  });
});
