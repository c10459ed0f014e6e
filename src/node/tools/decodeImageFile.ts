import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { EngineError } from '../../engine/errors';
import { checkImageFile } from '../../engine/image/imageFormat';
import type { RgbaImage } from '../../engine/image/rgbaImage';

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

let webpReady: Promise<(bytes: ArrayBuffer) => Promise<{ width: number; height: number; data: Uint8ClampedArray }>> | null = null;

/** WebP through the Squoosh codec (WebAssembly), loaded once; Node has no WebP decoder of its own. */
function webpDecoder() {
  webpReady ??= (async () => {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    const mod = await import('@jsquash/webp/decode.js');
    const wasm = await WebAssembly.compile(readFileSync(require.resolve('@jsquash/webp/codec/dec/webp_dec.wasm')));
    // init() accepts a compiled module in Node (its type says module options).
    await mod.init(wasm);
    return mod.default;
  })();
  return webpReady;
}

/** Decodes JPEG, PNG or WebP in Node. */
export async function decodeAnyImageFile(path: string): Promise<RgbaImage> {
  const bytes = new Uint8Array(readFileSync(path));
  const header = checkImageFile(path, bytes);
  if (header.format !== 'webp') return decodeImageFile(path);
  const decode = await webpDecoder();
  try {
    const img = await decode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return { width: img.width, height: img.height, data: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength) };
  } catch (cause) {
    throw new EngineError('image-corrupt', `${path} could not be decoded as WebP; the file is damaged.`, { cause });
  }
}
