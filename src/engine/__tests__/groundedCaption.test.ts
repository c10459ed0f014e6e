import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from '../detection/cocoClasses';
import {
  CONFIDENT_SCORE,
  DEFAULT_CAPTION_THRESHOLDS,
  HEDGE_SCORE,
  NOTHING_FOUND_TEXT,
  VETO_RANK,
  labelVote,
  type SceneHint,
  countedNoun,
  groundedCaption,
  groundedRetrievalText,
  indefiniteArticle,
  scenePhrase,
} from '../detection/groundedCaption';
import type { Detection, DetectionResult } from '../detection/types';

// Hand-made detections on a 640 x 480 photo; y grows downwards.
const detection = (label: string, score: number, x1: number, y1: number, x2: number, y2: number): Detection => {
  const classIndex = (COCO_CLASSES as readonly string[]).indexOf(label);
  if (classIndex < 0) throw new Error(`not a COCO class: ${label}`);
  return { classIndex, label, score, box: { x1, y1, x2, y2 } };
};
const photo = (...detections: Detection[]): DetectionResult => ({ width: 640, height: 480, detections });
const say = (detections: Detection[], sceneHints?: SceneHint[]) => groundedCaption(photo(...detections), { sceneHints }).text;

/** `count` boxes of one class in a row, 50 px wide, none overlapping. */
const row = (label: string, count: number, score = 0.8) => Array.from({ length: count }, (_, i) => detection(label, score, 10 + i * 56, 200, 60 + i * 56, 300));

describe('grounded caption: what and how many', () => {
  it('names one object, and records the exact class', () => {
    const caption = groundedCaption(photo(detection('dog', 0.9, 200, 150, 440, 400)));
    expect(caption).toEqual({ text: 'A dog.', mentioned: [{ label: 'dog', count: 1 }], scene: null, confident: true, hedged: false });
  });

  it('counts objects of one class in words', () => {
    expect(say([detection('dog', 0.9, 50, 200, 250, 400), detection('dog', 0.85, 390, 200, 590, 400)])).toBe('Two dogs.');
    expect(say(row('person', 3))).toBe('Three people.');
    expect(say(row('sheep', 2))).toBe('Two sheep.');
  });

  it('says "many" or "a group of" past ten', () => {
    const caption = groundedCaption(photo(...row('sheep', 11)));
    expect(caption.text).toBe('Many sheep.');
    expect(caption.mentioned).toEqual([{ label: 'sheep', count: 11 }]);
    expect(say(row('person', 12))).toBe('A group of people.');
  });

  it('counts skis in pairs', () => {
    // 0.6 is too weak to say "in the snow" (see the scene tests).
    expect(say([detection('skis', 0.6, 200, 300, 440, 360)])).toBe('A pair of skis.');
    expect(say([detection('skis', 0.6, 20, 300, 260, 360), detection('skis', 0.6, 380, 300, 620, 360)])).toBe('Two pairs of skis.');
  });

  it('chooses "a" or "an" by sound', () => {
    expect(say([detection('apple', 0.9, 200, 150, 440, 400)])).toBe('An apple.');
    expect(say([detection('umbrella', 0.9, 200, 150, 440, 400)])).toBe('An umbrella.');
    expect(say([detection('orange', 0.9, 200, 150, 440, 400)])).toBe('An orange.');
    expect(say([detection('hot dog', 0.9, 200, 150, 440, 400)])).toBe('A hot dog.');
    expect(['umbrella', 'unicorn', 'hour', 'TV', 'SUV', 'European', 'elephant'].map((w) => `${indefiniteArticle(w)} ${w}`)).toEqual([
      'an umbrella',
      'a unicorn',
      'an hour',
      'a TV',
      'an SUV',
      'a European',
      'an elephant',
    ]);
  });

  it('uses natural names and correct plurals', () => {
    const phrases = (label: string) => [countedNoun(label, 1), countedNoun(label, 2)];
    expect(phrases('person')).toEqual(['a person', 'two people']);
    expect(phrases('wine glass')).toEqual(['a wine glass', 'two wine glasses']);
    expect(phrases('hot dog')).toEqual(['a hot dog', 'two hot dogs']);
    expect(phrases('knife')).toEqual(['a knife', 'two knives']);
    expect(phrases('mouse')).toEqual(['a mouse', 'two mice']);
    expect(phrases('bus')).toEqual(['a bus', 'two buses']);
    expect(phrases('sandwich')).toEqual(['a sandwich', 'two sandwiches']);
    expect(phrases('couch')).toEqual(['a couch', 'two couches']);
    expect(phrases('tv')).toEqual(['a TV', 'two TVs']);
    expect(phrases('cell phone')).toEqual(['a cell phone', 'two cell phones']);
    expect(phrases('dining table')).toEqual(['a table', 'two tables']);
    expect(phrases('sports ball')).toEqual(['a ball', 'two balls']);
    expect(phrases('potted plant')).toEqual(['a potted plant', 'two potted plants']);
    expect(phrases('scissors')).toEqual(['a pair of scissors', 'two pairs of scissors']);
    expect(phrases('hair drier')).toEqual(['a hair dryer', 'two hair dryers']);
    expect(phrases('broccoli')).toEqual(['broccoli', 'broccoli']);
    const table = groundedCaption(photo(detection('dining table', 0.9, 100, 200, 540, 470)));
    expect(table.text).toBe('A table.');
    expect(table.mentioned).toEqual([{ label: 'dining table', count: 1 }]);
  });

  it('counts one object found twice as one, and two overlapping objects as two', () => {
    expect(say([detection('dog', 0.9, 200, 150, 440, 400), detection('dog', 0.7, 210, 155, 445, 405)])).toBe('A dog.');
    expect(say([detection('dog', 0.9, 100, 150, 340, 400), detection('dog', 0.8, 260, 150, 500, 400)])).toBe('Two dogs.');
  });
});

