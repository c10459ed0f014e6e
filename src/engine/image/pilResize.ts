import type { RgbaImage } from './rgbaImage';

/**
 * Bicubic resampling exactly as Pillow's Image.resize(..., BICUBIC) does it on 8-bit images
 * (libImaging/Resample.c): antialiased when shrinking (the filter support grows with the scale),
 * fixed-point coefficients with 22 fractional bits, horizontal pass first, clipped to bytes after
 * each pass. CLIP's reference preprocessing runs through Pillow, so matching it bit for bit keeps
 * browser embeddings equal to the Python ones.
 */
const PRECISION_BITS = 32 - 8 - 2;
const ONE = 2 ** PRECISION_BITS;
const HALF = 2 ** (PRECISION_BITS - 1);
const BICUBIC_SUPPORT = 2;

function bicubic(x: number): number {
  const a = -0.5;
  const t = Math.abs(x);
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

interface Coefficients {
  bounds: Int32Array; // [start, count] per output pixel
  weights: Int32Array; // ksize per output pixel, fixed point
  ksize: number;
}

function precomputeCoefficients(inSize: number, outSize: number): Coefficients {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = BICUBIC_SUPPORT * filterScale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const weights = new Int32Array(outSize * ksize);
  const k = new Float64Array(ksize);
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const ss = 1 / filterScale;
    // Pillow truncates toward zero with (int) casts here.
    let xmin = Math.trunc(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    let xmax = Math.trunc(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    let total = 0;
    for (let x = 0; x < xmax; x++) {
      const w = bicubic((x + xmin - center + 0.5) * ss);
      k[x] = w;
      total += w;
    }
    for (let x = 0; x < ksize; x++) {
      const w = x < xmax && total !== 0 ? k[x]! / total : 0;
      // normalize_coeffs_8bpc: round half away from zero.
      weights[xx * ksize + x] = w < 0 ? Math.trunc(-0.5 + w * ONE) : Math.trunc(0.5 + w * ONE);
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { bounds, weights, ksize };
}

function clip8(sum: number): number {
  // Pillow shifts right by PRECISION_BITS (an arithmetic shift, i.e. floor) and clamps.
  const v = Math.floor(sum / ONE);
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

function resizeHorizontal(src: RgbaImage, outWidth: number): RgbaImage {
  const { width, height, data } = src;
  const { bounds, weights, ksize } = precomputeCoefficients(width, outWidth);
  const out = new Uint8Array(outWidth * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    for (let xx = 0; xx < outWidth; xx++) {
      const xmin = bounds[xx * 2]!;
      const xmax = bounds[xx * 2 + 1]!;
      const kOff = xx * ksize;
      let r = HALF,
        g = HALF,
        b = HALF;
      for (let x = 0; x < xmax; x++) {
        const w = weights[kOff + x]!;
        const p = row + (x + xmin) * 4;
        r += data[p]! * w;
        g += data[p + 1]! * w;
        b += data[p + 2]! * w;
      }
      const o = (y * outWidth + xx) * 4;
      out[o] = clip8(r);
      out[o + 1] = clip8(g);
      out[o + 2] = clip8(b);
      out[o + 3] = 255;
    }
  }
  return { width: outWidth, height, data: out };
}

function resizeVertical(src: RgbaImage, outHeight: number): RgbaImage {
  const { width, height, data } = src;
  const { bounds, weights, ksize } = precomputeCoefficients(height, outHeight);
  const out = new Uint8Array(width * outHeight * 4);
  for (let yy = 0; yy < outHeight; yy++) {
    const ymin = bounds[yy * 2]!;
    const ymax = bounds[yy * 2 + 1]!;
    const kOff = yy * ksize;
    for (let x = 0; x < width; x++) {
      let r = HALF,
        g = HALF,
        b = HALF;
      for (let y = 0; y < ymax; y++) {
        const w = weights[kOff + y]!;
        const p = ((y + ymin) * width + x) * 4;
        r += data[p]! * w;
        g += data[p + 1]! * w;
        b += data[p + 2]! * w;
      }
      const o = (yy * width + x) * 4;
      out[o] = clip8(r);
      out[o + 1] = clip8(g);
      out[o + 2] = clip8(b);
      out[o + 3] = 255;
    }
  }
  return { width, height: outHeight, data: out };
}

/** Alpha is dropped (set opaque), as Pillow's convert('RGB') does before CLIP preprocessing. */
export function resizeBicubicLikePillow(image: RgbaImage, outWidth: number, outHeight: number): RgbaImage {
  let current: RgbaImage = image;
  if (outWidth !== image.width) current = resizeHorizontal(current, outWidth);
  if (outHeight !== image.height) current = resizeVertical(current, outHeight);
  return current;
}
