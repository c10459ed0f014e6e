/**
 * What the video models read from a clip's sampled frames, defined once for the Node exporter, the
 * benchmark and the worker: coloured blobs found in each frame (saturated pixels of one of six hues,
 * joined into connected regions, their shape told by how much of their box they fill), and for each
 * colour-and-shape slot when it is seen, where it moves and how many blobs each frame has.
 */
import type { RgbaImage } from '../image/rgbaImage';
import { SHAPE_COLORS, SHAPE_KINDS, type ShapeColor, type ShapeKind } from './videoClips';

/** Frames the page samples from a video, evenly spaced. */
export const SAMPLED_FRAMES = 8;
/** Frames are reduced to this width (height in proportion) before blobs are found. */
const WORK_WIDTH = 80;
/** Regions smaller than this fraction of the frame are noise. */
const MIN_BLOB_FRACTION = 0.004;
const SLOT_FEATURES = 5;
export const VIDEO_FEATURES = SHAPE_COLORS.length * SHAPE_KINDS.length * SLOT_FEATURES + SAMPLED_FRAMES + 1;

export interface ColorBlob {
  color: ShapeColor;
  shape: ShapeKind;
  /** Centre and size as fractions of the frame. */
  x: number;
  y: number;
  area: number;
  /** Square-ish box, well filled: drawn shapes are; a patch of a real scene (wood, a shirt) seldom is. */
  shapeLike: boolean;
}

/** Hue centres (degrees) of the six colours, as the renderer draws them. */
const HUES: Record<ShapeColor, number> = { red: 358, orange: 32, yellow: 54, green: 130, blue: 226, purple: 280 };

function hueClass(r: number, g: number, b: number): ShapeColor | null {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max < 60 || (max - min) / max < 0.45) return null;
  const d = max - min;
  let h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  h = (h * 60 + 360) % 360;
  let best: ShapeColor | null = null;
  let bestDistance = 25;
  for (const color of SHAPE_COLORS) {
    const distance = Math.min(Math.abs(h - HUES[color]), 360 - Math.abs(h - HUES[color]));
    if (distance < bestDistance) {
      best = color;
      bestDistance = distance;
    }
  }
  return best;
}

/** The coloured blobs of one frame, largest first. */
export function colorBlobs(frame: RgbaImage): ColorBlob[] {
  const scale = frame.width / WORK_WIDTH;
  const w = WORK_WIDTH;
  const h = Math.max(1, Math.round(frame.height / scale));
  const classes = new Int8Array(w * h).fill(-1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Box-average the source pixels that fall in this cell.
      let r = 0,
        g = 0,
        b = 0,
        n = 0;
      const x0 = Math.floor(x * scale),
        x1 = Math.max(x0 + 1, Math.floor((x + 1) * scale));
      const y0 = Math.floor(y * scale),
        y1 = Math.max(y0 + 1, Math.floor((y + 1) * scale));
      for (let sy = y0; sy < Math.min(y1, frame.height); sy++) {
        for (let sx = x0; sx < Math.min(x1, frame.width); sx++) {
          const o = (sy * frame.width + sx) * 4;
          r += frame.data[o]!;
          g += frame.data[o + 1]!;
          b += frame.data[o + 2]!;
          n++;
        }
      }
      if (n === 0) continue;
      const color = hueClass(r / n, g / n, b / n);
      if (color) classes[y * w + x] = SHAPE_COLORS.indexOf(color);
    }
  }
  const seen = new Uint8Array(w * h);
  const blobs: ColorBlob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    const cls = classes[start]!;
    if (cls < 0 || seen[start]) continue;
    let area = 0,
      sx = 0,
      sy = 0,
      minX = w,
      maxX = 0,
      minY = h,
      maxY = 0;
    stack.push(start);
    seen[start] = 1;
    while (stack.length > 0) {
      const p = stack.pop()!;
      const px = p % w,
        py = (p - px) / w;
      area++;
      sx += px;
      sy += py;
      minX = Math.min(minX, px);
      maxX = Math.max(maxX, px);
      minY = Math.min(minY, py);
      maxY = Math.max(maxY, py);
      for (const q of [px > 0 ? p - 1 : -1, px < w - 1 ? p + 1 : -1, py > 0 ? p - w : -1, py < h - 1 ? p + w : -1]) {
        if (q >= 0 && !seen[q] && classes[q] === cls) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    if (area < MIN_BLOB_FRACTION * w * h) continue;
    const fill = area / ((maxX - minX + 1) * (maxY - minY + 1));
    const aspect = (maxX - minX + 1) / (maxY - minY + 1);
    // A square fills its box, a circle pi/4 of it, a triangle half.
    const shape: ShapeKind = fill > 0.88 ? 'square' : fill > 0.64 ? 'circle' : 'triangle';
    blobs.push({
      color: SHAPE_COLORS[cls]!,
      shape,
      x: (sx / area + 0.5) / w,
      y: (sy / area + 0.5) / h,
      area: area / (w * h),
      shapeLike: aspect > 0.7 && aspect < 1.4 && fill > 0.4 && area / (w * h) < 0.1,
    });
  }
  return blobs.sort((a, b) => b.area - a.area);
}

/**
 * The video features (VIDEO_FEATURES floats): for each colour x shape slot, the share of frames it is
 * seen in, the first and last frame it is seen in (0..1), its net and absolute horizontal travel; then
 * the number of blobs in each frame (/4) and the most in any frame (/4). Slots unseen stay zero.
 */
export function videoFeatures(blobsPerFrame: readonly (readonly ColorBlob[])[]): Float32Array {
  const out = new Float32Array(VIDEO_FEATURES);
  const frames = blobsPerFrame.length;
  const last = Math.max(1, frames - 1);
  SHAPE_COLORS.forEach((color, c) =>
    SHAPE_KINDS.forEach((shape, s) => {
      const seenAt = blobsPerFrame.flatMap((blobs, f) => {
        const blob = blobs.find((b) => b.color === color && b.shape === shape);
        return blob ? [{ f, x: blob.x }] : [];
      });
      if (seenAt.length === 0) return;
      const o = (c * SHAPE_KINDS.length + s) * SLOT_FEATURES;
      const dx = seenAt[seenAt.length - 1]!.x - seenAt[0]!.x;
      out[o] = seenAt.length / frames;
      out[o + 1] = seenAt[0]!.f / last;
      out[o + 2] = seenAt[seenAt.length - 1]!.f / last;
      out[o + 3] = dx;
      out[o + 4] = Math.abs(dx);
    }),
  );
  const base = SHAPE_COLORS.length * SHAPE_KINDS.length * SLOT_FEATURES;
  blobsPerFrame.slice(0, SAMPLED_FRAMES).forEach((blobs, f) => (out[base + f] = blobs.length / 4));
  out[base + SAMPLED_FRAMES] = Math.max(0, ...blobsPerFrame.map((b) => b.length)) / 4;
  return out;
}

/** Evenly spaced sample times for a video of `seconds`: the middles of SAMPLED_FRAMES equal spans. */
export function sampleTimes(seconds: number, count = SAMPLED_FRAMES): number[] {
  return Array.from({ length: count }, (_, i) => ((i + 0.5) * seconds) / count);
}
