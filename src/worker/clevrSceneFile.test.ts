import { describe, expect, it } from 'vitest';
import { clevrScenesJson } from '../engine/clevr/clevrFiles';
import { generateScene } from '../engine/clevr/scene';
import { readClevrSceneFile } from './clevrSceneFile';
import type { ClevrSceneFileProgress } from '../protocol/protocol';

describe('reading a CLEVR scene file in its own worker', () => {
  it('reports bytes read, then parsing, then scenes checked, and hands back each scene as its JSON', async () => {
    const scenes = Array.from({ length: 250 }, (_, i) => generateScene(3, i, { split: 'val' }));
    const text = clevrScenesJson(scenes);
    const heard: ClevrSceneFileProgress[] = [];
    const read = await readClevrSceneFile(new Blob([text]), 'val.json', (p) => heard.push(p));
    expect(read.map((s) => JSON.parse(s) as unknown)).toEqual(JSON.parse(JSON.stringify(scenes)));
    const stages = heard.map((p) => p.stage);
    expect(stages[0]).toBe('reading');
    expect(stages.indexOf('parsing')).toBe(stages.lastIndexOf('reading') + 1);
    expect(heard[stages.indexOf('parsing') - 1]).toEqual({
      stage: 'reading',
      done: new TextEncoder().encode(text).byteLength,
      total: new TextEncoder().encode(text).byteLength,
    });
    const checking = heard.filter((p) => p.stage === 'checking');
    // At most one report a percent, the last one for the last scene.
    expect(checking.length).toBeLessThanOrEqual(101);
    expect(checking.at(-1)).toEqual({ stage: 'checking', done: 250, total: 250 });
  });

  it("refuses a scene of 10,000 objects with the limit's sentence, and a file with no scenes or an empty scene", async () => {
    const object = { shape: 'cube', color: 'red', material: 'metal', size: 'small', '3d_coords': [0, 0, 0.25] };
    const crowded = JSON.stringify({ scenes: [{ image_index: 0, objects: Array.from({ length: 10_000 }, () => object) }] });
    const none = () => undefined;
    await expect(readClevrSceneFile(new Blob([crowded]), 'crowded.json', none)).rejects.toThrow(
      'crowded.json, scene 0 (image_index 0) has 10,000 objects; a scene may have at most 10',
    );
    await expect(readClevrSceneFile(new Blob(['{"scenes": []}']), 'none.json', none)).rejects.toThrow('none.json holds no scenes.');
    await expect(readClevrSceneFile(new Blob(['{"scenes": [{"image_index": 4, "objects": []}]}']), 'empty.json', none)).rejects.toThrow(
      'empty.json, scene 0 (image_index 4) has no objects',
    );
  });
});
