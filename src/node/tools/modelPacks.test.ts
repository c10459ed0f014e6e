import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isServablePackPath, listModels } from './modelPacks';
import { packIndexJson } from './viteModelsPlugin';

function modelsFolder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'models-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const PACK_AND_DETECTOR = {
  'tiny/config.json': '{}',
  'tiny/onnx/text_model.onnx': 'weights',
  'tiny/fixture/reference.json': 'test only',
  'detector/detector.json': '{"version":1}',
  'detector/onnx/model.onnx': 'detector weights',
  'detector/SOURCE.md': 'licence',
  'detector/source/centernet.bin': 'the TF.js model',
  'detector/fixture/chelsea.jpg': 'test photo',
};

describe('models/ as the app sees it', () => {
  it('lists the detector beside the packs, not as a pack, without its private folders', () => {
    const models = listModels(modelsFolder(PACK_AND_DETECTOR));
    expect(models.packs.map((p) => p.id)).toEqual(['tiny']);
    expect(models.detector).toEqual({
      dir: 'detector',
      files: [
        { path: 'detector.json', bytes: 13 },
        { path: 'onnx/model.onnx', bytes: 16 },
        { path: 'SOURCE.md', bytes: 7 },
      ],
    });
    expect(JSON.parse(packIndexJson(models))).toEqual({
      packs: models.packs,
      detector: models.detector,
      captioners: [],
      clevr: null,
      avsd: null,
      photoCheck: null,
    });
  });

  it('lists the CLEVR-Dialog answerers (models/clevr with clevr.json) apart, serves their models and not their private folders', () => {
    const dir = modelsFolder({ ...PACK_AND_DETECTOR, 'clevr/clevr.json': '{}', 'clevr/onnx/lf-q.onnx': 'weights', 'clevr/training/log.json': 'private' });
    const models = listModels(dir);
    expect(models.packs.map((p) => p.id)).toEqual(['tiny']);
    expect(models.clevr).toEqual({
      dir: 'clevr',
      files: [
        { path: 'clevr.json', bytes: 2 },
        { path: 'onnx/lf-q.onnx', bytes: 7 },
      ],
    });
    expect(JSON.parse(packIndexJson(models))).toMatchObject({ clevr: { dir: 'clevr' } });
    expect(isServablePackPath(dir, 'clevr/onnx/lf-q.onnx')).not.toBeNull();
    expect(isServablePackPath(dir, 'clevr/training/log.json')).toBeNull();
    expect(listModels(modelsFolder({ 'clevr/onnx/lf-q.onnx': 'orphan' })).clevr).toBeNull();
  });

  it("lists the video models (models/avsd with avsd.json), serves their models and not the clip generator's recordings", () => {
    const dir = modelsFolder({ ...PACK_AND_DETECTOR, 'avsd/avsd.json': '{}', 'avsd/onnx/silero_vad.onnx': 'vad', 'avsd/speech/oh-wow.wav': 'private' });
    const models = listModels(dir);
    expect(models.avsd).toEqual({
      dir: 'avsd',
      files: [
        { path: 'avsd.json', bytes: 2 },
        { path: 'onnx/silero_vad.onnx', bytes: 3 },
      ],
    });
    expect(JSON.parse(packIndexJson(models))).toMatchObject({ avsd: { dir: 'avsd' } });
    expect(isServablePackPath(dir, 'avsd/onnx/silero_vad.onnx')).not.toBeNull();
    expect(isServablePackPath(dir, 'avsd/speech/oh-wow.wav')).toBeNull();
  });

  it('lists a captioning pack (config.json model_type "vision-encoder-decoder") as a captioner, not as a CLIP pack, and serves its files', () => {
    const dir = modelsFolder({
      ...PACK_AND_DETECTOR,
      'vit-gpt2/config.json': '{"model_type":"vision-encoder-decoder"}',
      'vit-gpt2/onnx/encoder_model.onnx': 'encoder',
      'vit-gpt2/fixture/sky.png': 'test image',
    });
    const models = listModels(dir);
    expect(models.packs.map((p) => p.id)).toEqual(['tiny']);
    expect(models.captioners.map((p) => [p.id, p.files.map((f) => f.path)])).toEqual([['vit-gpt2', ['config.json', 'onnx/encoder_model.onnx']]]);
    expect((JSON.parse(packIndexJson(models)) as { captioners: { id: string }[] }).captioners[0]?.id).toBe('vit-gpt2');
    expect(isServablePackPath(dir, 'vit-gpt2/onnx/encoder_model.onnx')).not.toBeNull();
    expect(isServablePackPath(dir, 'vit-gpt2/fixture/sky.png')).toBeNull();
  });

  it('says there is no detector when models/detector has no detector.json', () => {
    const models = listModels(modelsFolder({ 'tiny/config.json': '{}', 'detector/onnx/model.onnx': 'orphan weights' }));
    expect(models.detector).toBeNull();
    expect(JSON.parse(packIndexJson(models))).toMatchObject({ detector: null });
  });

  it("serves the detector's model and config, never its source model or test photos", () => {
    const dir = modelsFolder(PACK_AND_DETECTOR);
    expect(isServablePackPath(dir, 'detector/onnx/model.onnx')).toBe(join(dir, 'detector', 'onnx', 'model.onnx'));
    expect(isServablePackPath(dir, 'detector/detector.json')).not.toBeNull();
    expect(isServablePackPath(dir, 'detector/source/centernet.bin')).toBeNull();
    expect(isServablePackPath(dir, 'detector/fixture/chelsea.jpg')).toBeNull();
    expect(isServablePackPath(dir, 'detector/../tiny/config.json')).toBeNull();
    expect(isServablePackPath(dir, 'tiny/fixture/reference.json')).toBeNull();
    expect(isServablePackPath(dir, 'tiny/onnx/text_model.onnx')).not.toBeNull();
  });
});

describe('the hub fixtures under models/', () => {
  const modelsDir = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'models');

  it('are not listed or served as a pack: models/hub-fixtures has no config.json of its own', () => {
    expect(listModels(modelsDir).packs.map((p) => p.id)).not.toContain('hub-fixtures');
    expect(isServablePackPath(modelsDir, 'hub-fixtures/Xenova/clip-vit-base-patch32/onnx/text_model.onnx')).toBeNull();
  });
});