describe('grounded caption: the main object first', () => {
  it('leads with the larger, surer object, not the first detection', () => {
    expect(say([detection('car', 0.95, 540, 300, 620, 360), detection('dog', 0.8, 100, 150, 400, 450)])).toBe('A dog and a car.');
  });

  it('puts people and animals before furniture unless the furniture dominates the photo', () => {
    // The chair is twice the dog's area, but a chair is setting.
    expect(say([detection('chair', 0.9, 20, 100, 300, 470), detection('dog', 0.9, 420, 300, 600, 470)])).toBe('A dog and a chair.');
    // A train filling the photo leads a small person.
    expect(say([detection('person', 0.9, 580, 300, 620, 420), detection('train', 0.9, 0, 40, 500, 440)])).toBe('A train and a person.');
  });

  it('leads with what sits on a surface, and with a rider', () => {
    expect(say([detection('bed', 0.8, 40, 150, 600, 470), detection('cat', 0.9, 250, 200, 400, 320)])).toBe('A cat on a bed in a bedroom.');
    expect(say([detection('horse', 0.9, 200, 160, 460, 420), detection('person', 0.9, 280, 60, 380, 300)])).toBe('A person riding a horse.');
  });
});

describe('grounded caption: spatial words only where the boxes support them', () => {
  const person = detection('person', 0.9, 250, 50, 350, 400);

  it('riding', () => {
    expect(say([detection('person', 0.9, 280, 60, 380, 300), detection('horse', 0.9, 200, 160, 460, 420)])).toBe('A person riding a horse.');
    expect(say([detection('person', 0.9, 20, 100, 120, 420), detection('horse', 0.9, 300, 160, 560, 420)])).toBe('A horse and a person.');
    // Only one of two people is on the horse, so "two people riding a horse" would claim too much.
    expect(say([detection('person', 0.9, 280, 60, 380, 300), detection('horse', 0.9, 200, 160, 460, 420), detection('person', 0.8, 540, 100, 620, 420)])).toBe(
      'A horse and two people.',
    );
  });

  it('on a board or on skis', () => {
    expect(say([person, detection('skateboard', 0.8, 240, 390, 360, 430)])).toBe('A person on a skateboard.');
    expect(say([person, detection('skateboard', 0.8, 500, 390, 600, 430)])).toBe('A person and a skateboard.');
    expect(say([person, detection('skis', 0.9, 200, 380, 400, 440)])).toBe('A person on skis in the snow.');
  });

  it('under an umbrella', () => {
    const walker = detection('person', 0.9, 280, 150, 360, 420);
    expect(say([walker, detection('umbrella', 0.8, 220, 80, 420, 200)])).toBe('A person under an umbrella.');
    expect(say([walker, detection('umbrella', 0.8, 500, 20, 620, 100)])).toBe('A person and an umbrella.');
  });

  it('wearing', () => {
    const man = detection('person', 0.9, 200, 40, 400, 460);
    expect(say([man, detection('tie', 0.8, 285, 150, 315, 260)])).toBe('A person wearing a tie.');
    expect(say([man, detection('tie', 0.8, 500, 150, 530, 260)])).toBe('A person and a tie.');
  });

  it('holding', () => {
    const player = detection('person', 0.9, 250, 60, 390, 440);
    expect(say([player, detection('tennis racket', 0.9, 360, 150, 440, 260)])).toBe('A person holding a tennis racket.');
    // A racket by the feet is lying on the ground.
    expect(say([player, detection('tennis racket', 0.9, 300, 400, 380, 440)])).toBe('A person and a tennis racket.');
  });

  it('at a table', () => {
    expect(say([detection('person', 0.9, 250, 50, 390, 330), detection('dining table', 0.8, 100, 250, 540, 470)])).toBe('A person at a table.');
    expect(say([detection('person', 0.9, 450, 50, 590, 400), detection('dining table', 0.8, 20, 300, 300, 470)])).toBe('A person and a table.');
  });

  it('on and in', () => {
    // The product issue's example; a couch alone at 0.65 is too weak for "indoors".
    const dog = detection('dog', 0.9, 160, 180, 390, 360);
    const couch = detection('couch', 0.65, 60, 180, 580, 440);
    expect(say([dog, couch, detection('person', 0.85, 400, 120, 540, 330)])).toBe('A dog on a couch next to a person.');
    expect(say([detection('dog', 0.9, 480, 300, 640, 440), detection('couch', 0.65, 0, 180, 300, 440)])).toBe('A dog and a couch.');
    expect(say([detection('bowl', 0.9, 150, 100, 500, 400), detection('broccoli', 0.8, 200, 150, 450, 350)])).toBe('Broccoli in a bowl.');
    expect(say([detection('bowl', 0.9, 50, 100, 300, 350), detection('broccoli', 0.8, 450, 150, 640, 350)])).toBe('A bowl and broccoli.');
  });

  it('in front of', () => {
    // Overlapping, and standing lower in the photo: nearer.
    expect(say([detection('cat', 0.9, 260, 180, 420, 330), detection('laptop', 0.65, 200, 100, 440, 300)])).toBe('A cat in front of a laptop.');
    expect(say([detection('dog', 0.9, 200, 300, 380, 470), detection('couch', 0.65, 60, 180, 580, 440)])).toBe('A dog in front of a couch.');
    expect(say([detection('cat', 0.9, 420, 180, 580, 330), detection('laptop', 0.65, 20, 100, 260, 300)])).toBe('A cat and a laptop.');
  });

  it('next to', () => {
    expect(say([detection('person', 0.9, 280, 80, 400, 440), detection('dog', 0.9, 100, 300, 260, 440)])).toBe('A person next to a dog.');
    expect(say([detection('person', 0.9, 280, 80, 400, 440), detection('dog', 0.9, 500, 300, 640, 440)])).toBe('A person and a dog.');
  });

  it('keeps objects without a relation apart with "with"', () => {
    expect(
      say([detection('person', 0.9, 250, 50, 390, 330), detection('dining table', 0.8, 100, 250, 540, 470), detection('pizza', 0.85, 150, 300, 300, 420)]),
    ).toBe('A person at a table with a pizza.');
  });
});

