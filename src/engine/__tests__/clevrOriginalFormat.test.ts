import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clevrDialogsJson, generateClevrDataset } from '../clevr/clevrDataset';
import { clevrOriginalDialogsJson, parseClevrScenes, readClevrDialogFile } from '../clevr/clevrFiles';

/**
 * One image record laid out as the original generator's generate_dataset.py writes it (github.com/satwikkottur/clevr-dialog,
 * BSD-3), made by hand: template_info with the caption's template first, rounds with question, answer
 * (counts as numbers) and template, and graph.history with one entry for the caption and one per round,
 * each round's "dependence" the index of the round it refers to (-1: the caption; null: none).
 */
function handMadeRecord() {
  return {
    image_index: 7,
    split: 'val',
    image_filename: 'CLEVR_val_000007.png',
    dialogs: [
      {
        template_info: [
          { label: 'extreme-left', type: 'extreme-loc', index: 1 },
          { label: 'seek-attr-imm', type: 'seek-attr', inputs: 1, index: 0 },
          { label: 'count-obj-rel-imm', type: 'count-obj-rel', inputs: 1, index: 2 },
          { label: 'count-attribute', type: 'count-attribute', inputs: 1, index: 0 },
          { label: 'seek-attr-sim-early', type: 'seek-attr', inputs: 2, index: 1 },
        ],
        caption: 'A big thing is at the far left.',
        dialog: [
          { question: 'Which colour does it have?', answer: 'red', template: 'seek-attr-imm' },
          { question: 'How many things sit to its right?', answer: 3, template: 'count-obj-rel-imm' },
          { question: 'How many blocks are there?', answer: 0, template: 'count-attribute' },
          { question: 'And the earlier big thing?', answer: 'red', template: 'seek-attr-sim-early' },
        ],
        graph: {
          objects: { '2': { id: 2, size: 'large', color: 'red' } },
          counts: {},
          relationships: {},
          exists: {},
          history: [
            { round: 0, template: 'extreme-left', objects: [{ id: 2, size: 'large' }], mergeable: true },
            { round: 1, template: 'seek-attr-imm', objects: [{ id: 2, color: 'red' }], mergeable: true, focus_id: 2, focus_desc: null, dependence: -1 },
            { round: 2, template: 'count-obj-rel-imm', objects: [{ id: 0 }, { id: 1 }, { id: 3 }], mergeable: true, focus_id: 2, count: 3, dependence: 0 },
            { round: 3, template: 'count-attribute', objects: [], mergeable: true, shape: 'cube', count: 0, dependence: null },
            { round: 4, template: 'seek-attr-sim-early', objects: [{ id: 2, color: 'red' }], mergeable: true, focus_id: 2, dependence: -1 },
          ],
        },
      },
    ],
  };
}

const read = (value: unknown, name = 'clevr_dialog_val.json') => readClevrDialogFile(JSON.stringify(value), name);

