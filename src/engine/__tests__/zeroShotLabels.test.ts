import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from '../detection/cocoClasses';
import { ZERO_SHOT_PROMPTS, zeroShotRanks } from '../perception/zeroShotLabels';

/** One unit vector per class along its own axis, so a photo's cosine with a prompt is its coordinate there. */
const axisPrompts = () => COCO_CLASSES.map((_, i) => Float32Array.from({ length: COCO_CLASSES.length }, (_, j) => (i === j ? 1 : 0)));

describe('zero-shot ranks over the 80 COCO names', () => {
  it("has one prompt per class, with the caption's own nouns", () => {
    expect(ZERO_SHOT_PROMPTS).toHaveLength(80);
    expect(ZERO_SHOT_PROMPTS[COCO_CLASSES.indexOf('dog')]).toBe('a photo of a dog');
    expect(ZERO_SHOT_PROMPTS[COCO_CLASSES.indexOf('umbrella')]).toBe('a photo of an umbrella');
    expect(ZERO_SHOT_PROMPTS[COCO_CLASSES.indexOf('dining table')]).toBe('a photo of a table');
    expect(ZERO_SHOT_PROMPTS[COCO_CLASSES.indexOf('broccoli')]).toBe('a photo of broccoli');
  });

  it("ranks labels by cosine, 1 the nearest, whatever the embedding's length", () => {
    const image = new Float32Array(80);
    image[COCO_CLASSES.indexOf('cat')] = 6;
    image[COCO_CLASSES.indexOf('dog')] = 4;
    image[COCO_CLASSES.indexOf('bear')] = 2;
    const ranks = zeroShotRanks(image, axisPrompts());
    expect(ranks.get('cat')).toBe(1);
    expect(ranks.get('dog')).toBe(2);
    expect(ranks.get('bear')).toBe(3);
    // The rest tie at 0 and keep class order after them.
    expect(ranks.get('person')).toBe(4);
    expect(ranks.get('toothbrush')).toBe(80);
    expect(new Set(ranks.values()).size).toBe(80);
  });

  it('refuses a prompt table of the wrong size', () => {
    expect(() => zeroShotRanks(new Float32Array(4), [new Float32Array(4)])).toThrow(/80 prompt embeddings/);
  });
});
