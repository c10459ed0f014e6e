import { describe, expect, it } from 'vitest';
import {
  bleu,
  captionMetrics,
  ciderD,
  countChunks,
  meteor,
  meteorAlignment,
  meteorOfImage,
  porterStem,
  rougeL,
  rougeLOfImage,
  tokenizeCaption,
  tokenizeCaptionItems,
  type CaptionItem,
} from '../metrics/captionMetrics';

const words = (s: string) => (s === '' ? [] : s.split(' '));
const item = (candidate: string, ...references: string[]) => ({ candidate: words(candidate), references: references.map(words) });

describe('tokenizeCaption (coco-caption PTBTokenizer, then its punctuation filter)', () => {
  it('lower-cases, splits clitics and negations the Penn Treebank way, and drops punctuation', () => {
    expect(tokenizeCaption("A man's dog doesn't like it.")).toEqual(['a', 'man', "'s", 'dog', 'does', "n't", 'like', 'it']);
    expect(tokenizeCaption("They can't, won't; cannot (really) go!")).toEqual(['they', 'ca', "n't", 'wo', "n't", 'can', 'not', 'really', 'go']);
    expect(tokenizeCaption("I'm gonna go, you're right")).toEqual(['i', "'m", 'gon', 'na', 'go', 'you', "'re", 'right']);
    expect(tokenizeCaption('"Hello," said Mr. Smith -- twice...')).toEqual(['hello', 'said', 'mr.', 'smith', 'twice']);
    expect(tokenizeCaption('\u2019Quoted\u2019 \u201Cdouble\u201D \u2014 dash\u2026')).toEqual(['quoted', 'double', 'dash']);
  });

  it("keeps hyphenated words, numbers, acronyms, o'clock and symbols that are not in the list", () => {
    expect(tokenizeCaption('A black-and-white photo of 1,000 birds at 3:30 p.m. in the U.S.')).toEqual([
      'a',
      'black-and-white',
      'photo',
      'of',
      '1,000',
      'birds',
      'at',
      '3:30',
      'p.m.',
      'in',
      'the',
      'u.s.',
    ]);
    expect(tokenizeCaption("5 o'clock; the dogs' bowls are 1/2 full & $5 each")).toEqual([
      '5',
      "o'clock",
      'the',
      'dogs',
      'bowls',
      'are',
      '1/2',
      'full',
      '&',
      '$',
      '5',
      'each',
    ]);
  });

  it('leaves already tokenized text as it is', () => {
    expect(tokenizeCaption("the man 's hat do n't")).toEqual(['the', 'man', "'s", 'hat', 'do', "n't"]);
  });

  it('gives no tokens for punctuation only', () => {
    expect(tokenizeCaption(' ... !? -- ')).toEqual([]);
    expect(tokenizeCaption('')).toEqual([]);
  });
});