describe("CLEVR-Dialog files in the original generator's layout", () => {
  it("reads the original's record: templates, the caption's label, answers as text, and each dependence as a coreference distance", () => {
    const file = read([handMadeRecord()]);
    expect(file.format).toBe('original');
    const [dialog] = file.records[0]!.dialogs;
    expect(dialog!.caption_template).toBe('extreme-left');
    expect(dialog!.caption_objects).toEqual([2]);
    expect(dialog!.dialog.map((r) => r.template)).toEqual(['seek-attr-imm', 'count-obj-rel-imm', 'count-attribute', 'seek-attr-sim-early']);
    expect(dialog!.dialog.map((r) => r.answer)).toEqual(['red', '3', '0', 'red']);
    // Round k with dependence d is (k - 1) - d rounds from what it refers to: the caption is one round before round 1.
    expect(dialog!.dialog.map((r) => r.coref_distance)).toEqual([1, 1, null, 4]);
    expect(dialog!.dialog.map((r) => r.referents)).toEqual([[2], [2], [], [2]]);
    expect(dialog!.dialog[1]!.answer_objects).toEqual([0, 1, 3]);
    expect(dialog!.template_info.map((t) => t.label)).toEqual(['extreme-left', 'seek-attr-imm', 'count-obj-rel-imm', 'count-attribute', 'seek-attr-sim-early']);
  });

  it('round-trips a hand-made original record: read, written in the original layout, read again, equal', () => {
    const first = read([handMadeRecord()]);
    const written = clevrOriginalDialogsJson(first.records);
    const again = readClevrDialogFile(written, 'clevr_dialog_val.json');
    expect(again.format).toBe('original');
    expect(again.records).toEqual(first.records);
    // Written as the original writes it: counts as numbers, the coreference as graph.history[k].dependence.
    const raw = JSON.parse(written) as { dialogs: { dialog: { answer: unknown }[]; graph: { history: { dependence?: unknown }[] } }[] }[];
    expect(raw[0]!.dialogs[0]!.dialog.map((r) => r.answer)).toEqual(['red', 3, 0, 'red']);
    expect(raw[0]!.dialogs[0]!.graph.history.map((h) => h.dependence)).toEqual([undefined, -1, 0, null, -1]);
  });

  it('our generated dialogs written in the original layout read back as the same records; in our layout they read as ours', () => {
    const { records } = generateClevrDataset({ scenes: 3, seed: 5, split: 'test' });
    const original = readClevrDialogFile(clevrOriginalDialogsJson(records), 'clevr_dialog_test.json');
    expect(original.format).toBe('original');
    expect(original.records).toEqual(records);
    const ours = readClevrDialogFile(clevrDialogsJson(records), 'clevr_dialog_test.json');
    expect(ours.format).toBe('ours');
    expect(ours.records).toEqual(records);
  });
});

describe("the original generator's own output (fixtures/clevr-dialog-original, BSD-3, checked by hand)", () => {
  const fixture = (name: string) => readFileSync(new URL(`fixtures/clevr-dialog-original/${name}`, import.meta.url), 'utf8');
  const [scene] = parseClevrScenes(fixture('CLEVR_test_scenes.json'), 'CLEVR_test_scenes.json');
  const file = readClevrDialogFile(fixture('clevr_dialog_test.json'), 'clevr_dialog_test.json');

  it("reads as the original's layout: captions' labels, templates, answers and coreference distances as the generator meant them", () => {
    expect(file.format).toBe('original');
    const [first, second] = file.records[0]!.dialogs;
    expect([first!.caption_template, second!.caption_template]).toEqual(['extreme-behind', 'obj-relation']);
    expect(first!.dialog.map((r) => r.template)).toEqual([
      'seek-attr-rel-imm',
      'seek-attr-imm2',
      'seek-attr-imm2',
      'seek-attr-sim-early',
      'exist-obj-exclude-early',
      'seek-attr-early',
      'exist-obj-exclude-early',
      'count-attribute-group',
      'seek-attr-early',
      'count-all',
    ]);
    expect(first!.dialog.map((r) => r.answer)).toEqual(['red', 'metal', 'small', 'small', 'no', 'brown', 'yes', '1', 'rubber', '5']);
    // "the above cube" in round 4 is the caption's cube; "this group" in round 8 is round 7's.
    expect(first!.dialog.map((r) => r.coref_distance)).toEqual([1, 1, 1, 4, 3, 6, 5, 1, 3, null]);
    expect(second!.dialog.map((r) => r.coref_distance)).toEqual([null, 2, 1, 1, 5, 3, 1, 6, 3, 10]);
    expect(second!.caption_objects).toEqual([4, 2]);
  });

  it('its answers agree with our scene graph of the same scene: counts, relations and attributes', () => {
    const [first, second] = file.records[0]!.dialogs;
    expect(scene!.image_index).toBe(file.records[0]!.image_index);
    // The rearmost object, the caption's: nothing behind it.
    expect(scene!.relationships.behind[first!.caption_objects[0]!]).toEqual([]);
    expect(Number(first!.dialog[9]!.answer)).toBe(scene!.objects.length);
    // Round 7 of the second dialog, "how many objects does it have to its right?", about object 4.
    expect(second!.dialog[6]!.referents).toEqual([4]);
    expect(Number(second!.dialog[6]!.answer)).toBe(scene!.relationships.right[4]!.length);
    expect(second!.dialog[7]!.answer_objects).toEqual(scene!.relationships.behind[4]);
    for (const dialog of [first!, second!])
      for (const round of dialog.dialog.filter((r) => r.template.startsWith('seek-'))) {
        const object = scene!.objects[round.answer_objects[0]!]!;
        expect([object.color, object.shape, object.size, object.material]).toContain(round.answer);
      }
  });
});