describe('grounded caption: scenes', () => {
  const skier = detection('person', 0.9, 250, 50, 350, 400);

  it('says a scene only on confident evidence', () => {
    expect(say([skier, detection('skis', 0.9, 200, 380, 400, 440)])).toBe('A person on skis in the snow.');
    expect(say([skier, detection('skis', 0.55, 200, 380, 400, 440)])).toBe('A person on skis.');
    const cook = detection('person', 0.9, 200, 60, 340, 440);
    expect(say([cook, detection('oven', 0.8, 500, 250, 640, 470)])).toBe('A person and an oven in a kitchen.');
    expect(say([cook, detection('oven', 0.6, 500, 250, 640, 470)])).toBe('A person and an oven.');
    const cars = [detection('car', 0.8, 20, 250, 200, 400), detection('car', 0.8, 230, 250, 400, 400), detection('car', 0.8, 430, 250, 620, 400)];
    expect(say(cars)).toBe('Three cars on a street.');
    expect(say(cars.slice(0, 2))).toBe('Two cars.');
    expect(say([detection('tv', 0.8, 200, 100, 440, 300)])).toBe('A TV indoors.');
  });

  it('puts food on a table once, naming the table', () => {
    const caption = groundedCaption(photo(detection('dining table', 0.8, 0, 100, 640, 480), detection('pizza', 0.9, 150, 150, 450, 400)));
    expect(caption).toEqual({
      text: 'A pizza on a table.',
      mentioned: [
        { label: 'pizza', count: 1 },
        { label: 'dining table', count: 1 },
      ],
      scene: 'on a table',
      confident: true,
      hedged: false,
    });
  });

  it('uses a scene hint only above its threshold, after the objects', () => {
    const dog = detection('dog', 0.9, 200, 150, 440, 400);
    expect(say([dog], [{ scene: 'beach', confidence: 0.8 }])).toBe('A dog on a beach.');
    expect(say([dog], [{ scene: 'beach', confidence: 0.4 }])).toBe('A dog.');
    expect(
      say(
        [dog],
        [
          { scene: 'beach', confidence: 0.7 },
          { scene: 'kitchen', confidence: 0.9 },
        ],
      ),
    ).toBe('A dog in a kitchen.');
    expect(say([skier, detection('skis', 0.9, 200, 380, 400, 440)], [{ scene: 'beach', confidence: 0.95 }])).toBe('A person on skis in the snow.');
    expect(say([detection('tv', 0.8, 200, 100, 440, 300)], [{ scene: 'office', confidence: 0.8 }])).toBe('A TV in an office.');
    expect(groundedCaption(photo(), { sceneHints: [{ scene: 'beach', confidence: 0.8 }] })).toEqual({
      text: 'A photo taken on a beach.',
      mentioned: [],
      scene: 'on a beach',
      confident: true,
      hedged: false,
    });
    expect(['/b/ski_slope', 'forest', 'living_room', 'in a kitchen', 'indoors'].map(scenePhrase)).toEqual([
      'on a ski slope',
      'in a forest',
      'in a living room',
      'in a kitchen',
      'indoors',
    ]);
  });
});

