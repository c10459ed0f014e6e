import { boxReduce } from '../image/boxReduce';
import { resizeBicubicLikePillow } from '../image/pilResize';
import { type RgbaImage, flattenOnWhite } from '../image/rgbaImage';

/** Changes whenever the input below would change for the same photo: part of the detector's fingerprint. */
export const LETTERBOX_VERSION = 3;

/** Where the shared photo sits inside the detector's square input. */
export interface LetterboxPlacement {
  /** Input pixels per photo pixel. */
  scale: number;
  dx: number;
  dy: number;
}

/** The detector's input: pixels in NHWC order and the input's size. */
export interface DetectorInput {
  pixels: Float32Array;
  inputWidth: number;
  inputHeight: number;
  placement: LetterboxPlacement;
}

/**
 * The detector's input: the photo resized with its aspect kept so its longer side is maxSide, centred
 * on black padding that brings each side to a multiple of `multiple`, as float RGB 0-255 in NHWC
 * order. This is how the original CenterNet code fed its model (stretching finds fewer objects, and
 * 0-1 pixels find none), minus the padding to a square: a 4:3 photo costs three quarters of it.
 * Transparent stickers are flattened on white first, as the image encoder sees them.
 */
export function letterboxInput(image: RgbaImage, maxSide: number, multiple = 1): DetectorInput {
  const scale = Math.min(maxSide / image.width, maxSide / image.height);
  const width = Math.max(1, Math.min(maxSide, Math.round(image.width * scale)));
  const height = Math.max(1, Math.min(maxSide, Math.round(image.height * scale)));
  const inputWidth = Math.ceil(width / multiple) * multiple;
  const inputHeight = Math.ceil(height / multiple) * multiple;
  // A big photo is first box-reduced (an area average) to less than twice the target, then resized:
  // the same picture for the detector at a fraction of the cost of resizing it whole.
  const reduced = boxReduce(image, Math.max(1, Math.floor(Math.min(image.width / width, image.height / height))));
  const flat = flattenOnWhite(reduced);
  const resized = width === flat.width && height === flat.height ? flat : resizeBicubicLikePillow(flat, width, height);
  const dx = Math.floor((inputWidth - width) / 2);
  const dy = Math.floor((inputHeight - height) / 2);
  const pixels = new Float32Array(inputWidth * inputHeight * 3);
  const src = resized.data;
  for (let y = 0; y < height; y++) {
    let o = ((y + dy) * inputWidth + dx) * 3;
    let p = y * width * 4;
    for (let x = 0; x < width; x++, o += 3, p += 4) {
      pixels[o] = src[p]!;
      pixels[o + 1] = src[p + 1]!;
      pixels[o + 2] = src[p + 2]!;
    }
  }
  return { pixels, inputWidth, inputHeight, placement: { scale: width / image.width, dx, dy } };
}