describe("BLEU (Papineni et al. 2002) as coco-caption's corpus BleuScorer", () => {
  it('sums clipped counts over images and takes the brevity penalty from summed lengths', () => {
    // Image 1: "the cat sat on the mat" (6) against "the cat is on the mat" (6) and "there is a cat on the mat" (7).
    //   1-grams: the x2 (clip 2, ref 1 has two), cat, sat (0), on, mat -> 5 of 6
    //   2-grams: the cat, cat sat (0), sat on (0), on the, the mat -> 3 of 5
    //   3-grams: the cat sat, cat sat on, sat on the, on the mat -> 1 of 4
    //   4-grams: none of the 3 -> 0 of 3; closest reference length 6
    // Image 2: "a dog" (2) against "a dog runs" (3) and "a big dog runs" (4).
    //   1-grams 2 of 2; 2-grams "a dog" 1 of 1; no 3- or 4-grams; closest reference length 3
    // Corpus: p1 = 7/8, p2 = 4/6, p3 = 1/4, p4 = (0 + 1e-15) / 3; c = 8, r = 9, BP = exp(1 - 9/8).
    const result = bleu([item('the cat sat on the mat', 'the cat is on the mat', 'there is a cat on the mat'), item('a dog', 'a dog runs', 'a big dog runs')]);
    expect(result.matches).toEqual([7, 4, 1, 0]);
    expect(result.candidateNgrams).toEqual([8, 6, 4, 3]);
    expect(result.candidateLength).toBe(8);
    expect(result.referenceLength).toBe(9);
    const bp = Math.exp(1 - 9 / 8); // 0.882497
    expect(result.bleu[0]).toBeCloseTo((7 / 8) * bp, 9); // 0.772185
    expect(result.bleu[1]).toBeCloseTo(Math.sqrt((7 / 8) * (4 / 6)) * bp, 9); // 0.674018
    expect(result.bleu[2]).toBeCloseTo(Math.cbrt((7 / 8) * (4 / 6) * (1 / 4)) * bp, 9); // 0.464514
    // No 4-gram matches: coco-caption's 1e-15 leaves BLEU-4 tiny but not 0.
    const bleu4 = ((7 / 8) * (4 / 6) * (1 / 4) * (1e-15 / 3)) ** (1 / 4) * bp; // 7.37e-5
    expect(result.bleu[3] / bleu4).toBeCloseTo(1, 8);
  });

  it('takes the reference length closest to the candidate, the shorter one on a tie', () => {
    // Candidate of 5 against references of 6 and 4: r = 4 < c, so no brevity penalty; every unigram matches.
    const result = bleu([item('a b c d e', 'a b c d e f', 'a b c d')]);
    expect(result.referenceLength).toBe(4);
    expect(result.bleu[0]).toBeCloseTo(1, 9);
  });

  it('is 1 for identical captions and 0 for an empty or unrelated candidate', () => {
    // Not exactly 1: the constants make p_n = n-grams / (n-grams + 1e-9) and, with c = r, ratio = 5 / (5 + 1e-9) < 1.
    for (const b of bleu([item('a cat on a mat', 'a cat on a mat')]).bleu) expect(b).toBeCloseTo(1, 8);
    // c = 0: ratio = 1e-15 / (5 + 1e-9), so BP = exp(1 - 5e15) = 0.
    expect(bleu([item('', 'a cat on a mat')]).bleu).toEqual([0, 0, 0, 0]);
    const unrelated = bleu([item('zebras grazing', 'a red car')]);
    expect(unrelated.matches).toEqual([0, 0, 0, 0]);
    // All 0 but for the constants: p1 = 1e-15/2, p2 = 1e-15/1, and with no 3- or 4-grams at all p3 = p4 = 1e-15/1e-9 = 1e-6;
    // BP = exp(1 - 3/2). BLEU-4 = (5e-16 x 1e-15 x 1e-6 x 1e-6)^(1/4) x 0.6065 = 1.6e-11.
    const p = [1e-15 / 2, 1e-15, 1e-6, 1e-6];
    unrelated.bleu.forEach((b, k) => {
      const expected = p.slice(0, k + 1).reduce((x, y) => x * y, 1) ** (1 / (k + 1)) * Math.exp(1 - 3 / 2);
      expect(b / expected).toBeCloseTo(1, 6);
      expect(b).toBeLessThan(1e-10);
    });
  });
});

describe("ROUGE-L (Lin 2004) as coco-caption's Rouge, beta = 1.2", () => {
  it('scores the LCS precision and recall of one reference', () => {
    // "a man riding a red bike" (6) vs "a man is riding a bike down the hill" (9): LCS = a man riding a bike = 5.
    // P = 5/6, R = 5/9, F = (1 + 1.44) P R / (R + 1.44 P) = 1.129630 / 1.755556 = 0.643460
    const f = (2.44 * (5 / 6) * (5 / 9)) / (5 / 9 + 1.44 * (5 / 6));
    expect(rougeLOfImage(words('a man riding a red bike'), [words('a man is riding a bike down the hill')])).toBeCloseTo(f, 12);
    expect(f).toBeCloseTo(0.64346, 5);
  });

  it('takes the best precision and the best recall over references separately, then the mean over images', () => {
    // Against "the cat on the mat": LCS 5, P = 5/6, R = 5/5 = 1.
    // Against "the cat sat on the red mat in the sun": LCS 6, P = 6/6 = 1, R = 6/10.
    // max P = 1 and max R = 1 come from different references, so F = 1.
    const second = item('the cat sat on the mat', 'the cat on the mat', 'the cat sat on the red mat in the sun');
    expect(rougeLOfImage(second.candidate, second.references)).toBe(1);
    const first = item('a man riding a red bike', 'a man is riding a bike down the hill');
    const result = rougeL([first, second]);
    expect(result.perImage[1]).toBe(1);
    expect(result.score).toBeCloseTo((0.6434599156 + 1) / 2, 9);
  });

  it('is 1 for identical captions and 0 for an empty or unrelated candidate', () => {
    expect(rougeL([item('a cat on a mat', 'a cat on a mat')]).score).toBe(1);
    expect(rougeL([item('', 'a cat on a mat')]).score).toBe(0);
    expect(rougeL([item('zebras grazing', 'a red car')]).score).toBe(0);
  });
});

