import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AvsdDialogue, parseAvsd } from '../datasets/avsd';
import { parseVisdial } from '../datasets/visdial';
import { answerKey, avsdGroups, visdialGroups } from '../selection/protocols';

type Json = Record<string, unknown>;

/** Two dialogues over 120 answers; round k of dialogue d has its answer among options 0-99 at gt_index (d + k) % 100. */
function visdialFixture(): Json {
  const answers = Array.from({ length: 120 }, (_, i) => `answer ${i}`);
  const questions = ['is it sunny', 'how many dogs', 'what color is the car', 'any people'];
  const dialog = (d: number) => ({
    image_id: 1000 + d,
    caption: `caption ${d}`,
    dialog: [0, 1].map((k) => {
      const gt = (d + k) % 100;
      const options = Array.from({ length: 100 }, (_, i) => i + 10);
      return { question: 2 * d + k, answer: options[gt], gt_index: gt, answer_options: options };
    }),
  });
  return { version: '1.0', split: 'val2018', data: { questions, answers, dialogs: [dialog(0), dialog(1)] } };
}

function withRound(change: (round: Json) => void): Json {
  const json = visdialFixture();
  const data = json['data'] as { dialogs: { dialog: Json[] }[] };
  change(data.dialogs[1]!.dialog[1]!);
  return json;
}

describe('VisDial v1.0', () => {
  it('reads rounds as texts and ranks each round from caption, history and question', () => {
    const data = parseVisdial(visdialFixture(), 'val.json');
    expect(data.split).toBe('val2018');
    expect(data.dialogs[1]!.imageId).toBe('1001');
    expect(data.dialogs[1]!.rounds[1]).toMatchObject({ question: 'any people', answer: 'answer 12', gtIndex: 2 });
    expect(data.dialogs[1]!.rounds[1]!.options).toHaveLength(100);
    const groups = visdialGroups(data);
    expect(groups).toHaveLength(4);
    expect(groups[3]!.queries).toEqual([{ turns: ['caption 1', 'what color is the car', 'answer 11', 'any people'], target: 2, same: [] }]);
    expect(groups[3]!.candidates[2]).toBe('answer 12');
  });

  it('names the dialogue, round and field that are wrong', () => {
    const where = 'val.json, data.dialogs[1].dialog[1]';
    expect(() => parseVisdial([], 'val.json')).toThrow('val.json is an array, not an object. A VisDial v1.0 file is');
    expect(() => parseVisdial({ version: '1.0' }, 'val.json')).toThrow('val.json: "data" is missing, not an object.');
    expect(() =>
      parseVisdial(
        withRound((r) => (r['answer_options'] as number[]).pop()),
        'val.json',
      ),
    ).toThrow(`${where} has 99 answer options; VisDial ranks 100 per round. Check that this is a VisDial v1.0 file.`);
    expect(() =>
      parseVisdial(
        withRound((r) => (r['gt_index'] = 100)),
        'val.json',
      ),
    ).toThrow(`${where}: gt_index 100 is outside the 100 answer options (0 to 99).`);
    expect(() =>
      parseVisdial(
        withRound((r) => (r['gt_index'] = 5)),
        'val.json',
      ),
    ).toThrow(`${where}: gt_index 5 points to answer 15, but the round's answer is 12. The file is inconsistent; export it again.`);
    expect(() =>
      parseVisdial(
        withRound((r) => (r['question'] = 4)),
        'val.json',
      ),
    ).toThrow(`${where}: question 4 is not an index into data.questions (0 to 3).`);
    expect(() =>
      parseVisdial(
        withRound((r) => ((r['answer_options'] as number[])[7] = 120)),
        'val.json',
      ),
    ).toThrow(`${where}, answer_options[7]: answer 120 is not an index into data.answers (0 to 119).`);
    expect(() =>
      parseVisdial(
        withRound((r) => delete r['gt_index']),
        'val.json',
      ),
    ).toThrow(`${where} has no "gt_index", so its options cannot be scored (the VisDial test split answers only the last round). Use the val split.`);
    const badList = visdialFixture();
    (badList['data'] as { questions: unknown[] }).questions[1] = 7;
    expect(() => parseVisdial(badList, 'val.json')).toThrow('val.json: data.questions[1] is a number, not a string.');
    const noDialogs = visdialFixture();
    (noDialogs['data'] as { dialogs: unknown[] }).dialogs = [];
    expect(() => parseVisdial(noDialogs, 'val.json')).toThrow('val.json: data.dialogs is empty; there is nothing to rank.');
  });

  it('reads the real val file: 50 dialogues, 500 rounds', () => {
    const json = JSON.parse(readFileSync(new URL('../../../../shared/data/visdial/visdial_1.0_val.json', import.meta.url), 'utf8')) as unknown;
    const groups = visdialGroups(parseVisdial(json, 'visdial_1.0_val.json'));
    expect(groups).toHaveLength(500);
    expect(groups[0]!.queries[0]!.turns).toEqual(['a bedroom is filled with lots of posters and a busy computer desk', 'is the photo in color']);
    expect(groups[0]!.candidates[groups[0]!.queries[0]!.target]).toBe('yes');
  });
});

