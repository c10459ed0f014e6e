/**
 * "What is in the video?" for a real video, answered from what the object detector found in its
 * frames (each frame's grounded caption, the photo path's sentence), not from the AVSD answer bank:
 * that bank was written for the generated clips of coloured shapes ("there are three objects").
 * Drawn clips, sound questions and every other question still go to the AVSD rankers.
 */
import { CONFIDENT_SCORE, countedNoun, groundedCaption } from '../detection/groundedCaption';
import type { DetectionResult } from '../detection/types';
import type { ColorBlob } from './videoFeatures';
import { confidentLabels, videoLooksDrawn } from './videoDescription';

/** What a video's frames show, decided once when it is analyzed and kept with it. */
export interface ShownInVideo {
  /** Drawn shapes (the generated clips): questions about it go to the AVSD rankers. */
  drawn: boolean;
  /** For a real video, the answer to "what is in it": a sentence from the detector, or an abstention. */
  answer: string;
}

export const NOTHING_SHOWN_TEXT = "I can't tell what is in this video.";
export const NO_DETECTOR_TEXT = "I can't tell what is in this video: the object detector is not loaded, so only drawn shapes are recognized.";

/** At most this many things seen in other frames are added to the main frame's caption. */
const MAX_EXTRA_THINGS = 2;

interface SeenThing {
  label: string;
  /** Frames it is seen in with confidence, the first of them, and the most seen in one frame. */
  frames: number;
  first: number;
  most: number;
}

function listPhrase(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * The sentence for a real video: the caption of the frame that best says what lasts through the video,
 * then up to two things the other frames add ("..., and then a person appears").
 */
function framesSentence(detections: readonly (DetectionResult | null)[]): string {
  if (detections.every((d) => d === null)) return NO_DETECTOR_TEXT;
  const seen = new Map<string, SeenThing>();
  detections.forEach((result, f) => {
    for (const label of confidentLabels(result?.detections ?? [])) {
      const most = result!.detections.filter((d) => d.label === label && d.score >= CONFIDENT_SCORE).length;
      const thing = seen.get(label) ?? { label, frames: 0, first: f, most: 0 };
      seen.set(label, { ...thing, frames: thing.frames + 1, most: Math.max(thing.most, most) });
    }
  });
  const captions = detections
    .map((result, f) => (result ? { f, caption: groundedCaption(result) } : null))
    .filter((c) => c !== null && c.caption.confident && c.caption.mentioned.length > 0);
  if (captions.length === 0) return NOTHING_SHOWN_TEXT;
  // Things seen in most frames count for a frame's caption, passing ones against it: the main sentence is the lasting scene.
  const weight = (c: (typeof captions)[number]) => c!.caption.mentioned.reduce((sum, m) => sum + (seen.get(m.label)?.frames ?? 0) - detections.length / 2, 0);
  const main = captions.reduce((best, c) => (weight(c) > weight(best) ? c : best))!;
  const named = new Set(main.caption.mentioned.map((m) => m.label));
  const extras = [...seen.values()]
    .filter((t) => !named.has(t.label))
    .sort((a, b) => b.frames - a.frames || a.first - b.first)
    .slice(0, MAX_EXTRA_THINGS);
  let text = main.caption.text.replace(/\.$/, '');
  const later = extras.filter((t) => t.first > main.f);
  const earlier = extras.filter((t) => t.first <= main.f);
  const phrase = (things: readonly SeenThing[]) => listPhrase(things.map((t) => countedNoun(t.label, t.most)));
  const plural = (things: readonly SeenThing[]) => things.length > 1 || things[0]!.most > 1;
  if (later.length > 0) text += `, and then ${phrase(later)} ${plural(later) ? 'appear' : 'appears'}`;
  if (earlier.length > 0) text += `; ${phrase(earlier)} ${plural(earlier) ? 'are' : 'is'} seen too`;
  return `${text}.`;
}

/** What the frames show: `objects` are each frame's confident labels, as the description reads them. */
export function shownInVideo(frames: readonly { blobs: readonly ColorBlob[]; detections: DetectionResult | null }[]): ShownInVideo {
  const drawn = videoLooksDrawn(frames.map((f) => ({ blobs: f.blobs, objects: confidentLabels(f.detections?.detections ?? []) })));
  return { drawn, answer: drawn ? '' : framesSentence(frames.map((f) => f.detections)) };
}

const SOUND_WORDS =
  /\b(sounds?|hear|hears|heard|hearing|listen|audio|noise|noises|noisy|music|musical|song|songs|sing|sings|singing|speak|speaks|speaking|spoke|speech|say|says|said|saying|talk|talks|talking|voice|voices|loud|quiet|silent|silence|tone|tones|beep|beeps|knock|knocks|knocking)\b/;
const VIDEO = '(?:the|this|that|your|my|it|there)';
const WHAT_IS_SHOWN = [
  // "what is in the video", "what's in this clip", "what objects are in it", "what is shown in the video"
  new RegExp(
    `\\bwhat(?:\\s+(?:objects?|things?|items?|animals?|stuff|else))?(?:'s|\\s+is|\\s+are|\\s+was|\\s+were)?\\s+(?:there\\s+)?(?:(?:shown|seen|visible|happening|going on)\\s+)?(?:in|on)\\s+${VIDEO}\\b`,
  ),
  /\bwhat(?:'s|\s+is)\s+(?:happening|going on)\b/,
  /\bwhat\s+happens\b/,
  /\bwhat\s+(?:do|can|did|could)\s+you\s+see\b/,
  /\bwhat(?:'s|\s+is)\s+(?:the|this|that|it)\s+(?:(?:video|clip|movie|film)\s+)?about\b/,
  /\bwhat\s+(?:does|did)\s+(?:the|this|that|it)\s+(?:(?:video|clip|movie|film)\s+)?show\b/,
  /\bwhat\s+(?:is|are)\s+(?:shown|seen|visible)\b/,
  /\bdescribe\s+(?:the|this|that|it|what)\b/,
  /^\s*what(?:'s|\s+is)\s+(?:the|this|that)\s+(?:video|clip)\s*\??\s*$/,
  // "what is it?", "what's this?", "what is there?" about the video just shared
  /^\s*what(?:'s|\s+is)\s+(?:it|this|that|there)\s*\??\s*$/,
  /\bwhat\s+you\s+(?:can\s+)?see\b/,
];

function normalized(question: string): string {
  return question.toLowerCase().replace(/[\u2018\u2019`]/g, "'");
}

/** Questions about what is heard ("does anyone speak?", "is there music?"). */
export function asksAboutSound(question: string): boolean {
  return SOUND_WORDS.test(normalized(question));
}

/** Questions asking what the video shows: "what is in the video?", "what do you see?", "what is this clip about?". */
export function asksWhatIsShown(question: string): boolean {
  const text = normalized(question);
  return !asksAboutSound(text) && WHAT_IS_SHOWN.some((pattern) => pattern.test(text));
}

/**
 * The answer from the frames, or null when the question goes to the AVSD rankers: for drawn clips,
 * for sound questions and for anything but "what is in it". `shown` is absent for videos analyzed
 * by an older version of the app.
 */
export function answerFromFrames(question: string, shown: ShownInVideo | undefined): string | null {
  if (!shown || shown.drawn || !asksWhatIsShown(question)) return null;
  return shown.answer;
}
