import { describe, expect, it } from 'vitest';
import { imageTextRetrieval } from '../metrics/retrievalMetrics';
import { stackRows } from '../retrieval/vectors';

const v = (...xs: number[]) => new Float32Array(xs);

describe('imageTextRetrieval', () => {
  // Three images on the axes; four captions: two of image 0, one of image 1, one of image 2.
  const images = stackRows([v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)]);
  const captions = stackRows([
    v(1, 0, 0), // image 0: rank 1
    v(0, 0.6, 0.8), // image 0: scores 0, 0.6, 0.8 -> rank 3
    v(0.8, 0.6, 0), // image 1: scores 0.8, 0.6, 0 -> rank 2
    v(0, 0, 1), // image 2: rank 1
  ]);
  const result = imageTextRetrieval(images, captions, [0, 0, 1, 2]);

  it("ranks each caption's image among all images (hand-computed)", () => {
    expect(result.textToImage).toEqual({ r1: 50, r5: 100, r10: 100, meanRank: (1 + 3 + 2 + 1) / 4, queries: 4 });
  });

  it("ranks the best of each image's captions among all captions (hand-computed)", () => {
    // image 0: caption 0 scores 1 -> rank 1. image 1: captions score [0, .6, .6, 0]; its caption 2 ties
    // with caption 1, ties count against it -> rank 2. image 2: caption 3 scores 1 -> rank 1.
    const { r1, r5, meanRank, queries } = result.imageToText;
    expect(r1).toBeCloseTo(200 / 3, 10);
    expect(r5).toBe(100);
    expect(meanRank).toBeCloseTo(4 / 3, 10);
    expect(queries).toBe(3);
  });

  it('gives the chance level of a random ranking', () => {
    expect(result.chance.textToImage.r1).toBeCloseTo(100 / 3, 10);
    expect(result.chance.textToImage.meanRank).toBe(2);
    // image 0 has 2 of 4 captions: P(hit@1) = 1/2; images 1 and 2: 1/4 each -> mean 1/3.
    expect(result.chance.imageToText.r1).toBeCloseTo(100 / 3, 10);
    // coco-mini: 159 images, chance of text-to-image R@5 is 5/159 = 3.1%.
    const coco = imageTextRetrieval(stackRows(Array.from({ length: 159 }, () => v(1))), stackRows([v(1)]), [0]);
    expect(coco.chance.textToImage.r5).toBeCloseTo(3.14, 2);
  });
});
