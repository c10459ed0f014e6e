/**
 * npm run clevr:generate -- --scenes N --seed S [--out DIR] [--split train] [--first-index 0] [--format ours|original] [--phrasings FILE] [--no-images]
 *
 * Writes a CLEVR-Dialog dataset made here: DIR/CLEVR_<split>_scenes.json (CLEVR's scene format),
 * DIR/clevr_dialog_<split>.json (CLEVR-Dialog's format, with each question's template, answer and
 * coreference distance: in our layout, or with --format original in the layout of the original
 * generator's generate_dataset.py) and, unless --no-images, the pictures as DIR/images/<split>/CLEVR_<split>_NNNNNN.png.
 * With --phrasings FILE (parseClevrPhrasings), some templates are worded with that file's texts in place of
 * their own: a held-out wording to measure on. The same options give the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { clevrDialogsJson, generateClevrDataset } from '../../engine/clevr/clevrDataset';
import { CLEVR_DIALOG_FORMATS, type ClevrDialogFormat, clevrOriginalDialogsJson, clevrScenesJson, parseClevrPhrasings } from '../../engine/clevr/clevrFiles';
import type { Phrasings } from '../../engine/clevr/dialogGrammar';
import { renderScene } from '../../engine/clevr/render';
import { UsageError, choiceOption, integerOption, parseCommandLine, runCommand } from '../tools/cliArgs';
import { ProgressLine } from '../tools/progressLine';

export const CLEVR_GENERATE_USAGE =
  'npm run clevr:generate -- --scenes N --seed S [--out models/.cache/clevr] [--split train] [--first-index 0] [--format ours|original] [--phrasings FILE] [--no-images]';

export interface ClevrFiles {
  readonly scenes: string;
  readonly dialogs: string;
  readonly images: string[];
}

/** Writes the dataset and returns the paths written. */
export function writeClevrDataset(
  options: {
    scenes: number;
    seed: number;
    out: string;
    split: string;
    firstIndex: number;
    images: boolean;
    format?: ClevrDialogFormat;
    phrasings?: Phrasings;
  },
  progress?: (done: number, total: number) => void,
): ClevrFiles {
  const { scenes, records } = generateClevrDataset({
    scenes: options.scenes,
    seed: options.seed,
    split: options.split,
    firstIndex: options.firstIndex,
    phrasings: options.phrasings,
  });
  mkdirSync(options.out, { recursive: true });
  const scenesPath = join(options.out, `CLEVR_${options.split}_scenes.json`);
  const dialogsPath = join(options.out, `clevr_dialog_${options.split}.json`);
  writeFileSync(scenesPath, clevrScenesJson(scenes, { split: options.split, generator: `clevr:generate --seed ${options.seed}` }));
  writeFileSync(dialogsPath, options.format === 'original' ? clevrOriginalDialogsJson(records) : clevrDialogsJson(records));
  const images: string[] = [];
  if (options.images) {
    const dir = join(options.out, 'images', options.split);
    mkdirSync(dir, { recursive: true });
    scenes.forEach((scene, k) => {
      const picture = renderScene(scene.objects);
      const png = new PNG({ width: picture.width, height: picture.height });
      png.data = Buffer.from(picture.data.buffer, picture.data.byteOffset, picture.data.byteLength);
      const path = join(dir, scene.image_filename);
      writeFileSync(path, PNG.sync.write(png));
      images.push(path);
      progress?.(k + 1, scenes.length);
    });
  }
  return { scenes: scenesPath, dialogs: dialogsPath, images };
}

async function main(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      scenes: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string', default: join('models', '.cache', 'clevr') },
      split: { type: 'string', default: 'train' },
      'first-index': { type: 'string', default: '0' },
      'no-images': { type: 'boolean', default: false },
      format: { type: 'string', default: 'ours' },
      phrasings: { type: 'string' },
    },
    CLEVR_GENERATE_USAGE,
  );
  const scenes = integerOption(values.scenes ?? '', 'scenes', CLEVR_GENERATE_USAGE);
  const seed = integerOption(values.seed ?? '', 'seed', CLEVR_GENERATE_USAGE, 0);
  const firstIndex = integerOption(values['first-index'], 'first-index', CLEVR_GENERATE_USAGE, 0);
  const format = choiceOption(values.format, 'format', CLEVR_DIALOG_FORMATS, CLEVR_GENERATE_USAGE);
  const progress = new ProgressLine();
  if (values.phrasings !== undefined && !existsSync(values.phrasings))
    throw new UsageError(`--phrasings ${values.phrasings} does not exist; give a JSON file of question templates and their texts.`, CLEVR_GENERATE_USAGE);
  const phrasings = values.phrasings === undefined ? undefined : parseClevrPhrasings(readFileSync(values.phrasings, 'utf8'), values.phrasings);
  const options = { scenes, seed, out: values.out, split: values.split, firstIndex, images: !values['no-images'], format, phrasings };
  const files = writeClevrDataset(options, (done, total) => progress.update(`rendering pictures ${done}/${total}`, done, total));
  progress.end();
  console.log(`wrote ${files.scenes}, ${files.dialogs}${files.images.length > 0 ? ` and ${files.images.length} pictures` : ''}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCommand('clevr:generate', () => main(process.argv.slice(2)));
}