describe('grounded caption: what is left out', () => {
  it('drops weak, tiny and relatively small detections', () => {
    const dog = detection('dog', 0.9, 100, 50, 600, 470);
    expect(
      say([
        dog,
        detection('cat', 0.4, 10, 10, 90, 90), // under half the dog's score
        detection('person', 0.2, 10, 100, 90, 400), // under the detector's threshold
        detection('bird', 0.95, 10, 10, 22, 22), // 12 x 12 px
        detection('cup', 0.9, 10, 400, 50, 440), // under 1% of the dog's box
      ]),
    ).toBe('A dog.');
  });

  it('lists at most three kinds of object', () => {
    const caption = groundedCaption(
      photo(
        detection('person', 0.9, 20, 50, 120, 400),
        detection('dog', 0.85, 200, 300, 320, 400),
        detection('bicycle', 0.8, 380, 250, 500, 400),
        detection('car', 0.8, 520, 300, 630, 380),
      ),
    );
    expect(caption.text).toBe('A person, a dog and a bicycle.');
    expect(caption.mentioned.map((m) => m.label)).toEqual(['person', 'dog', 'bicycle']);
  });

  it('says plainly when nothing is found with confidence', () => {
    const nothing = { text: NOTHING_FOUND_TEXT, mentioned: [], scene: null, confident: false, hedged: false };
    expect(NOTHING_FOUND_TEXT).toBe("I can't tell what is in this photo.");
    expect(groundedCaption(photo())).toEqual(nothing);
    expect(groundedCaption(photo(detection('dog', 0.44, 200, 150, 440, 400), detection('cat', 0.35, 20, 20, 150, 150)))).toEqual(nothing);
    expect(groundedRetrievalText(groundedCaption(photo()))).toBe('');
  });
});

describe('grounded caption: form', () => {
  const photos = [
    [detection('dog', 0.9, 200, 150, 440, 400)],
    [detection('person', 0.9, 280, 60, 380, 300), detection('horse', 0.9, 200, 160, 460, 420), detection('dog', 0.7, 500, 300, 620, 420)],
    row('person', 12),
    [],
  ];

  it('is one capitalised sentence with a full stop, the same for the same detections in any order', () => {
    for (const detections of photos) {
      const caption = groundedCaption(photo(...detections));
      expect(caption.text).toMatch(/^[A-Z][^.]*\.$/);
      expect(groundedCaption(photo(...[...detections].reverse()))).toEqual(caption);
    }
  });

  it('gives text-only retrieval the sentence itself when it is confident', () => {
    const caption = groundedCaption(photo(...photos[1]!));
    expect(caption.text).toBe('A person riding a horse with a dog.');
    expect(groundedRetrievalText(caption)).toBe(caption.text);
  });
});

