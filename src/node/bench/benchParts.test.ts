import { describe, expect, it } from 'vitest';
import type { CaptionSet } from '../../engine/datasets/captionSets';
import { captionMetrics } from '../../engine/metrics/captionMetrics';
import { l2Normalize } from '../../engine/retrieval/vectors';
import { captionJson } from './benchCaption';
import {
  type CaptionerScores,
  type PartName,
  type PhotoTurnTiming,
  type SetPart,
  addedByDetection,
  captionScoresByPart,
  exampleImages,
  partsJson,
  photoTurnStats,
  retrievalByPart,
} from './benchParts';
import { retrievalJson } from './benchRetrieval';

const oneHot = (dim: number, i: number) => Float32Array.from({ length: dim }, (_, j) => (j === i ? 1 : 0));
const unit = (...v: number[]) => l2Normalize(Float32Array.from(v));

/** Images 0 and 1 are train2017, 2 and 3 val2017, as cocoParts gives them. */
const PARTS: SetPart[] = [
  { name: 'all', images: [0, 1, 2, 3] },
  { name: 'train2017', images: [0, 1] },
  { name: 'val2017', images: [2, 3] },
];

describe('retrievalByPart', () => {
  // Captions 1 and 2 are nearer another image of the other part than their own: wrong in "all",
  // right once each part is ranked within itself.
  const images = [0, 1, 2, 3].map((i) => oneHot(4, i));
  const captions = [unit(1, 0, 0, 0), unit(0, 0.6, 0.8, 0), unit(0.8, 0, 0.6, 0), unit(0, 0, 0, 1)];
  const byPart = retrievalByPart(images, captions, [0, 1, 2, 3], PARTS);

  it('ranks each part within itself', () => {
    expect([...byPart.keys()]).toEqual(['all', 'train2017', 'val2017']);
    const all = byPart.get('all')!;
    expect(all).toMatchObject({ images: 4, captions: 4 });
    expect(all.textToImage).toEqual({ r1: 50, r5: 100, r10: 100, meanRank: 1.5, queries: 4 });
    expect(all.imageToText).toEqual({ r1: 75, r5: 100, r10: 100, meanRank: 1.25, queries: 4 });
    for (const part of ['train2017', 'val2017'] as const) {
      const figures = byPart.get(part)!;
      expect(figures).toMatchObject({ images: 2, captions: 2 });
      expect(figures.textToImage).toEqual({ r1: 100, r5: 100, r10: 100, meanRank: 1, queries: 2 });
      expect(figures.imageToText).toEqual({ r1: 100, r5: 100, r10: 100, meanRank: 1, queries: 2 });
    }
  });

  it('gives each part its own chance level', () => {
    expect(byPart.get('all')!.chance.textToImage.r1).toBe(25);
    expect(byPart.get('val2017')!.chance.textToImage).toEqual({ r1: 50, r5: 100, r10: 100, meanRank: 1.5, queries: 2 });
  });

  it('puts chance R@5 at 6.3% for a part of 79 photos', () => {
    const n = 79;
    const rows = Array.from({ length: n + 1 }, (_, i) => oneHot(n + 1, i));
    const result = retrievalByPart(
      rows,
      rows,
      rows.map((_, i) => i),
      [{ name: 'val2017', images: Array.from({ length: n }, (_, i) => i + 1) }],
    ).get('val2017')!;
    expect(result).toMatchObject({ images: 79, captions: 79 });
    expect(result.chance.textToImage.r5).toBe(500 / 79);
    expect(result.chance.textToImage.r5.toFixed(1)).toBe('6.3');
    expect(result.textToImage.r1).toBe(100);
  });
});

describe('captionScoresByPart', () => {
  const set: CaptionSet = {
    images: [
      { file: '000000000009.jpg', captions: ['A cat on a bed.'] },
      { file: '000000000139.jpg', captions: ['A man riding a horse.'] },
      { file: '000000000285.jpg', captions: ['A pizza on a table.', 'Two slices of pizza.'] },
    ],
  };
  const parts: SetPart[] = [
    { name: 'all', images: [0, 1, 2] },
    { name: 'train2017', images: [0] },
    { name: 'val2017', images: [1, 2] },
  ];
  const runs = new Map([
    ['grounded', { captions: ['A dog and a cat.', "I can't tell what is in this photo.", 'A pizza.'], ms: [10, 20, 60], confident: [true, false, true] }],
    ['retrieval', { captions: set.images.map((i) => i.captions[0]!), ms: [4, 4, 7] }],
  ] as const);
  const byPart = captionScoresByPart(set, parts, runs);
  const scores = (part: PartName, captioner: 'grounded' | 'retrieval') => byPart.get(part)!.get(captioner)!;

  it('counts object mentions per part: cat right and dog wrong; "I can\'t tell" names nothing', () => {
    expect(scores('all', 'grounded').objectMentions).toEqual({ precision: 2 / 3, recall: 2 / 6, matched: 2, candidateMentions: 3, referenceMentions: 6 });
    expect(scores('train2017', 'grounded').objectMentions).toEqual({ precision: 1 / 2, recall: 1 / 2, matched: 1, candidateMentions: 2, referenceMentions: 2 });
    expect(scores('val2017', 'grounded').objectMentions).toEqual({ precision: 1, recall: 1 / 4, matched: 1, candidateMentions: 1, referenceMentions: 4 });
  });

  it('gives images, references, confident photos and time per image of each part', () => {
    expect(scores('all', 'grounded')).toMatchObject({ images: 3, references: 4, confidentImages: 2, msPerImage: { mean: 30, median: 20 } });
    expect(scores('val2017', 'grounded')).toMatchObject({ images: 2, references: 3, confidentImages: 1, msPerImage: { mean: 40, median: 60 } });
    expect(scores('train2017', 'retrieval')).toMatchObject({ images: 1, references: 1, msPerImage: { mean: 4, median: 4 } });
    expect(scores('all', 'retrieval').confidentImages).toBeUndefined();
  });

  it('scores a caption equal to its reference as BLEU and ROUGE-L 1', () => {
    const s = scores('all', 'retrieval');
    for (const value of [s.bleu1, s.bleu2, s.bleu3, s.bleu4, s.rougeL]) expect(value).toBeCloseTo(1, 6);
  });

  it('scores a part on its own, as if it were the whole set (CIDEr-D document frequencies from the part)', () => {
    const valItems = [1, 2].map((i) => ({ candidate: runs.get('grounded')!.captions[i]!, references: set.images[i]!.captions }));
    const alone = captionMetrics(valItems);
    const s = scores('val2017', 'grounded');
    expect([s.bleu1, s.bleu2, s.bleu3, s.bleu4, s.meteor, s.rougeL, s.ciderD]).toEqual([...alone.bleu, alone.meteor, alone.rougeL, alone.ciderD]);
  });
});