describe("CIDEr-D (Vedantam et al. 2015) as coco-caption's CiderScorer", () => {
  it("weights n-grams by tf-idf with df from the evaluated images' reference sets", () => {
    // N = 3 images; a = ln 3, b = ln 3 - ln 2 = ln 1.5.
    //   image 1 refs "black cat", "black dog"; image 2 ref "white dog"; image 3 ref "white cat".
    //   df: black 1, cat 2, dog 2, white 2; every reference bigram 1. idf: black a, cat/dog/white b, bigrams a.
    // Two-token captions have no 3- or 4-grams: those norms are 0, so sim_3 = sim_4 = 0. Lengths are equal: no penalty.
    // Image 1, candidate "black cat" = (black a, cat b | "black cat" a):
    //   vs "black cat": sim_1 = sim_2 = 1.  vs "black dog": sim_1 = a.a / (a^2 + b^2), sim_2 = 0.
    //   score = 10 x mean(1 + a^2/(a^2+b^2), 1, 0, 0) / 2 refs
    // Image 2, candidate "black dog" = (black a, dog b) vs "white dog" = (white b, dog b):
    //   sim_1 = b.b / (sqrt(a^2+b^2) sqrt(2) b) = b / (sqrt 2 sqrt(a^2+b^2)); sim_2 = 0 ("black dog" vs "white dog").
    // Image 3, candidate "white cat" = its reference: sim_1 = sim_2 = 1, score = 10 x 2/4 = 5.
    const a = Math.log(3),
      b = Math.log(1.5);
    const image1 = (10 * ((1 + (a * a) / (a * a + b * b) + 1) / 4)) / 2; // 3.600146
    const image2 = (10 * (b / (Math.SQRT2 * Math.sqrt(a * a + b * b)))) / 4; // 0.612074
    const result = ciderD([item('black cat', 'black cat', 'black dog'), item('black dog', 'white dog'), item('white cat', 'white cat')]);
    expect(result.perImage[0]).toBeCloseTo(image1, 12);
    expect(result.perImage[1]).toBeCloseTo(image2, 12);
    expect(result.perImage[2]).toBeCloseTo(5, 12);
    expect(result.score).toBeCloseTo((image1 + image2 + 5) / 3, 12);
    expect(result.score).toBeCloseTo(3.07074, 5);
  });

  it("clips to the reference's weights and applies the Gaussian length penalty, sigma = 6", () => {
    // N = 2 images; every reference n-gram has df 1, so idf = ln 2 = c; unseen n-grams (df 0) also get ln 2 - ln 1 = c.
    // Image 1: "red car parked" vs "red car": sim_1 = 2c^2 / (sqrt3 c sqrt2 c) = 2/sqrt6; sim_2 = c^2 / (sqrt2 c c) = 1/sqrt2;
    //   the reference has no 3-gram (norm 0): sim_3 = 0. Lengths differ by 1: penalty exp(-1/72).
    // Image 2: "blue sky" is its reference: 5.
    const penalty = Math.exp(-1 / 72); // 0.986207
    const image1 = (10 * (2 / Math.sqrt(6) + 1 / Math.SQRT2) * penalty) / 4; // 3.756471
    const result = ciderD([item('red car parked', 'red car'), item('blue sky', 'blue sky')]);
    expect(result.perImage[0]).toBeCloseTo(image1, 12);
    expect(result.perImage[1]).toBeCloseTo(5, 12);
    // Repeating an n-gram does not raise the score past the reference's weight: "red red car" vs "red car".
    // tf(red) = 2, so the candidate weight 2c is clipped to c: sim_1 = (c.c + c.c) / (sqrt5 c sqrt2 c) = 2/sqrt10.
    const clipped = ciderD([item('red red car', 'red car'), item('blue sky', 'blue sky')]);
    // "red red" is unseen, "red car" shared: sim_2 = c^2 / (sqrt2 c c) = 1/sqrt2; one token longer: exp(-1/72).
    expect(clipped.perImage[0]).toBeCloseTo((10 * (2 / Math.sqrt(10) + 1 / Math.SQRT2) * penalty) / 4, 12);
  });

  it('is 10 for identical captions, and 0 for one image, an empty or an unrelated candidate', () => {
    // Every order has a non-zero norm (5 tokens, "a" aside every n-gram has df 1 of 2): each sim_n = 1.
    expect(ciderD([item('a cat on a mat', 'a cat on a mat'), item('a dog in the park', 'a dog in the park')]).score).toBeCloseTo(10, 12);
    // One image: idf = ln 1 - ln 1 = 0 for everything.
    expect(ciderD([item('a cat on a mat', 'a cat on a mat')]).score).toBe(0);
    expect(ciderD([item('', 'a cat on a mat'), item('a dog', 'a dog')]).perImage[0]).toBe(0);
    expect(ciderD([item('zebras grazing', 'a red car'), item('a dog', 'a dog')]).perImage[0]).toBe(0);
  });
});

