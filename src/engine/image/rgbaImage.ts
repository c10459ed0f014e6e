/** Decoded pixels, 4 bytes per pixel (RGBA), row-major: the shape of ImageData, without the DOM. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * Composites transparent pixels onto white, as a sticker is seen in a chat bubble (and as mini-clip
 * saw emoji in training). Opaque images are returned as they are, so photos are untouched; browsers
 * and Node decoders disagree on the colour under fully transparent pixels, and this removes it.
 */
export function flattenOnWhite(image: RgbaImage): RgbaImage {
  const { data } = image;
  let opaque = true;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) {
      opaque = false;
      break;
    }
  }
  if (opaque) return image;
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]!;
    const white = 255 * (255 - a);
    out[i] = Math.floor((data[i]! * a + white + 127) / 255);
    out[i + 1] = Math.floor((data[i + 1]! * a + white + 127) / 255);
    out[i + 2] = Math.floor((data[i + 2]! * a + white + 127) / 255);
    out[i + 3] = 255;
  }
  return { width: image.width, height: image.height, data: out };
}
