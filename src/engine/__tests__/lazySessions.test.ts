import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClipEncoder } from '../clip/clipEncoder';
import { ObjectDetector } from '../detection/objectDetector';
import { chooseExecutionPlan } from '../onnx/executionPlan';
import { configureWasm, createOrtSession } from '../onnx/ortSessions';
import { PhotoAnalyzer } from '../perception/photoAnalyzer';
import { PhotoChecker } from '../perception/photoCheck';
import { ReplySession } from '../response/session';
import { decodeImageFile } from '../../node/tools/decodeImageFile';
import { MODELS_DIR, folderSource } from './fixture';

/**
 * The worker's load leaves the image tower's and the detector's sessions for later (issue 38: Ready
 * is the text path). A photo shared before either exists must still get its grounded caption and the
 * same embedding as with everything loaded up front.
 */
const wasmPlan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });

/** The pack's text tower made now, its image tower and the detector left for first use; `created` counts the sessions made. */
async function lazyLoad() {
  configureWasm(1);
  const created: number[] = [];
  const counting = (model: Uint8Array, provider: 'webgpu' | 'wasm') => {
    created.push(model.length);
    return createOrtSession(model, provider);
  };
  const packSource = folderSource(join(MODELS_DIR, 'mini-clip'));
  const detectorSource = folderSource(join(MODELS_DIR, 'detector'));
  const [packFiles, detectorFiles] = [await packSource.listFiles(), await detectorSource.listFiles()];
  const encoder = await ClipEncoder.load(packSource, packFiles, wasmPlan, { createSession: counting, deferred: ['vision_model'] });
  const detector = await ObjectDetector.load(detectorSource, detectorFiles, wasmPlan, { createSession: counting, deferred: ['detector'] });
  return { created, encoder, detector, packSource, detectorSource, packFiles, detectorFiles };
}

describe('sessions made when first needed', () => {
  it('a photo before the detector and the image tower exist gets the caption and embedding of an eager load, each session made once', async () => {
    const { created, encoder: lazyEncoder, detector: lazyDetector, packSource, detectorSource, packFiles, detectorFiles } = await lazyLoad();
    const eager = new PhotoAnalyzer(
      await ClipEncoder.load(packSource, packFiles, wasmPlan),
      await ObjectDetector.load(detectorSource, detectorFiles, wasmPlan),
    );
    const lazy = new PhotoAnalyzer(lazyEncoder, lazyDetector);
    expect(created).toHaveLength(1); // the text tower only
    expect(lazy.fingerprint).toBe(eager.fingerprint);
    expect(lazyDetector.fingerprint).toBe(eager.detector!.fingerprint);

    const photo = decodeImageFile(join(MODELS_DIR, 'detector', 'fixture', 'chelsea.jpg'));
    const [first, second] = await Promise.all([lazy.analyze([photo]), lazy.analyze([photo])]);
    expect(created).toHaveLength(3); // then the detector and the image tower, once each
    const expected = (await eager.analyze([photo])).photos[0]!;
    for (const got of [first.photos[0]!, second.photos[0]!]) {
      expect(got.description?.caption).toBe(expected.description?.caption);
      expect(got.description?.mainObject).toBe('cat');
      expect([...got.embedding]).toEqual([...expected.embedding]);
    }
  }, 120_000);

  it('preparing the photo path makes the image tower, the detector and the photo check once, however often the page asks', async () => {
    const { created, encoder, detector } = await lazyLoad();
    let checks = 0;
    const photoCheck = new PhotoChecker(async () => {
      checks++;
      return Float32Array.from([0.9, 0.05, 0.05, 0, 0]);
    });
    const session = new ReplySession(new PhotoAnalyzer(encoder, detector), null, { photoCheck });
    const dim = encoder.config.projectionDim;
    session.setPool({
      texts: ['hello'],
      textMatrix: { data: new Float32Array(dim).fill(0.1), rows: 1, dim },
      images: [],
      imageMatrix: { data: new Float32Array(0), rows: 0, dim },
      train: async () => null,
    });
    expect(created).toHaveLength(1); // the text tower only
    await Promise.all([session.preparePhotoPath(), session.preparePhotoPath()]);
    expect(created).toHaveLength(3); // the image tower and the detector, once each
    expect(checks).toBe(1);
    await session.preparePhotoPath();
    expect(created).toHaveLength(3);
    expect(checks).toBe(1);
  }, 120_000);
});
