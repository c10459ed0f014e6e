import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { EngineError } from '../engine/errors';
import { checkImageFile } from '../engine/image/imageFormat';
import type { RgbaImage } from '../engine/image/rgbaImage';

/** Decodes a JPEG or PNG file to RGBA in Node (pure JavaScript decoders, no native binaries). */
export function decodeImageFile(path: string): RgbaImage {
  const bytes = new Uint8Array(readFileSync(path));
  const header = checkImageFile(path, bytes);
  if (header.format === 'jpeg') {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
    return { width: img.width, height: img.height, data: img.data };
  }
  if (header.format === 'png') {
    const png = PNG.sync.read(Buffer.from(bytes));
    return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
  }
  throw new EngineError('image-unsupported', `${path}: ${header.format.toUpperCase()} files are not decoded in Node; convert to JPEG or PNG.`);
}
