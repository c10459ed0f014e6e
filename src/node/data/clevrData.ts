/**
 * npm run clevr:data [-- --out models/.cache/clevr/data] [--train-scenes 2000]
 *
 * Writes the CLEVR-Dialog splits (engine/clevr/clevrDataset.ts CLEVR_SPLITS) as the arrays the PyTorch
 * recipe trains on, encoded by the engine's own clevrFeatures.ts, the code that feeds the exported models
 * in the page and the benchmark. Per split: <split>.<name>.<i32|f32|u8> flat arrays and <split>.json with
 * their shapes; vocab.json holds the words (from the train split) and the answers. The pixels (u8) are
 * each scene drawn small by render.ts, for the pixel models.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLEVR_SPLITS, generateClevrDataset } from '../../engine/clevr/clevrDataset';
import {
  CLEVR_ANSWERS,
  HISTORY_ROUNDS,
  MAX_OBJECTS,
  OBJECT_FEATURES,
  PIXEL_HEIGHT,
  PIXEL_WIDTH,
  QUESTION_TOKENS,
  ROUND_TOKENS,
  type ClevrVocabulary,
  buildVocabulary,
  objectFeatures,
  roundInputs,
  scenePixels,
} from '../../engine/clevr/clevrFeatures';
import { QUESTION_LABELS, QUESTION_TEMPLATES } from '../../engine/clevr/templates';
import type { ClevrDialogRecord } from '../../engine/clevr/generateDialogs';
import type { Scene } from '../../engine/clevr/scene';
import { integerOption, parseCommandLine, runCommand } from '../tools/cliArgs';

export const CLEVR_DATA_USAGE = 'npm run clevr:data -- [--out models/.cache/clevr/data] [--train-scenes 2000]';

const HISTORY_KINDS = ['none', 'coref', 'all'] as const;

function writeSplit(dir: string, name: string, scenes: readonly Scene[], records: readonly ClevrDialogRecord[], vocab: ClevrVocabulary): number {
  const count = records.reduce((n, r) => n + r.dialogs.reduce((m, d) => m + d.dialog.length, 0), 0);
  const question = new Int32Array(count * QUESTION_TOKENS);
  const history = new Int32Array(count * HISTORY_ROUNDS * ROUND_TOKENS);
  const sceneOf = new Int32Array(count);
  const answer = new Int32Array(count);
  const template = new Int32Array(count);
  const historyKind = new Int32Array(count);
  const coref = new Int32Array(count);
  const roundIndex = new Int32Array(count);
  // Training labels only, as object masks: what the question refers to, what its answer is about (the
  // objects counted, found or described), and what its dialog's caption told (the reference pool's first entry).
  const referents = new Uint8Array(count * MAX_OBJECTS);
  const answerObjects = new Uint8Array(count * MAX_OBJECTS);
  const captionObjects = new Uint8Array(count * MAX_OBJECTS);
  const setMask = (mask: Uint8Array, row: number, objects: readonly number[]) => {
    for (const i of objects) if (i < MAX_OBJECTS) mask[row * MAX_OBJECTS + i] = 1;
  };
  const objects = new Float32Array(scenes.length * MAX_OBJECTS * OBJECT_FEATURES);
  const mask = new Float32Array(scenes.length * MAX_OBJECTS);
  const pixels = new Uint8Array(scenes.length * 3 * PIXEL_HEIGHT * PIXEL_WIDTH);
  let k = 0;
  records.forEach((record, s) => {
    const f = objectFeatures(scenes[s]!);
    objects.set(f.features, s * MAX_OBJECTS * OBJECT_FEATURES);
    mask.set(f.mask, s * MAX_OBJECTS);
    pixels.set(scenePixels(scenes[s]!), s * 3 * PIXEL_HEIGHT * PIXEL_WIDTH);
    for (const dialog of record.dialogs) {
      dialog.dialog.forEach((round, n) => {
        const inputs = roundInputs(dialog.caption, dialog.dialog.slice(0, n), round.question, vocab);
        question.set(inputs.question, k * QUESTION_TOKENS);
        history.set(inputs.history, k * HISTORY_ROUNDS * ROUND_TOKENS);
        sceneOf[k] = s;
        answer[k] = CLEVR_ANSWERS.indexOf(round.answer);
        template[k] = QUESTION_LABELS.indexOf(round.template);
        historyKind[k] = HISTORY_KINDS.indexOf(QUESTION_TEMPLATES[round.template].history);
        coref[k] = round.coref_distance ?? -1;
        roundIndex[k] = n;
        setMask(referents, k, round.referents);
        setMask(answerObjects, k, round.answer_objects);
        setMask(captionObjects, k, dialog.caption_objects);
        k++;
      });
    }
  });
  const arrays = {
    question,
    history,
    scene: sceneOf,
    answer,
    template,
    history_kind: historyKind,
    coref,
    round: roundIndex,
    referents,
    answer_objects: answerObjects,
    caption_objects: captionObjects,
    objects,
    mask,
    pixels,
  };
  const shapes: Record<string, number[]> = {
    question: [count, QUESTION_TOKENS],
    history: [count, HISTORY_ROUNDS, ROUND_TOKENS],
    scene: [count],
    answer: [count],
    template: [count],
    history_kind: [count],
    coref: [count],
    round: [count],
    referents: [count, MAX_OBJECTS],
    answer_objects: [count, MAX_OBJECTS],
    caption_objects: [count, MAX_OBJECTS],
    objects: [scenes.length, MAX_OBJECTS, OBJECT_FEATURES],
    mask: [scenes.length, MAX_OBJECTS],
    pixels: [scenes.length, 3, PIXEL_HEIGHT, PIXEL_WIDTH],
  };
  const kinds: Record<string, string> = {};
  for (const [key, array] of Object.entries(arrays)) {
    const kind = array instanceof Float32Array ? 'f32' : array instanceof Uint8Array ? 'u8' : 'i32';
    kinds[key] = kind;
    writeFileSync(join(dir, `${name}.${key}.${kind}`), new Uint8Array(array.buffer));
  }
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ count, scenes: scenes.length, shapes, kinds }, null, 1)}\n`);
  return count;
}

export function writeClevrData(out: string, trainScenes: number = CLEVR_SPLITS.train.scenes): Record<string, number> {
  mkdirSync(out, { recursive: true });
  const splits = { ...CLEVR_SPLITS, train: { ...CLEVR_SPLITS.train, scenes: trainScenes } };
  const made = Object.fromEntries(Object.entries(splits).map(([name, options]) => [name, generateClevrDataset(options)]));
  const vocab = buildVocabulary(made.train!.records.flatMap((r) => r.dialogs));
  writeFileSync(
    join(out, 'vocab.json'),
    `${JSON.stringify({ words: vocab.words, answers: CLEVR_ANSWERS, templates: QUESTION_LABELS, history_kinds: HISTORY_KINDS, splits }, null, 1)}\n`,
  );
  return Object.fromEntries(Object.entries(made).map(([name, d]) => [name, writeSplit(out, name, d.scenes, d.records, vocab)]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCommand('clevr:data', () => {
    const values = parseCommandLine(
      process.argv.slice(2),
      {
        out: { type: 'string', default: join('models', '.cache', 'clevr', 'data') },
        'train-scenes': { type: 'string', default: String(CLEVR_SPLITS.train.scenes) },
      },
      CLEVR_DATA_USAGE,
    );
    const counts = writeClevrData(values.out, integerOption(values['train-scenes'], 'train-scenes', CLEVR_DATA_USAGE));
    console.log(
      `wrote ${Object.entries(counts)
        .map(([n, c]) => `${n} ${c} questions`)
        .join(', ')} to ${values.out}`,
    );
  });
}