describe('METEOR (Banerjee & Lavie 2005): exact and Porter-stem stages', () => {
  it('stems like Porter (1980)', () => {
    const stems = Object.fromEntries(
      [
        'caresses',
        'ponies',
        'ties',
        'cats',
        'feed',
        'agreed',
        'bled',
        'hopping',
        'filing',
        'happy',
        'sky',
        'relational',
        'generalization',
        'oscillators',
        'controll',
        'roll',
        'running',
        'skies',
      ].map((w) => [w, porterStem(w)]),
    );
    expect(stems).toEqual({
      caresses: 'caress',
      ponies: 'poni',
      ties: 'ti',
      cats: 'cat',
      feed: 'feed',
      agreed: 'agre',
      bled: 'bled',
      hopping: 'hop',
      filing: 'file',
      happy: 'happi',
      sky: 'sky',
      relational: 'relat',
      generalization: 'gener',
      oscillators: 'oscil',
      controll: 'control',
      roll: 'roll',
      running: 'run',
      skies: 'ski',
    });
  });

  it('matches a stem after the exact stage and counts two chunks', () => {
    // candidate: two dogs running in a park (6); reference: two dog is running in a park (7)
    // exact: two 0-0, running 2-3, in 3-4, a 4-5, park 5-6; stem: dogs/dog -> dog, 1-1.
    // chunks: [two dogs] [running in a park] = 2; m = 6.
    // P = 6/6, R = 6/7, Fmean = 10PR/(R+9P) = (60/7)/(69/7) = 20/23; Penalty = 0.5 (2/6)^3 = 1/54.
    // score = 20/23 x 53/54 = 530/621 = 0.853462
    const candidate = words('two dogs running in a park'),
      reference = words('two dog is running in a park');
    const alignment = meteorAlignment(candidate, reference);
    expect([...alignment].sort((x, y) => x[0] - y[0])).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
    ]);
    expect(countChunks(alignment)).toBe(2);
    expect(meteorOfImage(candidate, [reference]).score).toBeCloseTo(530 / 621, 12);
  });

  it('of the largest alignments keeps the one with the fewest crossings', () => {
    // candidate: the0 cat1 sat2 on3 the4 mat5; reference: on0 the1 mat2 sat3 the4 cat5.
    // Mapping the0->the1, the4->the4 crosses 3 other mappings; the0->the4, the4->the1 crosses 5 and itself.
    // So the first, though the second would make "on the mat" one chunk: 6 chunks of 6 matches.
    // P = R = 1, Fmean = 1, Penalty = 0.5 (6/6)^3 = 0.5, score = 0.5.
    const alignment = meteorAlignment(words('the cat sat on the mat'), words('on the mat sat the cat'));
    expect(alignment).toContainEqual([0, 1]);
    expect(alignment).toContainEqual([4, 4]);
    expect(countChunks(alignment)).toBe(6);
    expect(meteor([item('the cat sat on the mat', 'on the mat sat the cat')]).score).toBe(0.5);
  });

  it('breaks a tie in crossings by fewer chunks', () => {
    // "a dog" vs "a cat chases a dog": a->0 and a->3 both cross nothing; a->3 keeps "a dog" one chunk.
    // m = 2, P = 1, R = 2/5, Fmean = 4 / 9.4, Penalty = 0.5 (1/2)^3 = 1/16.
    const alignment = meteorAlignment(words('a dog'), words('a cat chases a dog'));
    expect([...alignment].sort((x, y) => x[0] - y[0])).toEqual([
      [0, 3],
      [1, 4],
    ]);
    expect(meteor([item('a dog', 'a cat chases a dog')]).score).toBeCloseTo((4 / 9.4) * (15 / 16), 12);
  });

  it('scores the best reference of each image and aggregates statistics over images', () => {
    // Image 1 as above (m 6, c 6, r 7, 2 chunks; the unrelated reference scores 0);
    // image 2 "a red bus" = its reference (m 3, c 3, r 3, 1 chunk: 1 - 0.5/27).
    // Summed: m 9, c 9, r 10, 3 chunks: P = 1, R = 0.9, Fmean = 9/9.9 = 10/11, Penalty = 0.5 (3/9)^3 = 1/54,
    // corpus = 10/11 x 53/54 = 265/297 = 0.892256 (the mean of per-image scores would be 0.917472).
    const result = meteor([item('two dogs running in a park', 'zebras grazing', 'two dog is running in a park'), item('a red bus', 'a red bus')]);
    expect(result.statistics).toEqual({ matches: 9, candidateLength: 9, referenceLength: 10, chunks: 3 });
    expect(result.perImage[0]).toBeCloseTo(530 / 621, 12);
    expect(result.perImage[1]).toBeCloseTo(1 - 0.5 / 27, 12);
    expect(result.score).toBeCloseTo(265 / 297, 12);
  });

  it('is 1 - 0.5/m^3 for identical captions and 0 for an empty or unrelated candidate', () => {
    // 5 tokens in one chunk: 1 - 0.5 (1/5)^3 = 0.996
    expect(meteor([item('a cat on a mat', 'a cat on a mat')]).score).toBeCloseTo(0.996, 12);
    expect(meteor([item('', 'a cat on a mat')]).score).toBe(0);
    expect(meteor([item('zebras grazing', 'a red car')]).score).toBe(0);
  });
});

