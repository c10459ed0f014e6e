import { describe, expect, it } from 'vitest';
import { readStoredMessages } from './storedMessages';

const detections = { width: 600, height: 400, objects: [{ label: 'cup', score: 0.58, box: { x1: 170, y1: 15.5, x2: 415.9, y2: 267.7 } }] };

describe('reading the stored conversation back', () => {
  it('loads a conversation saved before photos went through the detector as it was', () => {
    const older = [
      {
        id: 'm1',
        role: 'user',
        createdAt: 1,
        elements: [{ kind: 'image', imageId: 'p1', name: 'meadow.jpg', width: 400, height: 300, caption: 'A photo of a meadow.' }],
      },
      {
        id: 'm2',
        role: 'assistant',
        createdAt: 2,
        elements: [{ kind: 'text', text: 'lovely' }],
        reply: {
          method: 'clip-sim',
          intentModel: 'majority',
          relevance: 0.5,
          steps: [],
          timings: { decodeMs: 1, encodeMs: 2, captionMs: 3, intentMs: 0, rankMs: 1, totalMs: 7 },
          provider: 'wasm',
        },
      },
    ];
    expect(readStoredMessages(structuredClone(older))).toEqual(older);
  });

  it("keeps boxes in the shape this version writes, on photos and on a visitor's answer", () => {
    const photo = {
      kind: 'image',
      imageId: 'p1',
      name: 'coffee.jpg',
      width: 600,
      height: 400,
      caption: 'A cup.',
      captionSource: 'grounded',
      captionConfident: true,
      detections,
    };
    const saved = [
      { id: 'm1', role: 'user', createdAt: 1, elements: [photo] },
      {
        id: 'm2',
        role: 'assistant',
        createdAt: 2,
        elements: [{ kind: 'text', text: 'nice' }],
        reference: { elements: [{ ...photo, imageId: 'p2' }], score: {} },
      },
    ];
    expect(readStoredMessages(structuredClone(saved))).toEqual(saved);
  });

  it('drops damaged boxes rather than drawing them, and keeps the rest of the photo', () => {
    const damaged = [
      {
        id: 'm1',
        role: 'user',
        createdAt: 1,
        elements: [
          {
            kind: 'image',
            imageId: 'p1',
            name: 'a.jpg',
            width: 6,
            height: 4,
            caption: 'A cup.',
            detections: { width: 6, height: 4, objects: [{ label: 'cup', score: 'high' }] },
          },
        ],
      },
    ];
    expect(readStoredMessages(damaged)[0]!.elements).toEqual([{ kind: 'image', imageId: 'p1', name: 'a.jpg', width: 6, height: 4, caption: 'A cup.' }]);
  });

  it('reads anything that is not a list as an empty conversation', () => {
    expect(readStoredMessages(undefined)).toEqual([]);
    expect(readStoredMessages({ messages: [] })).toEqual([]);
  });
});
