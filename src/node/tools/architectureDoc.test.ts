import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** docs/architecture.md against the code it describes: a folder added or renamed fails here until the page says so. */
const root = join(import.meta.dirname, '..', '..', '..');
const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');

const folders = (path: string) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

describe('docs/architecture.md', () => {
  it('names every feature folder in its drawing, and no other', () => {
    const line = /src\/features\/<name>\/\s+(.+)/.exec(architecture)?.[1];
    expect(line, 'the drawing has a "src/features/<name>/" line listing the features').toBeDefined();
    const named = line!
      .split('·')
      .map((name) => name.trim())
      .sort();
    expect(named).toEqual(folders('src/features'));
  });

  it('names every folder of src/ and of src/node/, so a folder added or renamed is described', () => {
    const unnamed = [...folders('src').map((f) => `src/${f}/`), ...folders('src/node').map((f) => `src/node/${f}/`)].filter(
      (f) => !architecture.includes(`\`${f}`),
    );
    expect(unnamed).toEqual([]);
  });
});
