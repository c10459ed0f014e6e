import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clevrBench } from './benchClevr';

const SHIPPED = join('models', 'clevr');

describe('bench -- clevr --models against a folder that lacks one', () => {
  // A folder holding LF-Q only, as a one-model training lane writes it.
  const folder = mkdtempSync(join(tmpdir(), 'clevr-one-model-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  mkdirSync(join(folder, 'onnx'));
  copyFileSync(join(SHIPPED, 'onnx', 'lf-q.onnx'), join(folder, 'onnx', 'lf-q.onnx'));
  const config = JSON.parse(readFileSync(join(SHIPPED, 'clevr.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(folder, 'clevr.json'), JSON.stringify({ ...config, models: ['lf-q'], default: 'lf-q' }));

  it('names the model, the folder and what it holds, before any question is scored', async () => {
    await expect(clevrBench(['--models', 'random-q,lf-q,lf-qih', '--models-dir', folder, '--scenes', '1'])).rejects.toThrow(
      `--models lf-qih: The LF-QIH model is not in ${folder}${sep} (it holds LF-Q); choose another model.`,
    );
  });
});
