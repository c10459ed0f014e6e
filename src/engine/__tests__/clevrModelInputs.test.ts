import { describe, expect, it } from 'vitest';
import { CLEVR_ANSWERS, COUNT_ANSWERS, PIXEL_HEIGHT, PIXEL_WIDTH, pixelInputs, scenePixels, vocabulary, vocabularyCoverage } from '../clevr/clevrFeatures';
import { CLEVR_MODELS } from '../clevr/clevrModels';
import { renderScene } from '../clevr/render';
import { generateScene } from '../clevr/scene';

describe('what the CLEVR-Dialog models read and answer', () => {
  it('the count head fills the first eleven answers, "0" to "10"; "none" is an answer', () => {
    expect(CLEVR_ANSWERS.slice(0, COUNT_ANSWERS)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(CLEVR_ANSWERS).toContain('none');
    expect(CLEVR_ANSWERS).toHaveLength(29);
  });

  it('counts the words the vocabulary lacks, per token and per text, the most frequent first', () => {
    const vocab = vocabulary(['<pad>', '<unk>', 'what', 'is', 'its', 'color']);
    const coverage = vocabularyCoverage(['What is its color?', 'What is the colour of the previous thing?', 'What is the previous one?'], vocab);
    expect(coverage).toEqual({
      texts: 3,
      tokens: 4 + 8 + 5,
      unknownTokens: 0 + 6 + 3,
      textsWithUnknown: 2,
      unknownWords: [
        ['the', 3],
        ['previous', 2],
        ['colour', 1],
        ['of', 1],
        ['one', 1],
        ['thing', 1],
      ],
    });
  });

  it('the pixel models read the scene drawn at 96x64, one colour plane after another, scaled to [0, 1]', () => {
    const scene = generateScene(1, 3, { split: 'train' });
    const pixels = scenePixels(scene);
    expect(pixels).toHaveLength(3 * PIXEL_HEIGHT * PIXEL_WIDTH);
    const drawn = renderScene(scene.objects, 96, 64, 2).data;
    const plane = 96 * 64;
    // Pixel (x 40, y 30): its red, green and blue sit a plane apart.
    const i = 30 * 96 + 40;
    expect([pixels[i], pixels[plane + i], pixels[2 * plane + i]]).toEqual([drawn[4 * i], drawn[4 * i + 1], drawn[4 * i + 2]]);
    const inputs = pixelInputs(pixels);
    expect(inputs[i]).toBeCloseTo(pixels[i]! / 255, 7);
    expect(Math.max(...inputs)).toBeLessThanOrEqual(1);
  });

  it("Table 2 carries the paper's figure for each of its rows built here, and a blank for ours", () => {
    const paper = Object.fromEntries(CLEVR_MODELS.map((m) => [m.id, m.paper]));
    expect(paper).toEqual({
      random: 3.4,
      'random-q': 33.4,
      'lf-q': 40.3,
      'lf-qi': 50.4,
      'lf-qh': 44.1,
      'lf-qih': 55.9,
      'hre-qh': 45.9,
      'hre-qih': 63.3,
      'mn-qh': 44.2,
      'mn-qih': 59.6,
      'coref-qih': null,
      'lf-qi-pixels': null,
    });
  });
});
