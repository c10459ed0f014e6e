import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateClevrDataset } from '../../engine/clevr/clevrDataset';
import { parseClevrDialogs, parseClevrScenes, readClevrDialogFile } from '../../engine/clevr/clevrFiles';
import { readClevrFolder } from '../bench/benchClevr';
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

  it("--format original writes the dialogs in the original generator's layout; bench -- clevr --data reads that folder back as the same scenes and dialogs", () => {
    const options = { scenes: 2, seed: 9, split: 'test', firstIndex: 40, images: false };
    const files = writeClevrDataset({ ...options, out: fresh(), format: 'original' });
    expect(files.dialogs.endsWith('clevr_dialog_test.json')).toBe(true);
    const raw = JSON.parse(readFileSync(files.dialogs, 'utf8')) as { dialogs: Record<string, unknown>[] }[];
    expect(Object.keys(raw[0]!.dialogs[0]!).sort()).toEqual(['caption', 'dialog', 'graph', 'template_info']);
    const made = generateClevrDataset({ scenes: 2, seed: 9, split: 'test', firstIndex: 40 });
    expect(readClevrDialogFile(readFileSync(files.dialogs, 'utf8'), files.dialogs)).toEqual({ format: 'original', records: made.records });
    // The folder's one dialog file names the split.
    const folder = readClevrFolder(join(files.dialogs, '..'));
    expect([folder.split, folder.format]).toEqual(['test', 'original']);
    expect(folder.records).toEqual(made.records);
    expect(folder.scenes.map((s) => s.image_index)).toEqual([40, 41]);
  });

  it('bench -- clevr --data refuses dialogs about a scene the scene file lacks, naming both files and the record', () => {
    const dir = fresh();
    const files = writeClevrDataset({ scenes: 2, seed: 9, split: 'val', firstIndex: 0, images: false, out: dir, format: 'original' });
    const scenes = JSON.parse(readFileSync(files.scenes, 'utf8')) as { scenes: unknown[] };
    writeFileSync(files.scenes, JSON.stringify({ ...scenes, scenes: scenes.scenes.slice(0, 1) }));
    expect(() => readClevrFolder(dir, 'val')).toThrow(
      `${files.dialogs}, record 1 is about image_index 1, which ${files.scenes} does not hold; the two files must come from the same scenes.`,
    );
    expect(() => readClevrFolder(dir, 'train')).toThrow(
      `${join(dir, 'CLEVR_train_scenes.json')} is missing; --data needs the scenes and the dialogs of split train`,
    );
  });
});
