import { createOrtSession, ort, type OrtSession } from '../engine/onnx/ortSessions';
import { PHOTO_CHECK_SIZE, PhotoChecker } from '../engine/perception/photoCheck';

/** The file that makes models/photo-check a photo check, naming its model (written by npm run photo-check:port). */
const PHOTO_CHECK_CONFIG_FILE = 'photo-check.json';

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} is missing (HTTP ${response.status}); rebuild it with "npm run photo-check:port" and reload`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * The photo check of models/photo-check, its session made at the first photo (it is small: 2.8 MB,
 * on WASM, so a WebGPU device loss never touches it). A session that could not be made is tried again
 * at the next photo; until then each photo is told 'unchecked' (ReplySession.checkPhotos).
 */
export function lazyPhotoChecker(folder: { baseUrl: string; files: string[] }): PhotoChecker {
  let session: Promise<OrtSession> | null = null;
  const open = async () => {
    const config = JSON.parse(new TextDecoder().decode(await fetchBytes(`${folder.baseUrl}${PHOTO_CHECK_CONFIG_FILE}`))) as { model?: unknown };
    if (typeof config.model !== 'string' || !folder.files.includes(config.model))
      throw new Error(`${folder.baseUrl}${PHOTO_CHECK_CONFIG_FILE} names no model file of the folder; rebuild it with "npm run photo-check:port"`);
    return createOrtSession(await fetchBytes(`${folder.baseUrl}${config.model}`), 'wasm');
  };
  return new PhotoChecker(async (input) => {
    session ??= open().catch((error: unknown) => {
      session = null;
      throw error;
    });
    const output = await (await session).run({ pixels: new ort.Tensor('float32', input, [1, 3, PHOTO_CHECK_SIZE, PHOTO_CHECK_SIZE]) });
    return output['probabilities']!.data as Float32Array;
  });
}
