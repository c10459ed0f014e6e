import { resizeBicubicLikePillow } from '../image/pilResize';
import { type RgbaImage, flattenOnWhite } from '../image/rgbaImage';

/** Where the shared photo sits inside the detector's square input. */
export interface LetterboxPlacement {
  /** Input pixels per photo pixel. */
  scale: number;
  dx: number;
  dy: number;
}

/**
 * The detector's input: the photo resized to fit a size x size square with its aspect kept, centred
 * on black, as float RGB 0-255 in NHWC order. This is how the original CenterNet code fed its model;
 * stretching to a square finds fewer objects, and 0-1 pixels find none. Transparent stickers are
 * flattened on white first, as the image encoder sees them.
 */
export function letterboxInput(image: RgbaImage, size: number): { pixels: Float32Array; placement: LetterboxPlacement } {
  const flat = flattenOnWhite(image);
  const scale = Math.min(size / flat.width, size / flat.height);
  const width = Math.max(1, Math.min(size, Math.round(flat.width * scale)));
  const height = Math.max(1, Math.min(size, Math.round(flat.height * scale)));
  const resized = width === flat.width && height === flat.height ? flat : resizeBicubicLikePillow(flat, width, height);
  const dx = Math.floor((size - width) / 2);
  const dy = Math.floor((size - height) / 2);
  const pixels = new Float32Array(size * size * 3);
  const src = resized.data;
  for (let y = 0; y < height; y++) {
    let o = ((y + dy) * size + dx) * 3;
    let p = y * width * 4;
    for (let x = 0; x < width; x++, o += 3, p += 4) {
      pixels[o] = src[p]!;
      pixels[o + 1] = src[p + 1]!;
      pixels[o + 2] = src[p + 2]!;
    }
  }
  return { pixels, placement: { scale: width / flat.width, dx, dy } };
}
