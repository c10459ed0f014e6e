import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

// `npm ci` installs exactly the lockfile: with no onnxruntime-node in it, no install step can fetch its
// native binaries (hundreds of MB), so .npmrc needs no setting for it.
describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  it('holds no onnxruntime-node, at any depth', () => {
    expect(Object.keys(lock.packages).filter((path) => /(^|\/)onnxruntime-node$/.test(path))).toEqual([]);
  });
});

describe('.npmrc', () => {
  it('sets only options npm knows, so no npm command warns "Unknown project config"', () => {
    const keys = readFileSync(join(root, '.npmrc'), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#') && !line.startsWith(';')).map((line) => line.split('=')[0]!.trim());
    expect(keys.filter((key) => !['fund', 'audit'].includes(key))).toEqual([]);
  });
});
