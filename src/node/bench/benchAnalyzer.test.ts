import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../tools/cliArgs';
import { loadWasmPhotoAnalyzer, releasePhotoAnalyzer, variantChoice } from './benchAnalyzer';

const USAGE = 'npm run bench -- retrieval ...';

/** test-tiny-clip with an image tower "_quantized" file beside the float one (a copy: the loader picks by name). */
function packWithQuantizedVision(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'variant-pack-')), 'pack');
  cpSync(join('models', 'test-tiny-clip'), dir, { recursive: true });
  cpSync(join(dir, 'onnx', 'vision_model.onnx'), join(dir, 'onnx', 'vision_model_quantized.onnx'));
  return dir;
}

async function loadedDtypes(pack: string, dtype?: 'fp32' | 'q8') {
  const loaded = await loadWasmPhotoAnalyzer(pack, { detector: false, variants: { dtype } });
  const dtypes = { ...loaded.encoder.backend.dtypes };
  await releasePhotoAnalyzer(loaded);
  return dtypes;
}

describe('benchmark variants (--dtype, --detector-dtype)', () => {
  it('reads fp32 and q8, and rejects other names with the choices', () => {
    expect(variantChoice({}, USAGE)).toEqual({ dtype: undefined, detectorDtype: undefined });
    expect(variantChoice({ dtype: 'fp32', 'detector-dtype': 'q8' }, USAGE)).toEqual({ dtype: 'fp32', detectorDtype: 'q8' });
    expect(() => variantChoice({ dtype: 'int8' }, USAGE)).toThrow(UsageError);
    expect(() => variantChoice({ 'detector-dtype': 'fp16' }, USAGE)).toThrow('--detector-dtype must be one of fp32, q8, not "fp16".');
  });

  it('loads the variant asked for through the page loader, and by default what the page runs on WASM', async () => {
    const pack = packWithQuantizedVision();
    // The page's WASM plan takes q8 where the pack has it; a tower without it runs fp32.
    expect(await loadedDtypes(pack)).toEqual({ text_model: 'fp32', vision_model: 'q8' });
    expect(await loadedDtypes(pack, 'fp32')).toEqual({ text_model: 'fp32', vision_model: 'fp32' });
    expect(await loadedDtypes(pack, 'q8')).toEqual({ text_model: 'fp32', vision_model: 'q8' });
  });

  it('says so when the pack has no variant of the kind asked for, rather than measuring fp32 under its name', async () => {
    await expect(loadedDtypes('models/test-tiny-clip', 'q8')).rejects.toThrow(
      'models/test-tiny-clip/ has no q8 variant of its towers; make one with models/scripts/quantize_int8.py',
    );
  });
});
