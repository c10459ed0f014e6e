import { describe, expect, it } from 'vitest';
import { CROSS_CLASS_IOU, decodeDetections, iou } from '../detection/decodeDetections';
import { parseDetectorConfig } from '../detection/detectorConfig';
import { letterboxInput } from '../detection/letterbox';
import { EngineError } from '../errors';
import { boxReduce } from '../image/boxReduce';

const rgba = (width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number]) => {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  return { width, height, data };
};

describe('boxReduce', () => {
  it('averages each factor x factor block, rounding to nearest, with partial blocks at the edges', () => {
    // 3 x 2 image, factor 2: blocks {(0,0),(1,0),(0,1),(1,1)} and the partial column {(2,0),(2,1)}.
    const img = rgba(3, 2, (x, y) => [x * 10 + y, 100, 255, 255]);
    const out = boxReduce(img, 2);
    expect([out.width, out.height]).toEqual([2, 1]);
    // red: (0 + 10 + 1 + 11) / 4 = 5.5 -> 6; (20 + 21) / 2 = 20.5 -> 21
    expect(Array.from(out.data)).toEqual([6, 100, 255, 255, 21, 100, 255, 255]);
  });

  it('returns the image itself for factor 1 and refuses a factor that is not a positive integer', () => {
    const img = rgba(2, 2, () => [1, 2, 3, 4]);
    expect(boxReduce(img, 1)).toBe(img);
    expect(() => boxReduce(img, 1.5)).toThrow(RangeError);
  });
});

describe('letterboxInput', () => {
  it('fits the longer side, keeps the aspect and centres the photo on black padding', () => {
    // 8 x 4 white photo into a 4 x 4 input: resized to 4 x 2, rows 1-2 white, rows 0 and 3 black.
    const input = letterboxInput(
      rgba(8, 4, () => [255, 255, 255, 255]),
      4,
      4,
    );
    expect([input.inputWidth, input.inputHeight]).toEqual([4, 4]);
    expect(input.placement).toEqual({ scale: 0.5, dx: 0, dy: 1 });
    const row = (y: number) => Array.from(input.pixels.subarray(y * 12, y * 12 + 12));
    expect(row(0)).toEqual(new Array(12).fill(0));
    expect(row(1)).toEqual(new Array(12).fill(255));
    expect(row(2)).toEqual(new Array(12).fill(255));
    expect(row(3)).toEqual(new Array(12).fill(0));
  });

  it('pads each side only to the multiple asked for, and gives float RGB 0-255', () => {
    const input = letterboxInput(
      rgba(64, 40, () => [10, 20, 30, 255]),
      64,
      32,
    );
    expect([input.inputWidth, input.inputHeight]).toEqual([64, 64]);
    expect(input.placement.dy).toBe(12);
    expect(Array.from(input.pixels.subarray(12 * 64 * 3, 12 * 64 * 3 + 3))).toEqual([10, 20, 30]);
    const fitted = letterboxInput(
      rgba(64, 40, () => [10, 20, 30, 255]),
      64,
      8,
    );
    expect([fitted.inputWidth, fitted.inputHeight]).toEqual([64, 40]);
  });

  it('flattens a transparent sticker on white, as the image encoder sees it', () => {
    const input = letterboxInput(
      rgba(4, 4, () => [0, 0, 0, 0]),
      4,
      4,
    );
    expect(Array.from(input.pixels.subarray(0, 3))).toEqual([255, 255, 255]);
  });

  it('box-reduces a photo much larger than the input before resizing it', () => {
    // A 4000 x 2000 photo of vertical stripes 1 px wide: any area average is mid-grey.
    const input = letterboxInput(
      rgba(4000, 2000, (x) => (x % 2 ? [255, 255, 255, 255] : [0, 0, 0, 255])),
      100,
      100,
    );
    const centre = input.pixels[(50 * 100 + 50) * 3]!;
    expect(Math.abs(centre - 127.5)).toBeLessThan(2);
  });
});

describe('decodeDetections', () => {
  const classes = ['person', 'car', 'truck'];
  const placement = { scale: 0.5, dx: 0, dy: 64 };
  const row = (x1: number, y1: number, x2: number, y2: number, score: number, cls: number) => [x1, y1, x2, y2, score, cls];

  it('maps boxes back to the photo, drops weak rows and keeps the strongest first', () => {
    const rows = new Float32Array([...row(10, 74, 110, 174, 0.9, 0), ...row(0, 64, 50, 100, 0.1, 1)]);
    const found = decodeDetections(rows, placement, classes, { width: 400, height: 300 });
    expect(found).toEqual([{ classIndex: 0, label: 'person', score: expect.closeTo(0.9, 6), box: { x1: 20, y1: 20, x2: 220, y2: 220 } }]);
  });

  it('keeps one of two same-class boxes overlapping past 0.5, and two classes unless they overlap past CROSS_CLASS_IOU', () => {
    const rows = new Float32Array([
      ...row(0, 64, 100, 164, 0.8, 1), // car
      ...row(5, 64, 100, 164, 0.6, 2), // truck on the same box: IoU 0.95 -> dropped
      ...row(10, 74, 110, 174, 0.7, 1), // the same car found twice: IoU 0.68 -> dropped
      ...row(50, 64, 150, 164, 0.5, 0), // a person half over the car: IoU 0.33 -> kept
    ]);
    const found = decodeDetections(rows, placement, classes, { width: 400, height: 300 });
    expect(found.map((d) => d.label)).toEqual(['car', 'person']);
    expect(CROSS_CLASS_IOU).toBeGreaterThan(0.33);
  });

  it('drops boxes that fall wholly in the padding and classes outside the list', () => {
    const rows = new Float32Array([...row(0, 0, 100, 60, 0.9, 0), ...row(0, 64, 100, 164, 0.9, 7)]);
    expect(decodeDetections(rows, placement, classes, { width: 400, height: 300 })).toEqual([]);
  });

  it('computes intersection over union', () => {
    expect(iou({ x1: 0, y1: 0, x2: 2, y2: 2 }, { x1: 1, y1: 1, x2: 3, y2: 3 })).toBeCloseTo(1 / 7, 10);
    expect(iou({ x1: 0, y1: 0, x2: 1, y2: 1 }, { x1: 2, y1: 2, x2: 3, y2: 3 })).toBe(0);
  });
});

describe('parseDetectorConfig', () => {
  const valid = {
    version: 1,
    input: { name: 'images', maxSide: 512, multiple: 32, layout: 'NHWC' },
    outputs: { detections: 'detections' },
    classes: ['person'],
  };

  it('reads what the engine needs', () => {
    expect(parseDetectorConfig(valid, 'models/detector/')).toMatchObject({ inputName: 'images', maxSide: 512, multiple: 32, classes: ['person'] });
  });

  it.each([
    [{ ...valid, version: 2 }, /version 2/],
    [{ ...valid, input: { ...valid.input, multiple: 48 } }, /input.multiple/],
    [{ ...valid, input: { ...valid.input, layout: 'NCHW' } }, /input.layout/],
    [{ ...valid, classes: [] }, /class names/],
  ])('names the field of a damaged detector.json and says what to do', (json, field) => {
    const error = (() => {
      try {
        parseDetectorConfig(json, 'models/detector/');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).message).toMatch(field);
    expect((error as EngineError).message).toMatch(/Restore the detector/);
  });
});
