import { describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { MAX_IMAGE_PIXELS, checkImageFile, readImageHeader, sniffImageFormat } from '../image/imageFormat';
import { readBytes } from './fixture';

function pngHeader(width: number, height: number): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  return b;
}

function jpegHeader(width: number, height: number): Uint8Array {
  // SOI, an APP0 segment to skip, then SOF0 with the size.
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x04,
    0x4a,
    0x46,
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    3,
    0,
    0,
    0,
    0,
  ]);
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof EngineError ? e.code : 'other';
  }
  return 'none';
}

describe('readImageHeader', () => {
  it('reads the size of the fixture PNGs', () => {
    expect(readImageHeader(readBytes('fixture/landscape.png'))).toEqual({ format: 'png', width: 320, height: 240 });
    expect(readImageHeader(readBytes('fixture/portrait.png'))).toEqual({ format: 'png', width: 180, height: 260 });
  });

  it('reads JPEG (skipping segments before the frame), GIF, WebP and BMP headers', () => {
    expect(readImageHeader(jpegHeader(640, 480))).toEqual({ format: 'jpeg', width: 640, height: 480 });
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x20, 0x03, 0x58, 0x02]);
    expect(readImageHeader(gif)).toEqual({ format: 'gif', width: 800, height: 600 });
    const webp = new Uint8Array(30);
    webp.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    );
    webp.set(
      [...'WEBPVP8X'].map((c) => c.charCodeAt(0)),
      8,
    );
    webp.set([0x1f, 0x03, 0x00, 0x57, 0x02, 0x00], 24); // 800 - 1, 600 - 1 as 24-bit little endian
    expect(readImageHeader(webp)).toEqual({ format: 'webp', width: 800, height: 600 });
    const bmp = new Uint8Array(26);
    bmp.set([0x42, 0x4d]);
    new DataView(bmp.buffer).setInt32(18, 64, true);
    new DataView(bmp.buffer).setInt32(22, -32, true); // top-down bitmaps have negative height
    expect(readImageHeader(bmp)).toEqual({ format: 'bmp', width: 64, height: 32 });
  });

  it('does not recognise text, or a file named .jpg that is not one', () => {
    expect(readImageHeader(new TextEncoder().encode('These are my notes, not a photo.'))).toBeNull();
    expect(readImageHeader(new Uint8Array([0xff, 0xd8]))).toBeNull();
  });
});

describe('checkImageFile', () => {
  it('accepts an ordinary photo', () => {
    expect(checkImageFile('cat.png', pngHeader(1024, 768))).toMatchObject({ width: 1024, height: 768 });
  });

  it('refuses non-images, empty files, zero sizes and images over the limits, naming the file', () => {
    expect(codeOf(() => checkImageFile('notes.txt', new TextEncoder().encode('hello')))).toBe('image-unsupported');
    expect(codeOf(() => checkImageFile('empty.jpg', new Uint8Array()))).toBe('image-corrupt');
    expect(codeOf(() => checkImageFile('zero.png', pngHeader(0, 100)))).toBe('image-corrupt');
    expect(codeOf(() => checkImageFile('huge.png', pngHeader(12000, 12000)))).toBe('image-too-large');
    expect(codeOf(() => checkImageFile('tall.jpg', jpegHeader(100, 20000)))).toBe('image-too-large');
    expect(() => checkImageFile('huge.png', pngHeader(12000, 12000))).toThrow(
      '"huge.png" is 12000 × 12000 pixels (144.0 megapixels), over the limit of 40 megapixels. Resize it and try again.',
    );
  });

  it('names the limit that is exceeded: a 20000 × 2000 BMP is 40 megapixels, within that limit, but too wide', () => {
    const bmp = new Uint8Array(26);
    bmp.set([0x42, 0x4d]);
    new DataView(bmp.buffer).setInt32(18, 20000, true);
    new DataView(bmp.buffer).setInt32(22, 2000, true);
    expect(() => checkImageFile('wide.bmp', bmp)).toThrow(
      '"wide.bmp" is 20000 × 2000 pixels; its width of 20000 pixels is over the limit of 16384 pixels a side. Resize it to at most 16384 pixels a side and try again.',
    );
    expect(() => checkImageFile('huge.png', pngHeader(8000, 5001))).toThrow('(40.008 megapixels), over the limit of 40 megapixels');
  });

  it('allows exactly the pixel limit and refuses one row more', () => {
    const side = 8000;
    const rows = MAX_IMAGE_PIXELS / side;
    expect(codeOf(() => checkImageFile('a.png', pngHeader(side, rows)))).toBe('none');
    expect(codeOf(() => checkImageFile('b.png', pngHeader(side, rows + 1)))).toBe('image-too-large');
  });
});

describe('sniffImageFormat', () => {
  it('reads the format from the magic bytes alone, whatever follows', () => {
    const gifWithScript = new Uint8Array([...new TextEncoder().encode('GIF89a'), 1, 0, 1, 0, ...new TextEncoder().encode('<script>')]);
    expect(sniffImageFormat(gifWithScript)).toBe('gif');
    expect(sniffImageFormat(pngHeader(2, 2))).toBe('png');
    expect(sniffImageFormat(jpegHeader(2, 2))).toBe('jpeg');
    expect(sniffImageFormat(new TextEncoder().encode('<html><script>alert(1)</script>'))).toBeNull();
    expect(sniffImageFormat(new Uint8Array())).toBeNull();
  });
});
