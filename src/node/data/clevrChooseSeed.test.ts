import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chooseClevrSeeds, heldoutVal } from './clevrChooseSeed';

/**
 * The seed choice of the CLEVR recipe on the shipped models: a folder whose LF-QIH is the shipped one
 * competes with a folder whose LF-QIH file is LF-QH's (no image, so far worse on the held-out wording),
 * on the held-out wording of the val split's first 6 scenes (the generator takes 0.4 to 2 s a scene).
 */
const SHIPPED = join('models', 'clevr');
const shippedLog = JSON.parse(readFileSync(join(SHIPPED, 'training.json'), 'utf8')) as Record<string, { seed: number; best_val_accuracy: number }>;
const SHIPPED_SEED = shippedLog['lf-qih']!.seed;
/** The candidates' seed: another than the shipped one. */
const OTHER_SEED = SHIPPED_SEED + 1;

/** A copy of the shipped folder whose lf-qih.onnx is the file of `lfQihFrom`. */
function shippedCopy(lfQihFrom: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'clevr-into-'));
  cpSync(SHIPPED, dir, { recursive: true });
  copyFileSync(join(SHIPPED, 'onnx', `${lfQihFrom}.onnx`), join(dir, 'onnx', 'lf-qih.onnx'));
  return dir;
}

/** A second-seed folder as train_clevr.py --models lf-qih --seed N writes it, its LF-QIH the file of `lfQihFrom`. */
function candidates(lfQihFrom: string, words?: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'clevr-seed-1-'));
  mkdirSync(join(dir, 'onnx'));
  copyFileSync(join(SHIPPED, 'onnx', `${lfQihFrom}.onnx`), join(dir, 'onnx', 'lf-qih.onnx'));
  const config = JSON.parse(readFileSync(join(SHIPPED, 'clevr.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'clevr.json'), JSON.stringify({ ...config, ...(words ? { words } : {}), models: ['lf-qih'], default: 'lf-qih' }));
  writeFileSync(join(dir, 'training.json'), JSON.stringify({ 'lf-qih': { ...shippedLog['lf-qih'], seed: OTHER_SEED, best_val_accuracy: 0.9 } }));
  return dir;
}

const read = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, Record<string, unknown>>;

// Each test loads two folders' models and scores 300 questions: about 10 s on an idle machine, over a minute beside an e2e run.
describe('clevr:choose-seed', { timeout: 300_000 }, () => {
  let heldout: ReturnType<typeof heldoutVal>;
  beforeAll(() => {
    heldout = heldoutVal(6);
  });

  it('keeps the second seed when it is better on the held-out wording: its file, its training entry and the choice', async () => {
    const into = shippedCopy('lf-qh');
    const lines = await chooseClevrSeeds(candidates('lf-qih'), into, heldout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^lf-qih: held-out wording seed ${SHIPPED_SEED} \\d+\\.\\d\\d%, seed ${OTHER_SEED} \\d+\\.\\d\\d% -> keeps seed ${OTHER_SEED} \\(copied from `,
      ),
    );
    expect(readFileSync(join(into, 'onnx', 'lf-qih.onnx'))).toEqual(readFileSync(join(SHIPPED, 'onnx', 'lf-qih.onnx')));
    const entry = read(into, 'training.json')['lf-qih']!;
    expect(entry['seed']).toBe(OTHER_SEED);
    const choice = entry['seed_choice'] as { kept: number; heldout_val: { seed: number; accuracy: number; questions: number }[] };
    expect(choice.kept).toBe(OTHER_SEED);
    expect(choice.heldout_val.map((h) => h.seed)).toEqual([SHIPPED_SEED, OTHER_SEED]);
    expect(choice.heldout_val[1]!.accuracy).toBeGreaterThan(choice.heldout_val[0]!.accuracy + 0.1);
    expect(choice.heldout_val[0]!.questions).toBe(300); // 6 scenes, 5 dialogs of 10 rounds each
    // clevr.json: the kept entry's val accuracy, and the default the best on val (here the candidate's 0.9).
    const config = read(into, 'clevr.json') as unknown as { default: string; val_accuracy: Record<string, number> };
    expect(config.val_accuracy['lf-qih']).toBe(0.9);
    expect(config.default).toBe('lf-qih');
    // The other models are untouched.
    expect(read(into, 'training.json')['mn-qih']).toEqual(shippedLog['mn-qih']);
  });

  it('keeps the shipped model when the second seed is worse, and copies nothing', async () => {
    const into = shippedCopy('lf-qih');
    const lines = await chooseClevrSeeds(candidates('lf-qh'), into, heldout);
    expect(lines[0]).toMatch(new RegExp(`-> keeps seed ${SHIPPED_SEED}$`));
    expect(readFileSync(join(into, 'onnx', 'lf-qih.onnx'))).toEqual(readFileSync(join(SHIPPED, 'onnx', 'lf-qih.onnx')));
    const entry = read(into, 'training.json')['lf-qih']!;
    expect({ ...entry, seed_choice: undefined }).toEqual({ ...shippedLog['lf-qih'], seed_choice: undefined });
    expect((entry['seed_choice'] as { kept: number }).kept).toBe(SHIPPED_SEED);
    expect((read(into, 'clevr.json') as unknown as { default: string }).default).toBe(
      (JSON.parse(readFileSync(join(SHIPPED, 'clevr.json'), 'utf8')) as { default: string }).default,
    );
  });

  it('leaves a model whose file is the same in both folders as it is, its recorded choice too', async () => {
    // A candidate folder started as a copy of the shipped one, with only LF-QIH trained again.
    const into = shippedCopy('lf-qih');
    const copied = mkdtempSync(join(tmpdir(), 'clevr-seed-1-'));
    cpSync(SHIPPED, copied, { recursive: true });
    copyFileSync(join(SHIPPED, 'onnx', 'lf-qh.onnx'), join(copied, 'onnx', 'lf-qih.onnx'));
    const lines = await chooseClevrSeeds(copied, into, heldout);
    expect(lines).toContain('mn-qih: the same file in both folders, left as it is');
    expect(lines.filter((l) => l.endsWith('left as it is'))).toHaveLength(9);
    expect(lines.find((l) => l.startsWith('lf-qih:'))).toMatch(new RegExp(`-> keeps seed ${SHIPPED_SEED}$`));
    const log = read(into, 'training.json');
    for (const model of Object.keys(shippedLog).filter((m) => m !== 'lf-qih')) expect(log[model], model).toEqual(shippedLog[model]);
  });

  it('names a model file a folder lacks, and changes nothing', async () => {
    const into = shippedCopy('lf-qih');
    const before = readFileSync(join(into, 'training.json'), 'utf8');
    const dir = candidates('lf-qih');
    rmSync(join(dir, 'onnx', 'lf-qih.onnx'));
    await expect(chooseClevrSeeds(dir, into, heldout)).rejects.toThrow(
      /lf-qih\.onnx is missing, though .*training\.json lists lf-qih: train it into that folder again\.$/,
    );
    expect(readFileSync(join(into, 'training.json'), 'utf8')).toBe(before);
  });

  it('refuses models trained on another vocabulary, and changes nothing', async () => {
    const into = shippedCopy('lf-qih');
    const before = readFileSync(join(into, 'training.json'), 'utf8');
    await expect(chooseClevrSeeds(candidates('lf-qih', ['<pad>', '<unk>']), into, heldout)).rejects.toThrow(
      /was trained on another vocabulary than .* \(2 and \d+ words\): train both on the same npm run clevr:data\.$/,
    );
    expect(readFileSync(join(into, 'training.json'), 'utf8')).toBe(before);
  });
});
