import { describe, expect, it } from 'vitest';
import { clevrScenesJson, parseClevrDialogs, parseClevrScenes } from '../clevr/clevrFiles';
import { RENDER_SLICE_MS, objectAtPixel, renderScene, renderSceneInSlices } from '../clevr/render';
import { MAX_SCENE_OBJECTS, type SceneObject, computeRelationships, generateScene, projectToImage, sceneDirections } from '../clevr/scene';

function object(
  shape: SceneObject['shape'],
  color: SceneObject['color'],
  x: number,
  y: number,
  size: SceneObject['size'] = 'large',
  material: SceneObject['material'] = 'rubber',
): SceneObject {
  const z = size === 'large' ? 0.7 : 0.35;
  return { shape, color, material, size, '3d_coords': [x, y, z], rotation: 0, pixel_coords: projectToImage([x, y, z]) };
}

describe('CLEVR scenes', () => {
  it('directions follow the camera: behind points away from it, right to its right', () => {
    const d = sceneDirections();
    // The camera stands at (7.48, -6.51): away from it is towards -x, +y.
    expect(d.behind[0]).toBeLessThan(0);
    expect(d.behind[1]).toBeGreaterThan(0);
    expect(d.front[0]).toBeCloseTo(-d.behind[0], 12);
    expect(d.left[0]).toBeCloseTo(-d.right[0], 12);
    expect(d.right[0] * d.behind[0] + d.right[1] * d.behind[1]).toBeCloseTo(0, 12);
  });

  it('relationships[r][i] lists the objects in direction r of object i, as CLEVR writes them', () => {
    const d = sceneDirections();
    const a = object('cube', 'red', 0, 0);
    const b = object('sphere', 'blue', 2 * d.left[0], 2 * d.left[1]); // two units to the left of a
    const rel = computeRelationships([a, b]);
    expect(rel.left).toEqual([[1], []]);
    expect(rel.right).toEqual([[], [0]]);
    expect(rel.front).toEqual([[], []]);
    expect(rel.behind).toEqual([[], []]);
  });

  it('a left object is drawn left in the picture, and a nearer one lower', () => {
    const d = sceneDirections();
    const left = projectToImage([2 * d.left[0], 2 * d.left[1], 0]);
    const right = projectToImage([2 * d.right[0], 2 * d.right[1], 0]);
    const front = projectToImage([2 * d.front[0], 2 * d.front[1], 0]);
    const behind = projectToImage([2 * d.behind[0], 2 * d.behind[1], 0]);
    expect(left[0]).toBeLessThan(right[0]);
    expect(front[1]).toBeGreaterThan(behind[1]);
    expect(projectToImage([0, 0, 0]).slice(0, 2)).toEqual([240, 160]);
  });

  it('generated scenes are deterministic, 3 to 10 objects, apart, and clear in every relation', () => {
    expect(generateScene(5, 3)).toEqual(generateScene(5, 3));
    expect(generateScene(5, 3)).not.toEqual(generateScene(5, 4));
    const d = sceneDirections();
    for (let i = 0; i < 30; i++) {
      const s = generateScene(11, i);
      expect(s.objects.length).toBeGreaterThanOrEqual(3);
      expect(s.objects.length).toBeLessThanOrEqual(10);
      for (const [p, a] of s.objects.entries()) {
        for (const b of s.objects.slice(p + 1)) {
          const dx = b['3d_coords'][0] - a['3d_coords'][0];
          const dy = b['3d_coords'][1] - a['3d_coords'][1];
          expect(Math.abs(dx * d.left[0] + dy * d.left[1])).toBeGreaterThanOrEqual(0.4);
          expect(Math.abs(dx * d.behind[0] + dy * d.behind[1])).toBeGreaterThanOrEqual(0.4);
        }
      }
    }
  });

  it('draws each object where its pixel coordinates say, in its colour, with a shiny highlight on metal', () => {
    const scene = [object('sphere', 'red', 0, 0, 'large', 'rubber'), object('cube', 'blue', 1.5, 1.8, 'large', 'metal')];
    const picture = renderScene(scene);
    expect([picture.width, picture.height, picture.data.length]).toEqual([480, 320, 480 * 320 * 4]);
    const [x, y] = scene[0]!.pixel_coords;
    expect(objectAtPixel(scene, x, y)).toBe(0);
    expect(objectAtPixel(scene, scene[1]!.pixel_coords[0], scene[1]!.pixel_coords[1])).toBe(1);
    expect(objectAtPixel(scene, 5, 315)).toBe(-1);
    const at = (px: number, py: number) => Array.from(picture.data.slice((py * 480 + px) * 4, (py * 480 + px) * 4 + 3));
    const [r, g, b] = at(x, y);
    expect(r).toBeGreaterThan(g! * 2);
    expect(r).toBeGreaterThan(b! * 2);
    const [br, , bb] = at(scene[1]!.pixel_coords[0], scene[1]!.pixel_coords[1]);
    expect(bb).toBeGreaterThan(br!);
    // The same scene gives the same pixels.
    expect(renderScene(scene).data).toEqual(picture.data);
  });
});

