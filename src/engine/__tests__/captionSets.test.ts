import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCaptionCsv, parseCocoCaptions } from '../datasets/captionSets';

describe('caption sets', () => {
  it('reads coco-mini: 159 images with 5 captions each', () => {
    const json = JSON.parse(readFileSync(new URL('../../../../shared/data/coco-mini/captions.json', import.meta.url), 'utf8')) as unknown;
    const set = parseCocoCaptions(json, 'captions.json');
    expect(set.images).toHaveLength(159);
    expect(set.images.reduce((s, i) => s + i.captions.length, 0)).toBe(795);
  });

  it('reads a two-column CSV with quotes, commas and an optional header', () => {
    const set = parseCaptionCsv('image,caption\na.jpg,"A dog, running"\na.jpg,a dog\nb.png,"She said ""hi"""\n', 'pairs.csv');
    expect(set.images).toEqual([
      { file: 'a.jpg', captions: ['A dog, running', 'a dog'] },
      { file: 'b.png', captions: ['She said "hi"'] },
    ]);
  });

  it('names the line or record that is wrong', () => {
    expect(() => parseCaptionCsv('a.jpg,one,two\n', 'pairs.csv')).toThrow('pairs.csv: line 1 should be "image,caption"');
    expect(() => parseCocoCaptions({ images: [{ id: 1, file_name: 'a.jpg' }], annotations: [{ image_id: 2, caption: 'x' }] }, 'c.json')).toThrow(
      'c.json: annotations[0] refers to image_id 2',
    );
    expect(() => parseCocoCaptions({ images: 'nope', annotations: [] }, 'c.json')).toThrow('c.json: "images" must be a list.');
  });
});
