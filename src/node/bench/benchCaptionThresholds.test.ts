import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from '../../engine/detection/cocoClasses';
import type { DetectionResult } from '../../engine/detection/types';
import { type SweptPhoto, chooseThresholds, sweepThresholds } from './benchCaptionThresholds';

const found = (label: string, score: number): DetectionResult => ({
  width: 640,
  height: 480,
  detections: [{ classIndex: (COCO_CLASSES as readonly string[]).indexOf(label), label, score, box: { x1: 200, y1: 150, x2: 440, y2: 400 } }],
});

// Three photos of dogs: one the detector is sure of, a weak dog the tower ranks first, and a "bear" on sand it ranks 60th.
const photos: SweptPhoto[] = [
  { references: ['a dog on the grass'], confidentCaption: 'A dog.', detections: found('dog', 0.9), zeroShotRanks: null },
  { references: ['a small dog'], confidentCaption: null, detections: found('dog', 0.47), zeroShotRanks: new Map([['dog', 1]]) },
  { references: ['a dog lying on the sand'], confidentCaption: null, detections: found('bear', 0.46), zeroShotRanks: new Map([['bear', 60]]) },
];

describe('bench caption-thresholds: the sweep and the choice', () => {
  const rows = sweepThresholds(photos);
  const at = (hedgeScore: number, confirmRank: number, vetoRank: number, supportRank = 0) =>
    rows.find((r) => r.hedgeScore === hedgeScore && r.confirmRank === confirmRank && r.vetoRank === vetoRank && r.supportRank === supportRank)!;

  it('scores each point by mention precision and recall, hedged captions counting as said', () => {
    expect(at(0.5, 0, 81)).toMatchObject({ said: 1, matched: 1, inReferences: 3, hedged: 0, precision: 1 });
    expect(at(0.45, 0, 81)).toMatchObject({ said: 3, matched: 2, hedged: 2 });
    expect(at(0.45, 0, 41)).toMatchObject({ said: 2, matched: 2, hedged: 1, precision: 1 });
    expect(at(0.45, 1, 41)).toMatchObject({ said: 2, matched: 2, hedged: 0, confirmed: 1, confirmedRight: 1 });
  });

  it('chooses the most recall at precision 80, then the point that changes the caption least', () => {
    expect(chooseThresholds(rows)).toMatchObject({ hedgeScore: 0.45, confirmRank: 0, vetoRank: 41, supportRank: 0, recall: 2 / 3, precision: 1 });
    expect(chooseThresholds(rows.filter((r) => r.vetoRank === 81 && r.hedgeScore < 0.5))).toBeNull();
  });
});
