import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseClevrDialogs, parseClevrScenes } from '../engine/clevr/clevrFiles';
import { writeClevrDataset } from './clevrGenerate';

const dirs: string[] = [];
function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'clevr-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('npm run clevr:generate', () => {
  it('the same seed writes the same bytes (scenes, dialogs and pictures); another seed other ones', () => {
    const options = { scenes: 3, seed: 42, split: 'train', firstIndex: 0, images: true };
    const a = writeClevrDataset({ ...options, out: fresh() });
    const b = writeClevrDataset({ ...options, out: fresh() });
    const c = writeClevrDataset({ ...options, seed: 43, out: fresh() });
    expect(a.images.length).toBe(3);
    for (const key of ['scenes', 'dialogs'] as const) {
      expect(digest(a[key])).toBe(digest(b[key]));
      expect(digest(a[key])).not.toBe(digest(c[key]));
    }
    a.images.forEach((path, k) => expect(digest(path)).toBe(digest(b.images[k]!)));
    expect(digest(a.images[0]!)).not.toBe(digest(c.images[0]!));
    // The files are in the formats the readers take, CLEVR's and CLEVR-Dialog's.
    const scenes = parseClevrScenes(readFileSync(a.scenes, 'utf8'), a.scenes);
    const records = parseClevrDialogs(readFileSync(a.dialogs, 'utf8'), a.dialogs);
    expect(scenes.map((s) => s.image_filename)).toEqual(['CLEVR_train_000000.png', 'CLEVR_train_000001.png', 'CLEVR_train_000002.png']);
    expect(records.map((r) => r.dialogs.length)).toEqual([5, 5, 5]);
    expect(records[0]!.dialogs[0]!.dialog[0]).toHaveProperty('coref_distance');
  });
});
