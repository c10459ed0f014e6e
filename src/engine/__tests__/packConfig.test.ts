import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClipConfig, parseImageConfig } from '../pack/packConfig';

const sharedTokenizerDir = new URL('../../../../shared/data/clip-tokenizer/', import.meta.url);

describe('pack configs', () => {
  it('reads the real clip-vit-base-patch32 configs', () => {
    const config = parseClipConfig(JSON.parse(readFileSync(new URL('config.json', sharedTokenizerDir), 'utf8')));
    expect(config.projectionDim).toBe(512);
    expect(config.maxTextLength).toBe(77);
    expect(config.logitScale).toBeCloseTo(Math.exp(2.6592), 6);
    const image = parseImageConfig(JSON.parse(readFileSync(new URL('preprocessor_config.json', sharedTokenizerDir), 'utf8')));
    expect(image).toMatchObject({ shortestEdge: 224, cropHeight: 224, cropWidth: 224, mean: [0.48145466, 0.4578275, 0.40821073] });
  });

  it('names the file and field that is wrong', () => {
    expect(() => parseClipConfig({ text_config: {} })).toThrow('config.json: "projection_dim" should be a number');
    expect(() => parseClipConfig([])).toThrow('config.json: "(root)" should be an object');
    expect(() => parseImageConfig({ size: 224, image_mean: [0.5, 0.5], image_std: [1, 1, 1] })).toThrow(
      'preprocessor_config.json: "image_mean" should be a list of three numbers',
    );
  });
});
