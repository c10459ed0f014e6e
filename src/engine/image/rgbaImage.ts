/** Decoded pixels, 4 bytes per pixel (RGBA), row-major: the shape of ImageData, without the DOM. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray;
}
