import { describe, expect, it } from 'vitest';
import { generateClevrDataset } from '../clevr/clevrDataset';
import { type DialogState, ask, captionOptions, emptyState, questionOptions } from '../clevr/dialogGrammar';
import { clevrStats } from '../clevr/clevrStats';
import { type Scene, type SceneObject, computeRelationships, projectToImage, sceneDirections } from '../clevr/scene';
import { QUESTION_TEMPLATES } from '../clevr/templates';
import { seededRandom } from '../random';

function object(
  shape: SceneObject['shape'],
  color: SceneObject['color'],
  material: SceneObject['material'],
  size: SceneObject['size'],
  x: number,
  y: number,
): SceneObject {
  const z = size === 'large' ? 0.7 : 0.35;
  return { shape, color, material, size, '3d_coords': [x, y, z], rotation: 0, pixel_coords: projectToImage([x, y, z]) };
}

/** 0: large red rubber cube in the middle; 1: small blue metal sphere two units to its left; 2: large red metal cylinder two units behind it. */
function handScene(): Scene {
  const d = sceneDirections();
  const objects = [
    object('cube', 'red', 'rubber', 'large', 0, 0),
    object('sphere', 'blue', 'metal', 'small', 2 * d.left[0], 2 * d.left[1]),
    object('cylinder', 'red', 'metal', 'large', 2 * d.behind[0], 2 * d.behind[1]),
  ];
  return { split: 'test', image_index: 0, image_filename: 'x.png', objects, relationships: computeRelationships(objects), directions: d };
}

