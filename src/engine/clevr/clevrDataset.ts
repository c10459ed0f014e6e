/**
 * A CLEVR-Dialog dataset made here: random scenes (CLEVR's attributes and placement rules) and five
 * 10-round dialogs per scene from the dialog grammar, deterministic for a seed.
 */
import { type ClevrDialogRecord, type DialogOptions, generateDialogs } from './generateDialogs';
import { type Scene, generateScene } from './scene';

export interface ClevrDatasetOptions extends DialogOptions {
  readonly scenes: number;
  readonly seed: number;
  readonly split?: string;
  /** The first image index, so that splits made with one seed do not share scenes. */
  readonly firstIndex?: number;
}

export interface ClevrDataset {
  readonly scenes: Scene[];
  readonly records: ClevrDialogRecord[];
}

export function generateClevrDataset(options: ClevrDatasetOptions): ClevrDataset {
  const split = options.split ?? 'train';
  const first = options.firstIndex ?? 0;
  const scenes = Array.from({ length: options.scenes }, (_, k) => generateScene(options.seed, first + k, { split }));
  const records = scenes.map((scene) => generateDialogs(scene, options.seed, options));
  return { scenes, records };
}

/** The dialogs as CLEVR-Dialog writes them: one JSON list of image records. */
export function clevrDialogsJson(records: readonly ClevrDialogRecord[]): string {
  return `${JSON.stringify(records)}\n`;
}

/**
 * The splits the CLEVR-Dialog models are trained, chosen and measured on: one seed, scenes numbered
 * apart so no scene is in two splits. The test split is only measured.
 */
export const CLEVR_SPLITS = {
  train: { scenes: 2000, seed: 1, split: 'train', firstIndex: 0 },
  val: { scenes: 200, seed: 1, split: 'val', firstIndex: 100_000 },
  test: { scenes: 300, seed: 1, split: 'test', firstIndex: 200_000 },
} as const satisfies Record<string, ClevrDatasetOptions>;
