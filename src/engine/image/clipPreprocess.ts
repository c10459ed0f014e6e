import type { ClipImageConfig } from '../pack/packConfig';
import { resizeBicubicLikePillow } from './pilResize';
import { flattenOnWhite } from './rgbaImage';
import type { RgbaImage } from './rgbaImage';

/** Output size of a shortest-edge resize, as Hugging Face's get_resize_output_image_size computes it. */
function shortestEdgeSize(width: number, height: number, shortestEdge: number): { width: number; height: number } {
  return width <= height
    ? { width: shortestEdge, height: Math.trunc((shortestEdge * height) / width) }
    : { width: Math.trunc((shortestEdge * width) / height), height: shortestEdge };
}

/** Resize (bicubic, shortest edge) and center crop: the 8-bit RGB crop before rescaling, HWC order. */
export function resizedCenterCrop(image: RgbaImage, config: ClipImageConfig): Uint8Array {
  image = flattenOnWhite(image);
  const size = shortestEdgeSize(image.width, image.height, config.shortestEdge);
  const resized = resizeBicubicLikePillow(image, size.width, size.height);
  const { cropWidth, cropHeight } = config;
  const top = Math.floor((resized.height - cropHeight) / 2);
  const left = Math.floor((resized.width - cropWidth) / 2);
  const crop = new Uint8Array(cropWidth * cropHeight * 3);
  for (let y = 0; y < cropHeight; y++) {
    const sy = y + top;
    for (let x = 0; x < cropWidth; x++) {
      const sx = x + left;
      const o = (y * cropWidth + x) * 3;
      // Padding with black if the image is smaller than the crop (cannot happen after the resize above
      // unless the crop is larger than the shortest edge).
      if (sy < 0 || sx < 0 || sy >= resized.height || sx >= resized.width) continue;
      const p = (sy * resized.width + sx) * 4;
      crop[o] = resized.data[p]!;
      crop[o + 1] = resized.data[p + 1]!;
      crop[o + 2] = resized.data[p + 2]!;
    }
  }
  return crop;
}

/** Rescale and normalize an RGB crop into CHW float pixel values, written into `out` at `offset`. */
export function normalizeCrop(crop: Uint8Array, config: ClipImageConfig, out: Float32Array, offset = 0): void {
  const plane = config.cropWidth * config.cropHeight;
  // Math.fround at each step reproduces float32 arithmetic of the NumPy reference.
  const f = Math.fround;
  for (let c = 0; c < 3; c++) {
    const mean = f(config.mean[c]!);
    const std = f(config.std[c]!);
    const scale = f(config.rescaleFactor);
    for (let i = 0; i < plane; i++) {
      out[offset + c * plane + i] = f(f(f(crop[i * 3 + c]! * scale) - mean) / std);
    }
  }
}

/** CLIPImageProcessor: pixel_values [n, 3, H, W] for a batch of images. */
export function clipPixelValues(images: readonly RgbaImage[], config: ClipImageConfig): Float32Array {
  const per = 3 * config.cropWidth * config.cropHeight;
  const out = new Float32Array(images.length * per);
  images.forEach((image, i) => normalizeCrop(resizedCenterCrop(image, config), config, out, i * per));
  return out;
}
