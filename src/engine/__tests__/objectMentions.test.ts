import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from '../detection/cocoClasses';
import { mentionedClasses, objectMentionScores, regularPlural } from '../metrics/objectMentions';

const mentioned = (caption: string) => [...mentionedClasses(caption)].sort();

describe('mentionedClasses', () => {
  it('finds every class by its own name, multi-word names as one mention', () => {
    for (const cocoClass of COCO_CLASSES) expect(mentioned(`there is a ${cocoClass} here`), cocoClass).toEqual([cocoClass]);
  });

  it('matches phrases before their words, and counts no word twice', () => {
    expect(mentioned('a hot dog next to a dog')).toEqual(['dog', 'hot dog']);
    expect(mentioned('a hot dog on a plate')).toEqual(['hot dog']);
    expect(mentioned('a teddy bear')).toEqual(['teddy bear']);
    expect(mentioned('a brown bear and a teddy bear')).toEqual(['bear', 'teddy bear']);
    expect(mentioned('a dirty toilet bowl')).toEqual(['toilet']);
    expect(mentioned('food in a microwave oven')).toEqual(['microwave']);
    expect(mentioned('a man holding a baseball bat')).toEqual(['baseball bat', 'person']);
  });

  it('knows plurals, irregular plurals and synonyms', () => {
    expect(mentioned('two women and their children with knives')).toEqual(['knife', 'person']);
    expect(mentioned('three mice and some sheep')).toEqual(['mouse', 'sheep']);
    expect(mentioned('a pair of skis by the buses')).toEqual(['bus', 'skis']);
    expect(mentioned('puppies on a sofa watching television')).toEqual(['couch', 'dog', 'tv']);
    expect(mentioned('a jet over a motorbike')).toEqual(['airplane', 'motorcycle']);
    expect(mentioned('a mobile phone and a cellphone on the table')).toEqual(['cell phone', 'dining table']);
    expect(mentioned('a surfer with a ball')).toEqual(['person', 'sports ball']);
  });

  it('ignores case, punctuation and possessives', () => {
    expect(mentioned("The DOG'S bowl, the Cats!")).toEqual(['bowl', 'cat', 'dog']);
  });

  it('mentions nothing in a caption without objects or with words left out on purpose', () => {
    expect(mentioned('')).toEqual([]);
    expect(mentioned('a sunny day at the beach')).toEqual([]);
    expect(mentioned('a ski slope near a sign and a light')).toEqual([]);
  });

  it('forms regular plurals', () => {
    expect(['dog', 'bus', 'couch', 'box', 'puppy', 'toy', 'cell phone'].map(regularPlural)).toEqual([
      'dogs',
      'buses',
      'couches',
      'boxes',
      'puppies',
      'toys',
      'cell phones',
    ]);
  });
});

describe('objectMentionScores', () => {
  it("micro-averages precision and recall against the union of the references' classes", () => {
    // Image 1: candidate {person, horse, dog}; references {person, horse} and {person, horse} -> union {person, horse}.
    //   matched 2 (person, horse), candidate 3, references 2.
    // Image 2: candidate {cat, couch}; references {cat, couch, remote} and {cat, bed} -> union {cat, couch, remote, bed}.
    //   matched 2, candidate 2, references 4.
    // Precision = (2 + 2) / (3 + 2) = 0.8; recall = (2 + 2) / (2 + 4) = 2/3.
    const scores = objectMentionScores([
      { candidate: 'A man riding a horse next to a dog.', references: ['A woman rides a pony.', 'A person on a horse near a fence.'] },
      { candidate: 'a cat on a couch', references: ['a kitten sleeping on a sofa with a remote', 'a cat on a bed'] },
    ]);
    expect(scores.matched).toBe(4);
    expect(scores.candidateMentions).toBe(5);
    expect(scores.referenceMentions).toBe(6);
    expect(scores.precision).toBeCloseTo(0.8, 12);
    expect(scores.recall).toBeCloseTo(2 / 3, 12);
    expect(scores.perImage[0]).toEqual({ candidate: ['person', 'dog', 'horse'], references: ['person', 'horse'], matched: ['person', 'horse'] });
    expect(scores.perImage[1]).toEqual({ candidate: ['cat', 'couch'], references: ['cat', 'couch', 'bed', 'remote'], matched: ['cat', 'couch'] });
  });

  it('counts a class once per caption and gives 0, not NaN, when nothing is mentioned', () => {
    const once = objectMentionScores([{ candidate: 'a dog and another dog and puppies', references: ['two dogs'] }]);
    expect([once.matched, once.candidateMentions, once.referenceMentions]).toEqual([1, 1, 1]);
    expect([once.precision, once.recall]).toEqual([1, 1]);
    const none = objectMentionScores([{ candidate: 'a sunny day', references: ['a bright day'] }]);
    expect([none.precision, none.recall, none.candidateMentions, none.referenceMentions]).toEqual([0, 0, 0, 0]);
  });

  it('gives precision 0 to a candidate that names only objects nobody saw', () => {
    const scores = objectMentionScores([{ candidate: 'a giraffe and a zebra', references: ['a red car', 'a car on a road'] }]);
    expect([scores.precision, scores.recall, scores.matched, scores.candidateMentions, scores.referenceMentions]).toEqual([0, 0, 0, 2, 1]);
  });
});
