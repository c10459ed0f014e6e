import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textKey } from '../../engine/pool/textKey';
import { readPoolExclusions } from './poolExclusions';

const dir = mkdtempSync(join(tmpdir(), 'exclusions-'));
function file(content: unknown): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('the reviewed exclusion list', () => {
  it('reads the shipped list: every entry a text key with a known reason', () => {
    const keys = readPoolExclusions(join('src', 'node', 'data', 'pool-exclusions.json'));
    expect(keys.size).toBeGreaterThanOrEqual(12);
    for (const key of keys) expect(textKey(key)).toBe(key);
  });

  it('refuses a text written as a key, naming the key to use, an unknown reason, and a file that is not a list', () => {
    expect(() => readPoolExclusions(file({ exclusions: [{ key: 'We can sleep together.', reason: 'sexual' }] }))).toThrow(
      'is not a text key; its key is "we can slep together"',
    );
    expect(() => readPoolExclusions(file({ exclusions: [{ key: 'we can slep together', reason: 'rude' }] }))).toThrow('reason must be one of');
    expect(() => readPoolExclusions(file({ exclusions: {} }))).toThrow('"exclusions" must be a list');
    expect(() => readPoolExclusions(file('{ not json'))).toThrow('Could not read the reviewed exclusion list');
    expect([...readPoolExclusions(file({ exclusions: [{ key: 'we can slep together', reason: 'sexual' }] }))]).toEqual(['we can slep together']);
  });
});