describe('CLEVR files', () => {
  it('a scene file written here reads back the same', () => {
    const scenes = [generateScene(2, 0), generateScene(2, 1)];
    expect(parseClevrScenes(clevrScenesJson(scenes), 'scenes.json')).toEqual(scenes);
  });

  it('reads a CLEVR scene without pixel coordinates or relationships, computing them', () => {
    const raw = {
      scenes: [{ image_index: 7, objects: [{ shape: 'cube', color: 'red', material: 'metal', size: 'small', '3d_coords': [0, 0, 0.25], rotation: 10 }] }],
    };
    const [scene] = parseClevrScenes(JSON.stringify(raw), 'val.json');
    expect(scene!.objects[0]!.pixel_coords).toEqual(projectToImage([0, 0, 0.25]));
    expect(scene!.relationships.left).toEqual([[]]);
  });

  it('refuses a malformed scene naming the file, the scene and the field', () => {
    const bad = {
      scenes: [
        { image_index: 0, objects: [] },
        { image_index: 4, objects: [{ shape: 'cube', color: 'pink', material: 'metal', size: 'small', '3d_coords': [0, 0, 0] }] },
      ],
    };
    expect(() => parseClevrScenes(JSON.stringify(bad), 'mine.json')).toThrow(
      'mine.json, scene 1 (image_index 4): objects[0].color is "pink"; it must be one of gray, red, blue, green, brown, purple, cyan, yellow.',
    );
    expect(() =>
      parseClevrScenes(
        '{"scenes": [{"image_index": 0, "objects": [{"shape": "cube", "color": "red", "material": "metal", "size": "small", "3d_coords": [0, 0]}]}]}',
        'a.json',
      ),
    ).toThrow('a.json, scene 0 (image_index 0): objects[0]."3d_coords" has 2 numbers; it must have 3 numbers (x, y, z).');
    expect(() => parseClevrScenes('{"info": {}}', 'b.json')).toThrow('b.json holds an object without a "scenes" list');
    expect(() => parseClevrScenes('{"scenes": [', 'c.json')).toThrow('c.json is not valid JSON');
  });

  it('says exactly what is wrong with a coordinate or an image index', () => {
    const sceneWith = (coords: string, index = '0') =>
      `{"scenes": [{"image_index": ${index}, "objects": [{"shape": "cube", "color": "red", "material": "metal", "size": "small", "3d_coords": ${coords}}]}]}`;
    const refusal = (source: string) => {
      try {
        parseClevrScenes(source, 'f.json');
      } catch (error) {
        return (error as Error).message;
      }
      return 'read without complaint';
    };
    const at = 'f.json, scene 0 (image_index 0): objects[0]."3d_coords"';
    expect(refusal(sceneWith('[1, 2]'))).toBe(`${at} has 2 numbers; it must have 3 numbers (x, y, z).`);
    expect(refusal(sceneWith('[1, 2, 3, 4]'))).toBe(`${at} has 4 numbers; it must have 3 numbers (x, y, z).`);
    expect(refusal(sceneWith('["a", "b"]'))).toBe(`${at} has 2 items; it must have 3 numbers (x, y, z).`);
    expect(refusal(sceneWith('[1, "2", 3]'))).toBe(`${at}[1] is the text "2"; it must be a number.`);
    expect(refusal(sceneWith('[0, 0, "NaN"]'))).toBe(`${at}[2] is the text "NaN"; it must be a number.`);
    expect(refusal(sceneWith('[1e999, 0, 0]'))).toBe(`${at}[0] is not a finite number (it reads as infinity); it must be a finite number.`);
    expect(refusal(sceneWith('"1, 2, 3"'))).toBe(`${at} is the text "1, 2, 3"; it must be a list of three numbers (x, y, z).`);
    expect(refusal(sceneWith('[0, 0, 0.35]', '-1'))).toBe('f.json, scene 0: "image_index" is -1; it must be 0 or more.');
    expect(refusal(sceneWith('[0, 0, 0.35]', '2.5'))).toBe('f.json, scene 0: "image_index" is 2.5; it must be a whole number.');
    expect(refusal(sceneWith('[0, 0, 0.35]', '"7"'))).toBe('f.json, scene 0: "image_index" is the text "7"; it must be a whole number, 0 or more.');
    expect(refusal(sceneWith('[0, 0, 0.35]', '1e999'))).toBe(
      'f.json, scene 0: "image_index" is not a finite number (it reads as infinity); it must be a whole number, 0 or more.',
    );
  });

  it(`reads a scene of ${MAX_SCENE_OBJECTS} objects, CLEVR's most, and refuses one more, before reading any object`, () => {
    const objectAt = (i: number) => ({
      shape: 'sphere',
      color: 'red',
      material: 'rubber',
      size: 'small',
      '3d_coords': [-3 + (i % 10) * 0.6, -3 + Math.floor(i / 10) * 0.6, 0.35],
    });
    const file = (count: number) => JSON.stringify({ scenes: [{ image_index: 3, objects: Array.from({ length: count }, (_, i) => objectAt(i)) }] });
    expect(MAX_SCENE_OBJECTS).toBe(10);
    expect(parseClevrScenes(file(MAX_SCENE_OBJECTS), 'ok.json')[0]!.objects).toHaveLength(MAX_SCENE_OBJECTS);
    const limit = `a scene may have at most ${MAX_SCENE_OBJECTS} (CLEVR's generator places 3 to 10), since each one is drawn. Remove objects or split the scene, then load the file again.`;
    expect(() => parseClevrScenes(file(MAX_SCENE_OBJECTS + 1), 'big.json')).toThrow(`big.json, scene 0 (image_index 3) has 11 objects; ${limit}`);
    // The file: 10,000 valid objects. Refused at once, where reading it built 400 million relation entries.
    expect(() => parseClevrScenes(file(10_000), 'huge.json')).toThrow(`huge.json, scene 0 (image_index 3) has 10,000 objects; ${limit}`);
  });

  it('refuses relationship lists longer than the scene, which no scene of that many objects can have', () => {
    const scene = generateScene(2, 0);
    const padded = {
      ...scene,
      relationships: { ...scene.relationships, left: scene.relationships.left.map((l, i) => (i === 0 ? [...l, ...l, ...l, 1, 1] : l)) },
    };
    expect(() => parseClevrScenes(JSON.stringify({ scenes: [padded] }), 'r.json')).toThrow(
      `r.json, scene 0 (image_index 0): relationships.left[0] must list other objects' indices (0 to ${scene.objects.length - 1}), each once.`,
    );
  });

  it('reports each scene checked, for a progress bar', () => {
    const heard: string[] = [];
    parseClevrScenes(clevrScenesJson([generateScene(2, 0), generateScene(2, 1), generateScene(2, 2)]), 's.json', (checked, total) =>
      heard.push(`${checked}/${total}`),
    );
    expect(heard).toEqual(['1/3', '2/3', '3/3']);
  });

  it('refuses a malformed dialog naming the file, the record, the dialog, the round and the field', () => {
    const bad = [
      {
        image_index: 3,
        image_filename: 'x.png',
        split: 'val',
        dialogs: [
          { caption: 'There is a cube.', caption_template: 'unique-obj', dialog: [{ question: 'How many?', answer: '2', template: 'count-everything' }] },
        ],
      },
    ];
    expect(() => parseClevrDialogs(JSON.stringify(bad), 'd.json')).toThrow(
      'd.json, record 0 (image_index 3), dialog 0, round 1: "template" is "count-everything"; it must be one of count-all,',
    );
    expect(() => parseClevrDialogs('{}', 'e.json')).toThrow('e.json holds an object; a CLEVR-Dialog file is a list of image records.');
    // An answer that is not a word, number or true/false is refused, not read as "[object Object]".
    const objectAnswer = [
      { ...bad[0], dialogs: [{ caption: 'There is a cube.', caption_template: 'unique-obj', dialog: [{ question: 'How many?', answer: { count: 2 } }] }] },
    ];
    expect(() => parseClevrDialogs(JSON.stringify(objectAnswer), 'f.json')).toThrow(
      'f.json, record 0 (image_index 3), dialog 0, round 1: "answer" is an object; it must be a word, a number or true/false.',
    );
  });
});

describe('drawing in slices', () => {
  const objects = generateScene(1, 0).objects;
  /** A clock that moves 1 ms each time it is read: the renderer reads it once a row. */
  const steppingClock = () => {
    let t = 0;
    return () => t++;
  };

  it('yields after each slice of the budget, and draws the same pixels as in one go', async () => {
    let yields = 0;
    const picture = await renderSceneInSlices(objects, { budgetMs: 8, now: steppingClock(), yieldToOthers: async () => void yields++ }, 48, 32, 1);
    // 32 rows, 8 a slice (each row reads the clock once): 4 slices, with 3 yields between them.
    expect(yields).toBe(3);
    expect(picture!.data).toEqual(renderScene(objects, 48, 32, 1).data);
    expect(RENDER_SLICE_MS).toBeLessThanOrEqual(16);
  });

  it('stops at the next slice once cancelled, and returns no picture', async () => {
    let yields = 0;
    const picture = await renderSceneInSlices(
      objects,
      { budgetMs: 8, now: steppingClock(), yieldToOthers: async () => void yields++, cancelled: () => yields >= 2 },
      48,
      32,
      1,
    );
    expect(picture).toBeNull();
    expect(yields).toBe(2);
  });
});
