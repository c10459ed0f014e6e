import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from '../detection/cocoClasses';
import type { Detection, DetectionResult } from '../detection/types';
import { NOTHING_SHOWN_TEXT, NO_DETECTOR_TEXT, answerFromFrames, asksAboutSound, asksWhatIsShown, shownInVideo } from '../video/shownInVideo';
import type { ColorBlob } from '../video/videoFeatures';

// Hand-made frame analyses of a 640 x 480 video: the detector's boxes and the coloured blobs found.
const detection = (label: string, score: number, x1: number, y1: number, x2: number, y2: number): Detection => {
  const classIndex = (COCO_CLASSES as readonly string[]).indexOf(label);
  if (classIndex < 0) throw new Error(`not a COCO class: ${label}`);
  return { classIndex, label, score, box: { x1, y1, x2, y2 } };
};
const frame = (...detections: Detection[]): DetectionResult => ({ width: 640, height: 480, detections });
const bus = detection('bus', 0.86, 60, 120, 420, 360);
const car = (x: number) => detection('car', 0.71, x, 300, x + 90, 370);
const person = detection('person', 0.78, 500, 200, 560, 400);
/** A real street: a red bus-sized patch, not a drawn shape. */
const streetBlobs: ColorBlob[] = [{ color: 'red', shape: 'square', x: 0.4, y: 0.5, area: 0.25, shapeLike: false }];
const drawnBlobs: ColorBlob[] = [{ color: 'green', shape: 'square', x: 0.5, y: 0.5, area: 0.03, shapeLike: true }];

const busVideo = Array.from({ length: 8 }, (_, f) => ({
  blobs: streetBlobs,
  detections: f < 5 ? frame(bus, car(440), car(540)) : frame(bus, car(440), car(540), person),
}));

describe('what is in a real video is said from the detector, not the answer bank', () => {
  it('names the bus on a real video with a bus, and adds the person who comes later', () => {
    const shown = shownInVideo(busVideo);
    expect(shown.drawn).toBe(false);
    expect(answerFromFrames('What is in the video?', shown)).toBe('A bus and two cars, and then a person appears.');
  });

  it('abstains when nothing in any frame is confident', () => {
    const weak = Array.from({ length: 8 }, () => ({ blobs: streetBlobs, detections: frame(detection('dog', 0.42, 100, 100, 300, 300)) }));
    expect(answerFromFrames('what is in the video?', shownInVideo(weak))).toBe(NOTHING_SHOWN_TEXT);
    const empty = Array.from({ length: 8 }, () => ({ blobs: [], detections: frame() }));
    expect(answerFromFrames('what do you see?', shownInVideo(empty))).toBe(NOTHING_SHOWN_TEXT);
  });

  it('says the detector is missing rather than guessing, on a real video without one', () => {
    const blind = Array.from({ length: 8 }, () => ({ blobs: streetBlobs, detections: null }));
    expect(answerFromFrames('what is in the video?', shownInVideo(blind))).toBe(NO_DETECTOR_TEXT);
  });

  it('does not route sound questions to the description', () => {
    const shown = shownInVideo(busVideo);
    for (const question of ['does anyone speak?', 'is there music?', 'what is the sound?', 'what do you hear in the video?', 'is anyone talking in it?']) {
      expect(asksAboutSound(question)).toBe(true);
      expect(answerFromFrames(question, shown)).toBeNull();
    }
  });

  it('leaves drawn clips, other questions and older analyses to the rankers', () => {
    const drawn = shownInVideo(Array.from({ length: 8 }, () => ({ blobs: drawnBlobs, detections: frame() })));
    expect(drawn.drawn).toBe(true);
    expect(answerFromFrames('what is in the video?', drawn)).toBeNull();
    const real = shownInVideo(busVideo);
    for (const question of ['what color is the bus?', 'how many objects are there?', 'what moves?', 'does it move left?'])
      expect(answerFromFrames(question, real)).toBeNull();
    expect(answerFromFrames('what is in the video?', undefined)).toBeNull();
  });

  it('knows the close variants of "what is in it"', () => {
    const variants = [
      'What is in the video?',
      "what's in this clip?",
      'What’s in it',
      'what do you see',
      'What can you see in the video?',
      'what is this video about?',
      'What is happening in the video?',
      "what's going on",
      'what is shown in the clip?',
      'what objects are in the video?',
      'What does the video show?',
      'describe the video',
      'What is it?',
      "what's this",
      'tell me what you see',
    ];
    expect(variants.filter((q) => !asksWhatIsShown(q))).toEqual([]);
  });

  it('is drawn shapes only when the detector is sure of nothing and a frame looks drawn', () => {
    // A drawn-looking frame in a video where the detector is sure of a cup: a real scene, as its description says.
    const mixed = [
      { blobs: drawnBlobs, detections: frame(detection('cup', 0.9, 200, 150, 400, 400)) },
      { blobs: drawnBlobs, detections: frame() },
    ];
    expect(shownInVideo(mixed)).toEqual({ drawn: false, answer: 'A cup.' });
  });
});