describe('benchmark helpers', () => {
  it('spreads the printed examples over the set', () => {
    expect(exampleImages(10, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(exampleImages(7, 5)).toEqual([0, 1, 2, 4, 5]);
    expect(exampleImages(3, 5)).toEqual([0, 1, 2]);
    expect(exampleImages(0, 5)).toEqual([]);
  });

  it('says what detection and the grounded caption add to a photo turn', () => {
    const turn = (detectMs: number, captionMs: number, encodeMs: number, composeMs: number): PhotoTurnTiming => ({
      detectMs,
      captionMs,
      encodeMs,
      composeMs,
      totalMs: detectMs + captionMs + encodeMs + composeMs,
    });
    const withDetector = photoTurnStats([turn(100, 2, 30, 4), turn(120, 1, 32, 4), turn(300, 3, 40, 5)]);
    const withoutDetector = photoTurnStats([turn(0, 1, 30, 4), turn(0, 1, 31, 4), turn(0, 2, 50, 6)]);
    expect(withDetector).toEqual({
      turns: 3,
      median: { detectMs: 120, captionMs: 2, encodeMs: 32, composeMs: 4, totalMs: 157 },
      p95: { detectMs: 300, captionMs: 3, encodeMs: 40, composeMs: 5, totalMs: 348 },
    });
    expect(addedByDetection(withDetector, withoutDetector)).toEqual({ detectAndCaptionMedianMs: 122, turnMedianMs: 157 - 36, turnP95Ms: 348 - 58 });
  });
});

describe('JSON layout', () => {
  it('puts each part under its name after the description (retrieval)', () => {
    const byPart = retrievalByPart(
      [oneHot(2, 0), oneHot(2, 1)],
      [oneHot(2, 0), oneHot(2, 1)],
      [0, 1],
      [
        { name: 'all', images: [0, 1] },
        { name: 'val2017', images: [1] },
      ],
    );
    const json = retrievalJson(
      { pack: 'p', imagesDir: 'd', captionsFile: 'c.csv', imageTowerTakesGrounding: false, detector: null, analyzerFingerprint: 'f' },
      byPart,
    );
    expect(Object.keys(json)).toEqual(['pack', 'imagesDir', 'captionsFile', 'imageTowerTakesGrounding', 'detector', 'analyzerFingerprint', 'all', 'val2017']);
    expect(Object.keys(json.all!)).toEqual(['images', 'captions', 'textToImage', 'imageToText', 'chance']);
    expect(json.val2017).toMatchObject({ images: 1, captions: 1, textToImage: { r1: 100, queries: 1 } });
    expect(JSON.parse(JSON.stringify(json))).toMatchObject({ val2017: { chance: { textToImage: { r5: 100 } } } });
  });

  it('puts each part under its name and each captioner under its own (caption)', () => {
    const s = { images: 1 } as CaptionerScores;
    const t = { images: 2 } as CaptionerScores;
    const byPart = new Map([
      [
        'all',
        new Map([
          ['retrieval', t],
          ['grounded', s],
        ]),
      ],
      ['val2017', new Map([['grounded', s]])],
    ] as [PartName, Map<'grounded' | 'retrieval', CaptionerScores>][]);
    const description = {
      pack: 'p',
      imagesDir: 'd',
      captionsFile: 'c.json',
      captioners: ['retrieval', 'grounded'],
      detector: 'x',
      captionBank: { pool: 'public/pool', sentences: 3 },
      scale: 's',
      meteor: 'm',
      timing: 't',
    } as const;
    const json = captionJson({ ...description, captioners: ['retrieval', 'grounded'] }, byPart, [
      { file: 'a.jpg', references: ['A cat.'], captions: { grounded: 'A cat.' }, groundedConfident: true },
    ]);
    expect(Object.keys(json)).toEqual([...Object.keys(description), 'all', 'val2017', 'images']);
    expect(Object.keys(json.all!)).toEqual(['retrieval', 'grounded']);
    expect(json.all!.grounded).toBe(s);
    expect(json.val2017).toEqual({ grounded: s });
    expect(json.images[0]!.captions.grounded).toBe('A cat.');
  });

  it('refuses a description key that names a part', () => {
    expect(() => partsJson({ all: 1 }, new Map([['all', 2]]))).toThrow('names a part');
  });
});
