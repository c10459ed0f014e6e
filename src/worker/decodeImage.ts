import { EngineError } from '../engine/errors';
import { type ImageHeader, checkImageFile } from '../engine/image/imageFormat';
import type { RgbaImage } from '../engine/image/rgbaImage';
import type { ImagePayload } from '../protocol/protocol';

export interface DecodedImage {
  header: ImageHeader;
  pixels: RgbaImage;
}

/** Checks the header (type, size limits) and decodes to RGBA off the main thread. */
export async function decodeImage({ name, blob }: ImagePayload): Promise<DecodedImage> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const header = checkImageFile(name, bytes);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes]), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  } catch (cause) {
    throw new EngineError('image-corrupt', `"${name}" could not be decoded: the file looks damaged or incomplete. Choose another photo.`, { cause });
  }
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new EngineError('image-corrupt', `"${name}" could not be read (no 2D canvas in this browser).`);
    context.drawImage(bitmap, 0, 0);
    const { data, width, height } = context.getImageData(0, 0, bitmap.width, bitmap.height);
    return { header, pixels: { width, height, data } };
  } finally {
    bitmap.close();
  }
}