describe('the dialog grammar', () => {
  it('answers from the scene graph and measures how far back "it" and "the earlier …" reach', () => {
    const scene = handScene();
    const random = seededRandom(3);
    let state: DialogState = { ...emptyState(), mentioned: new Map([[0, { known: { color: 'red', shape: 'cube' }, lastRound: 0 }]]), focus: 0 };

    let r = ask(scene, state, { label: 'count-obj-rel-imm', referent: 0, relation: 'left' }, random);
    expect([r.round.answer, r.round.coref_distance, r.round.referents, r.round.answer_objects]).toEqual(['1', 1, [0], [1]]);
    expect(r.round.question).toMatch(/to its left\?$/);
    state = r.state;

    r = ask(scene, state, { label: 'count-all' }, random);
    expect([r.round.answer, r.round.coref_distance]).toEqual(['3', null]);
    state = r.state;

    // "it" still means the cube, last mentioned two rounds back.
    r = ask(scene, state, { label: 'seek-attr-imm', referent: 0, attribute: 'material' }, random);
    expect([r.round.answer, r.round.coref_distance]).toEqual(['rubber', 2]);
    state = r.state;

    r = ask(scene, state, { label: 'count-obj-exclude-imm', referent: 0, attribute: 'color' }, random);
    expect([r.round.answer, r.round.answer_objects]).toEqual(['1', [2]]);
    state = r.state;

    // The cube is now "the earlier red rubber cube", last mentioned in round 4.
    r = ask(scene, state, { label: 'exist-obj-rel-early', referent: 0, relation: 'behind' }, random);
    expect(r.round.question).toMatch(/behind the earlier red rubber (cube|block)\?$/);
    expect([r.round.answer, r.round.coref_distance, r.round.answer_objects]).toEqual(['yes', 2, [2]]);
    state = r.state;

    // The thing behind it (the cube) is the only one there: the cylinder.
    r = ask(scene, state, { label: 'seek-attr-rel-imm', referent: 0, relation: 'behind', attribute: 'shape' }, random);
    expect([r.round.answer, r.round.coref_distance, r.state.focus]).toEqual(['cylinder', 1, 2]);
    expect(r.state.round).toBe(7);
  });

  it('does not ask what the dialog already knows', () => {
    const scene = handScene();
    const state: DialogState = {
      ...emptyState(),
      mentioned: new Map([[0, { known: { color: 'red', shape: 'cube', size: 'large', material: 'rubber' }, lastRound: 0 }]]),
      focus: 0,
    };
    const plans = questionOptions(scene, state, seededRandom(1));
    expect(plans.filter((p) => p.label === 'seek-attr-imm')).toEqual([]);
    expect(plans.some((p) => p.label === 'count-obj-rel-imm')).toBe(true);
  });

  it('captions describe what the scene holds', () => {
    const scene = handScene();
    for (const { caption } of captionOptions(scene, seededRandom(9))) {
      if (caption.label === 'extreme-left') expect(caption.objects).toEqual([1]);
      if (caption.label === 'count-att') expect(caption.objects.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('every generated round agrees with the scene graph', () => {
    const { scenes, records } = generateClevrDataset({ scenes: 25, seed: 4, split: 'val' });
    expect(records.length).toBe(25);
    for (const [k, record] of records.entries()) {
      const scene = scenes[k]!;
      expect(record.dialogs.length).toBe(5);
      for (const dialog of record.dialogs) {
        expect(dialog.dialog.length).toBe(10);
        expect(dialog.template_info.length).toBe(11);
        dialog.dialog.forEach((round, n) => {
          const template = QUESTION_TEMPLATES[round.template];
          if (template.family === 'count') expect(round.answer).toBe(String(round.answer_objects.length));
          if (template.family === 'exist') expect(round.answer).toBe(round.answer_objects.length > 0 ? 'yes' : 'no');
          if (template.family === 'seek') {
            expect(round.answer_objects.length).toBe(1);
            const o = scene.objects[round.answer_objects[0]!]!;
            expect([o.shape, o.color, o.material, o.size]).toContain(round.answer);
          }
          if (template.history === 'coref') {
            expect(round.coref_distance).toBeGreaterThanOrEqual(1);
            expect(round.coref_distance).toBeLessThanOrEqual(n + 1);
          } else expect(round.coref_distance).toBeNull();
        });
      }
    }
    const stats = clevrStats(records);
    expect(stats.questions).toBe(25 * 5 * 10);
    expect(stats.uniqueAnswers).toBeLessThanOrEqual(11 + 2 + 15);
  });

  it('the same seed gives the same dialogs, another seed others', () => {
    const a = generateClevrDataset({ scenes: 3, seed: 8 });
    expect(generateClevrDataset({ scenes: 3, seed: 8 })).toEqual(a);
    expect(generateClevrDataset({ scenes: 3, seed: 9 }).records).not.toEqual(a.records);
  });
});

describe('the question parser', () => {
  it('reads back every question the generator asks, with the same answer', async () => {
    const { parseQuestion } = await import('../clevr/questionParser');
    const { dialogOpenings, generateDialogs } = await import('../clevr/generateDialogs');
    const { generateScene } = await import('../clevr/scene');
    let questions = 0;
    for (let s = 0; s < 12; s++) {
      const scene = generateScene(21, s);
      const record = generateDialogs(scene, 21);
      // Replay through the parser from each dialog's opening: the state after each parsed question must give the recorded answers.
      const { openings } = dialogOpenings(scene, 21);
      for (const [d, dialog] of record.dialogs.entries()) {
        const start = openings[d % openings.length]!;
        expect(start.caption.text, `dialog ${d}'s caption`).toBe(dialog.caption);
        let state = start.state;
        for (const round of dialog.dialog) {
          const parsed = parseQuestion(round.question, scene, state);
          expect(parsed, round.question).toMatchObject({ ok: true });
          if (!parsed.ok) break;
          const result = ask(scene, state, parsed.plan, seededRandom(1));
          expect([round.question, result.round.answer, result.round.coref_distance]).toEqual([round.question, round.answer, round.coref_distance]);
          state = result.state;
          questions++;
        }
      }
    }
    expect(questions).toBeGreaterThan(200);
  });

  it('says why it cannot read a question', async () => {
    const { parseQuestion } = await import('../clevr/questionParser');
    const scene = handScene();
    expect(parseQuestion('What is its colour?', scene, emptyState())).toEqual({
      ok: false,
      reason: 'Nothing has been mentioned that "it" could mean yet. Ask about an object first.',
    });
    expect(parseQuestion('Why is the sky blue?', scene, emptyState())).toEqual({
      ok: false,
      reason: 'The dialog grammar cannot read "Why is the sky blue?". It asks how many, whether there is, and what colour, shape, size or material things are.',
    });
    expect(parseQuestion('What is the color of the cube?', scene, emptyState())).toMatchObject({
      ok: true,
      plan: { label: 'seek-attr-unique', referent: 0, attribute: 'color' },
    });
    expect(parseQuestion('how many red things are there', scene, emptyState())).toMatchObject({
      ok: true,
      plan: { label: 'count-attribute', description: { color: 'red' } },
    });
    expect(parseQuestion('What is the color of the red thing?', scene, emptyState())).toEqual({
      ok: false,
      reason: 'There are 2 red thing things in the picture, so "the red thing" is not clear: add its colour, size or material.',
    });
  });
});