describe("bad input in the original's layout: refused naming the file, record, dialog, round and field", () => {
  it('an unknown template', () => {
    const record = handMadeRecord();
    record.dialogs[0]!.dialog[2]!.template = 'count-blue-things';
    expect(() => read([record])).toThrow(
      'clevr_dialog_val.json, record 0 (image_index 7), dialog 0, round 3: "template" is "count-blue-things"; it must be one of ',
    );
  });

  it('an unknown caption template', () => {
    const record = handMadeRecord();
    record.dialogs[0]!.template_info[0]!.label = 'extreme-top';
    expect(() => read([record])).toThrow(
      'clevr_dialog_val.json, record 0 (image_index 7), dialog 0: template_info[0].label is "extreme-top"; it must be one of ',
    );
  });

  it('a missing graph', () => {
    const record: { dialogs: { graph?: unknown }[] } = handMadeRecord();
    delete record.dialogs[0]!.graph;
    expect(() => read([record])).toThrow(
      'clevr_dialog_val.json, record 0 (image_index 7), dialog 0: "graph" is missing; in the original CLEVR-Dialog format each dialog has a "graph" whose "history" holds each round\'s coreference. Use the file as the original generator (generate_dataset.py) wrote it.',
    );
  });

  it('a dependence pointing outside the dialog, forward or before the caption', () => {
    const forward = handMadeRecord();
    forward.dialogs[0]!.graph.history[2]!.dependence = 5;
    expect(() => read([forward])).toThrow(
      "clevr_dialog_val.json, record 0 (image_index 7), dialog 0, round 2: graph.history[2].dependence is 5, outside the dialog; it must be -1 (the caption) or an earlier round's index (0 to 0), or null. Use the file as the original generator (generate_dataset.py) wrote it.",
    );
    const before = handMadeRecord();
    before.dialogs[0]!.graph.history[1]!.dependence = -2;
    expect(() => read([before])).toThrow(
      'clevr_dialog_val.json, record 0 (image_index 7), dialog 0, round 1: graph.history[1].dependence is -2, outside the dialog; it must be -1 (the caption), or null.',
    );
  });

  it('a dialog with neither a "caption_template" nor a "template_info": read in the original layout, and the message says why', () => {
    const record = { image_index: 3, image_filename: 'x.png', dialogs: [{ caption: 'There is a cube.', dialog: [] }] };
    expect(() => read([record], 'd.json')).toThrow(
      'd.json, record 0 (image_index 3), dialog 0: "template_info" is missing; it must be a list whose first entry is the caption\'s template (the file is read in the original generator\'s layout, since its first dialog has no "caption_template").',
    );
  });

  it('a dialog file given where a scene file is expected', () => {
    expect(() => parseClevrScenes(JSON.stringify([handMadeRecord()]), 'clevr_dialog_val.json')).toThrow(
      'clevr_dialog_val.json is a CLEVR-Dialog file (image records with their dialogs), not a scene file. Load the scene file the dialogs are about (as CLEVR_val_scenes.json).',
    );
  });

  it('a history shorter than the dialog', () => {
    const record = handMadeRecord();
    record.dialogs[0]!.graph.history.pop();
    expect(() => read([record])).toThrow(
      'clevr_dialog_val.json, record 0 (image_index 7), dialog 0: graph.history is an array of 4; it must hold one entry for the caption and one per round (5).',
    );
  });
});
