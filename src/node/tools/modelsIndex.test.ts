import { describe, expect, it } from 'vitest';
import { parseModelsIndex } from '../../engine/pack/modelsIndex';
import { packIndexJson } from './viteModelsPlugin';

const FILE = '/models/index.json';
const files = [
  { path: 'onnx/text_model.onnx', bytes: 1200 },
  { path: 'config.json', bytes: 80 },
];
const pack = { id: 'test-tiny-clip', name: 'Tiny CLIP', description: 'for tests', files };
const failure = (json: unknown) => {
  try {
    parseModelsIndex(json, FILE);
    return 'no error';
  } catch (error) {
    return (error as Error).message;
  }
};
const REMEDY = 'The build writes this file from models/: build again (npm run build), or restart the server, and reload.';

describe('/models/index.json', () => {
  it('reads what the build writes, every part of it', () => {
    const listing = {
      packs: [pack],
      detector: { dir: 'detector', files },
      captioners: [{ ...pack, id: 'tiny-captioner', description: '' }],
      clevr: { dir: 'clevr', files },
      avsd: null,
      photoCheck: { dir: 'photo-check', files },
    };
    expect(parseModelsIndex(JSON.parse(packIndexJson(listing)), FILE)).toEqual(listing);
  });

  it('reads an index written before the detector, captioners, CLEVR and video models were listed', () => {
    expect(parseModelsIndex({ packs: [pack], later: 'ignored' }, FILE)).toEqual({
      packs: [pack],
      detector: null,
      captioners: [],
      clevr: null,
      avsd: null,
      photoCheck: null,
    });
  });

  it('names the field that is wrong, and says what to do', () => {
    expect(failure([pack])).toBe(`${FILE}: the whole file is an array; it must be an object. ${REMEDY}`);
    expect(failure({})).toBe(`${FILE}: packs is missing; it must be a list. ${REMEDY}`);
    expect(failure({ packs: [{ ...pack, files: [files[0], { path: 'config.json', bytes: '80' }] }] })).toBe(
      `${FILE}: packs[0].files[1].bytes is "80"; it must be a whole number of bytes, 0 or more. ${REMEDY}`,
    );
    expect(failure({ packs: [{ ...pack, files: [{ path: 'config.json', bytes: -5 }] }] })).toBe(
      `${FILE}: packs[0].files[0].bytes is -5; it must be a whole number of bytes, 0 or more. ${REMEDY}`,
    );
    expect(failure({ packs: [], avsd: { dir: '..', files } })).toBe(`${FILE}: avsd.dir is ".."; it must be the name of one folder under models/. ${REMEDY}`);
    expect(failure({ packs: [], clevr: { dir: 'clevr', files: [{ path: 'a/../../secret', bytes: 1 }] } })).toBe(
      `${FILE}: clevr.files[0].path is "a/../../secret"; it must be a path inside the folder, names joined by "/", without "." or "..". ${REMEDY}`,
    );
    expect(failure({ packs: [{ ...pack, name: null }] })).toBe(`${FILE}: packs[0].name is null; it must be a string. ${REMEDY}`);
    expect(failure({ packs: [], captioners: {} })).toBe(`${FILE}: captioners is an object; it must be a list. ${REMEDY}`);
  });
});
