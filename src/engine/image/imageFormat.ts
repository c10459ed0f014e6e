import { EngineError } from '../errors';

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

/** Larger images are refused before decoding: 40 MP of RGBA is already 160 MB of memory. */
export const MAX_IMAGE_PIXELS = 40_000_000;
const MAX_IMAGE_SIDE = 16_384;
export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

const ACCEPTED = 'JPEG, PNG, WebP, GIF or BMP';

function u16be(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}
function u16le(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}
function u24le(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16);
}
function u32be(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) >>> 0) + (b[o + 1]! << 16) + (b[o + 2]! << 8) + b[o + 3]!;
}
function i32le(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24);
}
function ascii(b: Uint8Array, o: number, n: number): string {
  return String.fromCharCode(...b.subarray(o, o + n));
}

function jpegSize(b: Uint8Array): { width: number; height: number } | null {
  let o = 2;
  while (o + 9 < b.length) {
    if (b[o] !== 0xff) return null;
    const marker = b[o + 1]!;
    if (marker === 0xff) {
      o += 1;
      continue;
    }
    // Start-of-frame markers (not DHT C4, JPG C8, DAC CC) carry the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(b, o + 5), width: u16be(b, o + 7) };
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      o += 2;
      continue;
    }
    o += 2 + u16be(b, o + 2);
  }
  return null;
}

function webpSize(b: Uint8Array): { width: number; height: number } | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X' && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && b.length >= 30) return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  return null;
}

/**
 * The format the first bytes prove, from the magic numbers alone (12 bytes are enough): what a
 * stored image is served as, whatever type the file claimed when it was shared.
 */
export function sniffImageFormat(b: Uint8Array): ImageFormat | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && u32be(b, 0) === 0x89504e47 && u32be(b, 4) === 0x0d0a1a0a) return 'png';
  if (b.length >= 6 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'webp';
  if (b.length >= 2 && ascii(b, 0, 2) === 'BM') return 'bmp';
  return null;
}

/** Identifies the format from its magic bytes (never from the file name) and reads the size from the header. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  const b = bytes;
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    const size = jpegSize(b);
    return size && { format: 'jpeg', ...size };
  }
  if (b.length >= 24 && u32be(b, 0) === 0x89504e47 && ascii(b, 12, 4) === 'IHDR') {
    return { format: 'png', width: u32be(b, 16), height: u32be(b, 20) };
  }
  if (b.length >= 10 && ascii(b, 0, 4) === 'GIF8') return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8) };
  if (b.length >= 16 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') {
    const size = webpSize(b);
    return size && { format: 'webp', ...size };
  }
  if (b.length >= 26 && ascii(b, 0, 2) === 'BM') return { format: 'bmp', width: Math.abs(i32le(b, 18)), height: Math.abs(i32le(b, 22)) };
  return null;
}

/**
 * Checks a file before anything decodes it. Throws an EngineError whose message names the file,
 * says what is wrong and what to do.
 */
export function checkImageFile(name: string, bytes: Uint8Array): ImageHeader {
  if (bytes.length === 0) throw new EngineError('image-corrupt', `"${name}" is empty (0 bytes). Choose another photo.`);
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new EngineError(
      'image-too-large',
      `"${name}" is ${(bytes.length / 1048576).toFixed(0)} MB; photos up to ${MAX_IMAGE_BYTES / 1048576} MB can be shared. Export a smaller copy and try again.`,
    );
  }
  const header = readImageHeader(bytes);
  if (!header) {
    throw new EngineError('image-unsupported', `"${name}" is not an image this app can read. Add a ${ACCEPTED} file.`);
  }
  const { width, height } = header;
  if (width === 0 || height === 0) {
    throw new EngineError('image-corrupt', `"${name}" says it is ${width} × ${height} pixels, so the file is damaged. Choose another photo.`);
  }
  // Name the limit that is exceeded: "40 megapixels; the limit is 40 megapixels" helps no one.
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    const side = width >= height ? `width of ${width}` : `height of ${height}`;
    throw new EngineError(
      'image-too-large',
      `"${name}" is ${width} × ${height} pixels; its ${side} pixels is over the limit of ${MAX_IMAGE_SIDE} pixels a side. Resize it to at most ${MAX_IMAGE_SIDE} pixels a side and try again.`,
    );
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    const mp = (width * height) / 1e6;
    // Enough digits that the figure shown is over the limit shown (40.008, not 40.0).
    const shown = Number(mp.toFixed(1)) > MAX_IMAGE_PIXELS / 1e6 ? mp.toFixed(1) : mp.toFixed(3);
    throw new EngineError(
      'image-too-large',
      `"${name}" is ${width} × ${height} pixels (${shown} megapixels), over the limit of ${MAX_IMAGE_PIXELS / 1e6} megapixels. Resize it and try again.`,
    );
  }
  return header;
}