describe("grounded caption: hedging and the image tower's vote", () => {
  const dog = (score: number) => detection('dog', score, 200, 150, 440, 400);
  const ranks = (dogRank: number) =>
    new Map([
      ['dog', dogRank],
      ['cat', 1],
    ]);

  it('hedges a detection between the hedge bar and the confident bar, and only there', () => {
    expect(HEDGE_SCORE).toBe(0.45);
    expect(CONFIDENT_SCORE).toBe(0.5);
    expect(groundedCaption(photo(dog(0.47)))).toEqual({
      text: 'Maybe a dog.',
      mentioned: [{ label: 'dog', count: 1 }],
      scene: null,
      confident: false,
      hedged: true,
    });
    expect(say([dog(0.45)])).toBe('Maybe a dog.');
    expect(say([dog(0.449)])).toBe(NOTHING_FOUND_TEXT);
    expect(say([dog(0.5)])).toBe('A dog.');
    expect(say([detection('cat', 0.46, 50, 200, 250, 400), detection('cat', 0.48, 390, 200, 590, 400)])).toBe('Maybe two cats.');
  });

  it('gives text-only retrieval nothing for a hedged caption', () => {
    expect(groundedRetrievalText(groundedCaption(photo(dog(0.47))))).toBe('');
  });

  it('reads the vote by rank: confirm at or above the confirm rank, veto at or below the veto rank', () => {
    const thresholds = { ...DEFAULT_CAPTION_THRESHOLDS, confirmRank: 2, vetoRank: 11 };
    expect(labelVote(1, thresholds)).toBe('confirm');
    expect(labelVote(2, thresholds)).toBe('confirm');
    expect(labelVote(3, thresholds)).toBe('abstain');
    expect(labelVote(10, thresholds)).toBe('abstain');
    expect(labelVote(11, thresholds)).toBe('veto');
    expect(labelVote(undefined, thresholds)).toBe('abstain');
    expect(VETO_RANK).toBe(41);
    // The app's own bars: confirming is off (rank 0 is never reached), the bottom half is vetoed.
    expect(labelVote(1)).toBe('abstain');
    expect(labelVote(40)).toBe('abstain');
    expect(labelVote(41)).toBe('veto');
  });

  it('drops a weak detection the vote vetoes, and keeps one it does not', () => {
    expect(groundedCaption(photo(dog(0.47)), { zeroShotRanks: ranks(50) }).text).toBe(NOTHING_FOUND_TEXT);
    expect(groundedCaption(photo(dog(0.47)), { zeroShotRanks: ranks(40) }).text).toBe('Maybe a dog.');
    // A vetoed guess gives way to the next one.
    expect(groundedCaption(photo(dog(0.48), detection('cat', 0.46, 20, 20, 150, 150)), { zeroShotRanks: ranks(50) }).text).toBe('Maybe a cat.');
  });

  it('names plainly a weak detection the vote confirms, when confirming is on', () => {
    const thresholds = { ...DEFAULT_CAPTION_THRESHOLDS, confirmRank: 1 };
    const caption = groundedCaption(photo(dog(0.47)), { zeroShotRanks: ranks(1), thresholds });
    expect(caption).toEqual({ text: 'A dog.', mentioned: [{ label: 'dog', count: 1 }], scene: null, confident: true, hedged: false });
    expect(groundedCaption(photo(dog(0.47)), { zeroShotRanks: ranks(2), thresholds }).text).toBe('Maybe a dog.');
  });

  it("hedges a detection under the hedge bar only with the vote's support, when support is on", () => {
    const thresholds = { ...DEFAULT_CAPTION_THRESHOLDS, supportRank: 3 };
    expect(groundedCaption(photo(dog(0.35)), { zeroShotRanks: ranks(3), thresholds }).text).toBe('Maybe a dog.');
    expect(groundedCaption(photo(dog(0.35)), { zeroShotRanks: ranks(4), thresholds }).text).toBe(NOTHING_FOUND_TEXT);
    expect(groundedCaption(photo(dog(0.29)), { zeroShotRanks: ranks(1), thresholds }).text).toBe(NOTHING_FOUND_TEXT);
  });

  it('never overrules a detection the detector is sure of', () => {
    expect(groundedCaption(photo(dog(0.9)), { zeroShotRanks: ranks(80) }).text).toBe('A dog.');
  });
});