describe('captionMetrics', () => {
  it('ignores case and punctuation: a shouted, punctuated caption scores as its plain form', () => {
    const shouted: CaptionItem[] = [
      { candidate: 'A DOG, running on the grass!', references: ['A dog running on the grass.', 'The dog is on a lawn.'] },
      { candidate: 'Two cats -- sleeping.', references: ['two cats sleeping on a couch', 'Cats (asleep)...'] },
    ];
    const plain: CaptionItem[] = [
      { candidate: 'a dog running on the grass', references: ['a dog running on the grass', 'the dog is on a lawn'] },
      { candidate: 'two cats sleeping', references: ['two cats sleeping on a couch', 'cats asleep'] },
    ];
    expect(tokenizeCaptionItems(shouted)).toEqual(tokenizeCaptionItems(plain));
    const scores = captionMetrics(shouted);
    expect(scores).toEqual(captionMetrics(plain));
    // Image 1's candidate is its first reference word for word.
    expect(rougeL(tokenizeCaptionItems(shouted)).perImage[0]).toBe(1);
  });

  it('scores identical captions at the top of every scale', () => {
    const scores = captionMetrics([
      { candidate: 'a cat on a mat', references: ['a cat on a mat'] },
      { candidate: 'a dog in the park', references: ['a dog in the park'] },
    ]);
    for (const b of scores.bleu) expect(b).toBeCloseTo(1, 8);
    expect(scores.rougeL).toBe(1);
    expect(scores.ciderD).toBeCloseTo(10, 12);
    // Summed: m = 10, 2 chunks: 1 - 0.5 (2/10)^3 = 0.996
    expect(scores.meteor).toBeCloseTo(0.996, 12);
  });

  it('refuses an image without references and an empty corpus', () => {
    expect(() => captionMetrics([{ candidate: 'a dog', references: [] }])).toThrow(/no reference captions/);
    expect(() => captionMetrics([])).toThrow(/no captions to score/);
  });
});