describe('AVSD', () => {
  const avsdJson = (dialogs: unknown[]) => ({ type: 'scene_aware_dialog', version: '0.1', dialogs });

  it('reads dialogues and names bad fields', () => {
    const dialogues = parseAvsd(
      avsdJson([{ image_id: 'VC5RZ', caption: ' a man reads . ', summary: 's', dialog: [{ question: 'any people ?', answer: 'one man .' }] }]),
      'avsd.json',
    );
    expect(dialogues).toEqual([{ id: 'VC5RZ', caption: 'a man reads .', summary: 's', rounds: [{ question: 'any people ?', answer: 'one man .' }] }]);
    expect(() => parseAvsd({ dialogs: {} }, 'avsd.json')).toThrow('avsd.json: "dialogs" is an object, not an array.');
    expect(() => parseAvsd(avsdJson([]), 'avsd.json')).toThrow('avsd.json: "dialogs" is empty; there is nothing to rank.');
    expect(() => parseAvsd(avsdJson([{ image_id: 'A', dialog: [] }]), 'avsd.json')).toThrow('avsd.json, dialogs[0]: "caption" is missing, not a string.');
    expect(() => parseAvsd(avsdJson([{ image_id: 'A', caption: 'c', dialog: [] }]), 'avsd.json')).toThrow(
      'avsd.json, dialogs[0]: "dialog" is empty; a dialogue needs at least the round to be answered.',
    );
    expect(() => parseAvsd(avsdJson([{ image_id: 'A', caption: 'c', dialog: [{ question: 'q ?', answer: ' ' }] }]), 'avsd.json')).toThrow(
      'avsd.json, dialogs[0].dialog[0]: "answer" is empty. Give it some text or remove the round.',
    );
    expect(() => parseAvsd(avsdJson([{ image_id: 'A', caption: 'c', dialog: ['q'] }]), 'avsd.json')).toThrow(
      'avsd.json, dialogs[0].dialog[0] is a string, not an object {"question", "answer"}.',
    );
  });

  /** 60 dialogues of 3 rounds, each answer distinct except "yes" (asked in every dialogue's first round, so it is the most popular). */
  function dialogues(): AvsdDialogue[] {
    return Array.from({ length: 60 }, (_, d) => ({
      id: `V${d}`,
      caption: `video ${d}`,
      summary: null,
      rounds: [
        { question: `is there a person ${d} ?`, answer: 'yes' },
        { question: `what is thing ${d} ?`, answer: `it is thing number ${d} .` },
        { question: d === 1 ? 'what color is the cat ?' : `where is object ${d} ?`, answer: d === 1 ? 'the cat is black' : `object ${d} is on shelf ${d}` },
      ],
    }));
  }

  it('builds 100 candidates per question: the truth, 50 plausible, 30 popular, 19 random, no answer twice', () => {
    const data = dialogues();
    data[0] = { ...data[0]!, rounds: [...data[0]!.rounds.slice(0, 2), { question: 'what color is the cat ?', answer: 'The cat is white .' }] };
    const built = avsdGroups(data, { seed: 1 });
    expect(built.distinctAnswers).toBe(121);
    expect(built.groups).toHaveLength(60);
    expect(built.composition).toEqual({ plausible: 60 * 50, popular: 60 * 30, random: 60 * 19 });
    for (const [d, group] of built.groups.entries()) {
      expect(group.candidates).toHaveLength(100);
      expect(new Set(group.candidates.map(answerKey)).size).toBe(100);
      const q = group.queries[0]!;
      expect(group.candidates[q.target]).toBe(data[d]!.rounds[2]!.answer);
      expect(q.turns).toEqual([
        `video ${d}`,
        data[d]!.rounds[0]!.question,
        'yes',
        data[d]!.rounds[1]!.question,
        data[d]!.rounds[1]!.answer,
        data[d]!.rounds[2]!.question,
      ]);
    }
    // The same question in another dialogue makes its answer a plausible candidate; "yes" is the most popular.
    expect(built.groups[0]!.candidates).toContain('the cat is black');
    expect(built.groups[0]!.candidates).toContain('yes');
    // Fixed seed, fixed candidates; another seed draws other random ones and another order.
    expect(avsdGroups(data, { seed: 1 })).toEqual(built);
    expect(avsdGroups(data, { seed: 2 }).groups[0]!.candidates).not.toEqual(built.groups[0]!.candidates);
  });

  it('makes up a shortfall of plausible answers with random ones, and refuses a file with under 100 distinct answers', () => {
    const big: AvsdDialogue = {
      id: 'B',
      caption: 'b',
      summary: null,
      rounds: Array.from({ length: 120 }, (_, k) => ({ question: `question ${k} ?`, answer: `answer ${k}` })),
    };
    const small: AvsdDialogue = { id: 'S', caption: 's', summary: null, rounds: [{ question: 'question 3 ?', answer: 'a lone answer' }] };
    // For B's last question, the only other dialogue has one answer: 1 plausible, so 49 more random.
    const built = avsdGroups([small, big], { seed: 5 });
    expect(built.composition).toEqual({ plausible: 50 + 1, popular: 30 + 30, random: 19 + 68 });
    expect(built.groups.map((g) => g.candidates.length)).toEqual([100, 100]);
    expect(() => avsdGroups(dialogues().slice(0, 30), { seed: 1 })).toThrow(
      'The AVSD file has 61 distinct answers; 100 candidates per question need at least 100. Use the whole DSTC7 test file.',
    );
  });

  it('reads the DSTC7 test file: 1,710 dialogues, one question each', () => {
    const json = JSON.parse(readFileSync(new URL('../../../../shared/data/avsd/lbl_test_set4DSTC7-AVSD.json', import.meta.url), 'utf8')) as unknown;
    const data = parseAvsd(json, 'lbl_test_set4DSTC7-AVSD.json');
    expect(data).toHaveLength(1710);
    expect(data.reduce((n, d) => n + d.rounds.length, 0)).toBe(6745);
  });
});
