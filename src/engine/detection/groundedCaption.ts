import type { CocoClass } from './cocoClasses';
import type { Box, Detection, DetectionResult } from './types';

/**
 * Grounded captions: one English sentence that says what the object detector found: counts, the
 * main object first, spatial words the boxes support, and a scene word only on confident evidence.
 *
 * Pipeline: drop weak and tiny detections, merge same-class duplicates, group by class, pick the
 * main group (area x score x a subject weight, see SUBJECT_WEIGHT), drop detections that are weak or
 * tiny next to the main one, let a rider / holder / thing-on-a-surface take the lead, relate each
 * other group to the main one, keep MAX_KINDS kinds, add a scene, and write the sentence.
 */

/**
 * Changes whenever a rule, threshold or word of the confident captions changes, so captions cached or
 * trained on, and embeddings of a tower fed them, are redone. Hedged captions and the image tower's
 * vote are not fed to the tower (`photoGrounding`), so they leave it as it is.
 */
export const GROUNDED_CAPTION_VERSION = 'grounded-caption-1';

// ---- Thresholds -----------------------------------------------------------------------------

/** Detections below this score are ignored; 0.3 is CenterNet's own display threshold. */
export const DETECTION_MIN_SCORE = 0.3;
/** Boxes smaller than this fraction of the photo (about 16 x 16 px at 640 x 480) are ignored: too small to see or to trust. */
const MIN_BOX_AREA_FRACTION = 0.001;
/** Two boxes of one class overlapping this much (IoU) are one object found twice; real neighbours of a class rarely overlap past 0.5. */
const DUPLICATE_IOU = 0.7;
/** The main object needs at least this score; with none, the caption says it can't tell. */
export const CONFIDENT_SCORE = 0.5;
/** Other detections must score at least this fraction of the main object's best score, so a doubtful guess is not listed beside a sure one. */
const RELATIVE_MIN_SCORE = 0.5;
/** Other boxes must be at least this fraction of the main object's box: a speck beside the subject is not what the photo is of. */
const RELATIVE_MIN_AREA = 0.01;
/** At most this many kinds of object in a sentence, the main one included, so it stays short. */
const MAX_KINDS = 3;
/** Counts up to this are written as words; above it "many" (or "a group of people"), as the detector's counts of crowds are rough. */
const MAX_COUNT_IN_WORDS = 10;

/**
 * Weight of a class as the subject of a photo, by COCO supercategory: a photo is usually "of" the
 * people and animals in it; furniture, appliances and street fixtures are usually where it was taken.
 * A setting object must look 5x larger (area x score) than a dog to lead the sentence.
 */
const SUBJECT_WEIGHT = { living: 1, object: 0.5, setting: 0.2 } as const;

/** A box whose bottom is this fraction of the other box's height above its bottom edge rests on it, rather than standing on the ground in front of it. */
const GROUND_MARGIN = 0.05;
/** Riding: at least this fraction of the rider's width lies over the mount. */
const RIDE_MIN_HORIZONTAL_OVERLAP = 0.5;
/** Riding: the rider's box reaches at least this fraction of the mount's height below the mount's top (legs over its back or on the pedals). */
const RIDE_MIN_SEAT_DEPTH = 0.2;
/** On a board or skis: the board lies within this fraction of the person's height of their feet, and in their lower half. */
const BOARD_FEET_ZONE = 0.15;
/** Under an umbrella: its lower rim is at most this fraction of the person's height above their head... */
const UNDER_MAX_GAP = 0.25;
/** ...and no lower than this fraction of their height below the top of their head. */
const UNDER_MAX_RIM_DEPTH = 0.5;
/** Wearing: at least this fraction of the item's box lies inside the person's box... */
const WEAR_MIN_INSIDE = 0.7;
/** ...with its centre in this upper fraction of the person (ties, backpacks and gloves are not at the feet). */
const WEAR_MAX_CENTER_DEPTH = 0.7;
/** Holding: at least this fraction of the item's box lies inside the person's box (a racket sticks out, its handle does not)... */
const HOLD_MIN_INSIDE = 0.3;
/** ...with its centre above this fraction of the person's height: a racket by the feet is lying on the ground. */
const HOLD_MAX_CENTER_DEPTH = 0.8;
/** At a table: the person's box overlaps the table's by at least this fraction of the person's area. */
const AT_TABLE_MIN_OVERLAP = 0.2;
/** On or in a surface: at least this fraction of the thing's box lies inside the surface's box. */
const ON_MIN_INSIDE = 0.6;
/** In front of: the boxes overlap by at least this fraction of the smaller one (one hides part of the other). */
const FRONT_MIN_OVERLAP = 0.2;
/** In front of / next to: the shorter box is at least this fraction of the taller; past 5x they are at very different depths or one is a detail. */
const COMPARABLE_HEIGHT_RATIO = 0.2;
/** Next to: the boxes share at least this fraction of the shorter one's height (side by side, not one above the other). */
const NEXT_TO_MIN_VERTICAL_OVERLAP = 0.5;
/** Next to: they overlap horizontally by at most this fraction of the narrower box (more is one behind the other). */
const NEXT_TO_MAX_HORIZONTAL_OVERLAP = 0.5;
/** Next to: the gap between them is at most this fraction of the narrower box's width (a large box must not stretch "next to" across the photo). */
const NEXT_TO_MAX_GAP = 0.5;

/** A scene inferred from objects is said when its evidence (noisy-OR of its cues' scores) reaches this: one cue at 0.7, or two at 0.5. */
const SCENE_MIN_EVIDENCE = 0.7;
/** An external scene hint (a scene classifier's probability) is used from this confidence up. */
const SCENE_HINT_MIN_CONFIDENCE = 0.6;

/**
 * Between this score and CONFIDENT_SCORE the caption hedges ("Maybe a cat.") rather than say nothing:
 * a cat at 0.49 is usually a cat. Lower bars guess wrong too often (mention precision on our own
 * photos: 77.6 hedging from 0.45, 68.1 from 0.40, 60.5 from 0.30).
 */
export const HEDGE_SCORE = 0.45;
/**
 * The image tower's zero-shot vote on a weak detection (HEDGE_SCORE to CONFIDENT_SCORE): the rank of
 * its label among the 80 COCO names by the tower's own text embeddings. Ranked VETO_RANK or worse,
 * the caption drops it; ranked CONFIRM_RANK or better, it names it plainly. mini-clip v2's tower sees
 * pixels poorly on its own, so only the veto pays: ruling out labels in the bottom half of its ranking
 * lifts precision from 77.6 to 80.0 (vetoing from rank 11 or 21 does no better), and its confirmations
 * were right 2 times in 3, so CONFIRM_RANK 0 leaves confirming off.
 */
const CONFIRM_RANK = 0;
export const VETO_RANK = 41;
/** Below HEDGE_SCORE (down to DETECTION_MIN_SCORE) a detection would be hedged when its label ranks this high; 0: never (it cost precision). */
const SUPPORT_RANK = 0;
// All four are chosen by `npm run bench -- caption-thresholds` on our own 117 held-out photos (the most
// mention recall at precision 80 or more, then the least change to the detector's caption), never on coco-mini.

/** What the caption says when no object is found with confidence. */
export const NOTHING_FOUND_TEXT = "I can't tell what is in this photo.";

// ---- Words for the 80 classes ---------------------------------------------------------------

/** The COCO 2017 supercategories. */
export type Supercategory =
  'person' | 'vehicle' | 'outdoor' | 'animal' | 'accessory' | 'sports' | 'kitchen' | 'food' | 'furniture' | 'electronic' | 'appliance' | 'indoor';

interface ClassWords {
  supercategory: Supercategory;
  /** The noun for one, without article: "wine glass", "pair of skis". */
  one: string;
  many: string;
  /** The noun after "on" when it reads better bare: "on skis". */
  bare?: string;
  /** Uncountable: "broccoli", never "a broccoli" or "two broccoli". */
  mass?: boolean;
}

const noun = (supercategory: Supercategory, one: string, many = `${one}s`, extra: Partial<ClassWords> = {}): ClassWords => ({
  supercategory,
  one,
  many,
  ...extra,
});

const CLASS_WORDS: Record<CocoClass, ClassWords> = {
  person: noun('person', 'person', 'people'),
  bicycle: noun('vehicle', 'bicycle'),
  car: noun('vehicle', 'car'),
  motorcycle: noun('vehicle', 'motorcycle'),
  airplane: noun('vehicle', 'airplane'),
  bus: noun('vehicle', 'bus', 'buses'),
  train: noun('vehicle', 'train'),
  truck: noun('vehicle', 'truck'),
  boat: noun('vehicle', 'boat'),
  'traffic light': noun('outdoor', 'traffic light'),
  'fire hydrant': noun('outdoor', 'fire hydrant'),
  'stop sign': noun('outdoor', 'stop sign'),
  'parking meter': noun('outdoor', 'parking meter'),
  bench: noun('outdoor', 'bench', 'benches'),
  bird: noun('animal', 'bird'),
  cat: noun('animal', 'cat'),
  dog: noun('animal', 'dog'),
  horse: noun('animal', 'horse'),
  sheep: noun('animal', 'sheep', 'sheep'),
  cow: noun('animal', 'cow'),
  elephant: noun('animal', 'elephant'),
  bear: noun('animal', 'bear'),
  zebra: noun('animal', 'zebra'),
  giraffe: noun('animal', 'giraffe'),
  backpack: noun('accessory', 'backpack'),
  umbrella: noun('accessory', 'umbrella'),
  handbag: noun('accessory', 'handbag'),
  tie: noun('accessory', 'tie'),
  suitcase: noun('accessory', 'suitcase'),
  frisbee: noun('sports', 'frisbee'),
  skis: noun('sports', 'pair of skis', 'pairs of skis', { bare: 'skis' }),
  snowboard: noun('sports', 'snowboard'),
  'sports ball': noun('sports', 'ball'),
  kite: noun('sports', 'kite'),
  'baseball bat': noun('sports', 'baseball bat'),
  'baseball glove': noun('sports', 'baseball glove'),
  skateboard: noun('sports', 'skateboard'),
  surfboard: noun('sports', 'surfboard'),
  'tennis racket': noun('sports', 'tennis racket'),
  bottle: noun('kitchen', 'bottle'),
  'wine glass': noun('kitchen', 'wine glass', 'wine glasses'),
  cup: noun('kitchen', 'cup'),
  fork: noun('kitchen', 'fork'),
  knife: noun('kitchen', 'knife', 'knives'),
  spoon: noun('kitchen', 'spoon'),
  bowl: noun('kitchen', 'bowl'),
  banana: noun('food', 'banana'),
  apple: noun('food', 'apple'),
  sandwich: noun('food', 'sandwich', 'sandwiches'),
  orange: noun('food', 'orange'),
  broccoli: noun('food', 'broccoli', 'broccoli', { mass: true }),
  carrot: noun('food', 'carrot'),
  'hot dog': noun('food', 'hot dog'),
  pizza: noun('food', 'pizza'),
  donut: noun('food', 'donut'),
  cake: noun('food', 'cake'),
  chair: noun('furniture', 'chair'),
  couch: noun('furniture', 'couch', 'couches'),
  'potted plant': noun('furniture', 'potted plant'),
  bed: noun('furniture', 'bed'),
  'dining table': noun('furniture', 'table'),
  toilet: noun('furniture', 'toilet'),
  tv: noun('electronic', 'TV'),
  laptop: noun('electronic', 'laptop'),
  mouse: noun('electronic', 'mouse', 'mice'),
  remote: noun('electronic', 'remote'),
  keyboard: noun('electronic', 'keyboard'),
  'cell phone': noun('electronic', 'cell phone'),
  microwave: noun('appliance', 'microwave'),
  oven: noun('appliance', 'oven'),
  toaster: noun('appliance', 'toaster'),
  sink: noun('appliance', 'sink'),
  refrigerator: noun('appliance', 'refrigerator'),
  book: noun('indoor', 'book'),
  clock: noun('indoor', 'clock'),
  vase: noun('indoor', 'vase'),
  scissors: noun('indoor', 'pair of scissors', 'pairs of scissors'),
  'teddy bear': noun('indoor', 'teddy bear'),
  'hair drier': noun('indoor', 'hair dryer'),
  toothbrush: noun('indoor', 'toothbrush', 'toothbrushes'),
};

/** The COCO supercategory of a class ("animal" for dog and cat): what "near" an object means when a reply is judged. */
export function supercategoryOf(label: string): Supercategory {
  return wordsFor(label).supercategory;
}

function wordsFor(label: string): ClassWords {
  // A label outside COCO (another detector) is still named, as a plain countable object.
  return (CLASS_WORDS as Record<string, ClassWords | undefined>)[label] ?? noun('indoor', label);
}

function subjectWeight(supercategory: Supercategory): number {
  if (supercategory === 'person' || supercategory === 'animal') return SUBJECT_WEIGHT.living;
  if (supercategory === 'furniture' || supercategory === 'appliance' || supercategory === 'outdoor') return SUBJECT_WEIGHT.setting;
  return SUBJECT_WEIGHT.object;
}

// ---- English ---------------------------------------------------------------------------------

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** Letters whose spoken name starts with a vowel sound: "an SUV", "an LCD", but "a TV". */
const VOWEL_SOUND_LETTERS = 'AEFHILMNORSX';

/** "a" or "an" for the phrase that follows, by sound: "an umbrella", "a unicorn", "an hour", "a TV". */
export function indefiniteArticle(phrase: string): 'a' | 'an' {
  const word = phrase.trim().split(/\s+/)[0] ?? '';
  if (/^[A-Z]{2,}s?$/.test(word)) return VOWEL_SOUND_LETTERS.includes(word[0]!) ? 'an' : 'a';
  const lower = word.toLowerCase();
  if (/^(hour|honest|honou?r|heir)/.test(lower)) return 'an';
  if (/^(uni|use|usu|uti|ure|eu|ewe|one|once)/.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

/** "a dog", "two dogs", "many sheep", "a group of people", "broccoli". */
export function countedNoun(label: string, count: number): string {
  const words = wordsFor(label);
  if (words.mass) return words.one;
  if (count <= 1) return `${indefiniteArticle(words.one)} ${words.one}`;
  if (count <= MAX_COUNT_IN_WORDS) return `${NUMBER_WORDS[count]} ${words.many}`;
  return label === 'person' ? 'a group of people' : `many ${words.many}`;
}

/** "a, b and c". */
function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

// ---- Boxes -------------------------------------------------------------------------------------

const width = (b: Box) => Math.max(0, b.x2 - b.x1);
const height = (b: Box) => Math.max(0, b.y2 - b.y1);
const area = (b: Box) => width(b) * height(b);
const centerX = (b: Box) => (b.x1 + b.x2) / 2;
const centerY = (b: Box) => (b.y1 + b.y2) / 2;
const horizontalOverlap = (a: Box, b: Box) => Math.max(0, Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1));
const verticalOverlap = (a: Box, b: Box) => Math.max(0, Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1));
const intersection = (a: Box, b: Box) => horizontalOverlap(a, b) * verticalOverlap(a, b);
/** The fraction of a's area that lies inside b. */
const insideFraction = (a: Box, b: Box) => (area(a) > 0 ? intersection(a, b) / area(a) : 0);

function iou(a: Box, b: Box): number {
  const shared = intersection(a, b);
  const union = area(a) + area(b) - shared;
  return union > 0 ? shared / union : 0;
}

function comparableHeights(a: Box, b: Box): boolean {
  const taller = Math.max(height(a), height(b));
  return taller > 0 && Math.min(height(a), height(b)) >= COMPARABLE_HEIGHT_RATIO * taller;
}

// ---- Relations -----------------------------------------------------------------------------------

/** A spatial relation, read "subject <words> object". */
type RelationKind = 'riding' | 'onBoard' | 'under' | 'wearing' | 'holding' | 'atTable' | 'onSurface' | 'inFrontOf' | 'nextTo';

interface RelationRule {
  kind: RelationKind;
  applies(subject: string, object: string): boolean;
  holds(subject: Box, object: Box): boolean;
  words(object: string): string;
}

const RIDEABLE = new Set(['horse', 'elephant', 'bicycle', 'motorcycle']);
const BOARDS = new Set(['skis', 'snowboard', 'skateboard', 'surfboard']);
const WEARABLE = new Set(['tie', 'backpack', 'baseball glove']);
/** Things a person's hand is the likely reason for overlap; tableware and food are left out, as a cup in front of a seated person overlaps them just as well. */
const HOLDABLE = new Set([
  'tennis racket',
  'baseball bat',
  'frisbee',
  'umbrella',
  'skis',
  'snowboard',
  'skateboard',
  'surfboard',
  'cell phone',
  'remote',
  'toothbrush',
  'hair drier',
  'scissors',
]);
/** Not standing on the ground, so the ground-plane cues of "in front of" and "next to" do not apply. */
const OFF_THE_GROUND = new Set(['kite', 'airplane', 'traffic light']);

const SMALL_THINGS: readonly Supercategory[] = ['accessory', 'sports', 'kitchen', 'food', 'electronic', 'indoor'];
/** Surfaces something can be on or in, with the preposition and which supercategories can be there. */
const SURFACES: Record<string, { preposition: 'on' | 'in'; subjects: readonly Supercategory[] }> = {
  couch: { preposition: 'on', subjects: ['person', 'animal', ...SMALL_THINGS] },
  bed: { preposition: 'on', subjects: ['person', 'animal', ...SMALL_THINGS] },
  chair: { preposition: 'on', subjects: ['person', 'animal', ...SMALL_THINGS] },
  bench: { preposition: 'on', subjects: ['person', 'animal', ...SMALL_THINGS] },
  // A person whose legs the table hides would look "on" it; people are "at" a table instead.
  'dining table': { preposition: 'on', subjects: ['animal', ...SMALL_THINGS] },
  toilet: { preposition: 'on', subjects: ['animal', 'indoor'] },
  sink: { preposition: 'in', subjects: ['animal', 'kitchen'] },
  bowl: { preposition: 'in', subjects: ['food'] },
  boat: { preposition: 'in', subjects: ['person', 'animal'] },
  // Cats lie on these; anything else overlapping them is usually beside or behind.
  laptop: { preposition: 'on', subjects: ['animal'] },
  keyboard: { preposition: 'on', subjects: ['animal'] },
  suitcase: { preposition: 'on', subjects: ['animal'] },
};

/** In priority order: the first that holds is said. */
const RELATION_RULES: readonly RelationRule[] = [
  {
    kind: 'riding',
    applies: (s, o) => s === 'person' && RIDEABLE.has(o),
    holds: (rider, mount) =>
      horizontalOverlap(rider, mount) >= RIDE_MIN_HORIZONTAL_OVERLAP * width(rider) &&
      rider.y1 < mount.y1 &&
      rider.y2 >= mount.y1 + RIDE_MIN_SEAT_DEPTH * height(mount) &&
      rider.y2 <= mount.y2 - GROUND_MARGIN * height(mount),
    words: () => 'riding',
  },
  {
    kind: 'onBoard',
    applies: (s, o) => (s === 'person' || wordsFor(s).supercategory === 'animal') && BOARDS.has(o),
    holds: (rider, board) =>
      horizontalOverlap(rider, board) >= 0.5 * Math.min(width(rider), width(board)) &&
      board.y1 >= rider.y1 + 0.5 * height(rider) &&
      board.y1 <= rider.y2 + BOARD_FEET_ZONE * height(rider) &&
      board.y2 >= rider.y2 - BOARD_FEET_ZONE * height(rider),
    words: () => 'on',
  },
  {
    kind: 'under',
    applies: (s, o) => (s === 'person' || wordsFor(s).supercategory === 'animal') && o === 'umbrella',
    holds: (person, umbrella) =>
      horizontalOverlap(person, umbrella) >= 0.5 * width(person) &&
      umbrella.y1 < person.y1 &&
      umbrella.y2 >= person.y1 - UNDER_MAX_GAP * height(person) &&
      umbrella.y2 <= person.y1 + UNDER_MAX_RIM_DEPTH * height(person),
    words: () => 'under',
  },
  {
    kind: 'wearing',
    applies: (s, o) => s === 'person' && WEARABLE.has(o),
    holds: (person, item) => insideFraction(item, person) >= WEAR_MIN_INSIDE && centerY(item) <= person.y1 + WEAR_MAX_CENTER_DEPTH * height(person),
    words: () => 'wearing',
  },
  {
    kind: 'holding',
    applies: (s, o) => s === 'person' && HOLDABLE.has(o),
    holds: (person, item) =>
      insideFraction(item, person) >= HOLD_MIN_INSIDE && area(item) <= area(person) && centerY(item) <= person.y1 + HOLD_MAX_CENTER_DEPTH * height(person),
    words: () => 'holding',
  },
  {
    kind: 'atTable',
    applies: (s, o) => s === 'person' && o === 'dining table',
    holds: (person, table) =>
      intersection(person, table) >= AT_TABLE_MIN_OVERLAP * area(person) && person.y1 < table.y1 && centerX(person) >= table.x1 && centerX(person) <= table.x2,
    words: () => 'at',
  },
  {
    kind: 'onSurface',
    applies: (s, o) => SURFACES[o]?.subjects.includes(wordsFor(s).supercategory) ?? false,
    holds: (thing, surface) =>
      area(thing) < area(surface) &&
      insideFraction(thing, surface) >= ON_MIN_INSIDE &&
      centerX(thing) >= surface.x1 &&
      centerX(thing) <= surface.x2 &&
      thing.y2 <= surface.y2 - GROUND_MARGIN * height(surface),
    words: (o) => SURFACES[o]?.preposition ?? 'on',
  },
  {
    kind: 'inFrontOf',
    applies: (s, o) => !OFF_THE_GROUND.has(s) && !OFF_THE_GROUND.has(o),
    // Nearer things stand lower in the photo; overlapping and lower means in front.
    holds: (front, back) =>
      comparableHeights(front, back) &&
      intersection(front, back) >= FRONT_MIN_OVERLAP * Math.min(area(front), area(back)) &&
      front.y2 >= back.y2 + GROUND_MARGIN * height(back),
    words: () => 'in front of',
  },
  {
    kind: 'nextTo',
    applies: (s, o) => !OFF_THE_GROUND.has(s) && !OFF_THE_GROUND.has(o),
    holds: (a, b) => {
      const gap = Math.max(0, Math.max(a.x1, b.x1) - Math.min(a.x2, b.x2));
      return (
        comparableHeights(a, b) &&
        verticalOverlap(a, b) >= NEXT_TO_MIN_VERTICAL_OVERLAP * Math.min(height(a), height(b)) &&
        horizontalOverlap(a, b) <= NEXT_TO_MAX_HORIZONTAL_OVERLAP * Math.min(width(a), width(b)) &&
        gap <= NEXT_TO_MAX_GAP * Math.min(width(a), width(b))
      );
    },
    words: () => 'next to',
  },
];

/** Relations that make the subject, rather than the object, what the photo is about. */
const LEADING_RELATIONS: ReadonlySet<RelationKind> = new Set(['riding', 'onBoard', 'under', 'wearing', 'holding', 'atTable', 'onSurface']);

interface ObjectGroup {
  label: string;
  /** Strongest first. */
  detections: Detection[];
  /** Sum of area fraction x score, times the subject weight. */
  salience: number;
}

/**
 * The first relation (in priority order) that holds between two groups in both directions of
 * counting: every subject is in it with some object, and every object with some subject, so "two
 * people riding a horse" or "a dog next to two people" never claims more than the boxes show.
 */
function groupRelation(subject: ObjectGroup, object: ObjectGroup): RelationRule | null {
  for (const rule of RELATION_RULES) {
    if (!rule.applies(subject.label, object.label)) continue;
    const everySubject = subject.detections.every((s) => object.detections.some((o) => rule.holds(s.box, o.box)));
    const everyObject = object.detections.every((o) => subject.detections.some((s) => rule.holds(s.box, o.box)));
    if (everySubject && everyObject) return rule;
  }
  return null;
}

// ---- Scenes ------------------------------------------------------------------------------------

/** A scene from a visual scene classifier, e.g. { scene: 'beach', confidence: 0.82 }. */
export interface SceneHint {
  scene: string;
  confidence: number;
}

interface SceneCue {
  anyOf: readonly string[];
  minCount?: number;
}

interface SceneRule {
  scene: string;
  /** Each alternative is enough alone; within one, every cue must be present. */
  alternatives: readonly (readonly SceneCue[])[];
  /** Only said of these main objects (labels); any when absent. */
  subjects?: ReadonlySet<string>;
  /** Classes the scene words name, so they are not listed again. */
  covers?: readonly string[];
}

const FOOD = Object.keys(CLASS_WORDS).filter((label) => wordsFor(label).supercategory === 'food');
const TABLETOP = new Set([
  ...Object.keys(CLASS_WORDS).filter((label) => ['food', 'kitchen'].includes(wordsFor(label).supercategory)),
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'book',
  'vase',
  'scissors',
  'teddy bear',
  'clock',
]);
const INDOOR_ONLY = ['couch', 'bed', 'toilet', 'tv', 'laptop', 'keyboard', 'mouse', 'microwave', 'oven', 'toaster', 'refrigerator', 'sink', 'hair drier'];
/** One cue per label: all of them must be present. */
const allOf = (...labels: string[]): SceneCue[] => labels.map((label) => ({ anyOf: [label] }));

/** Scenes inferred from objects; among those with confident evidence, the strongest (then the first) is said. */
const SCENE_RULES: readonly SceneRule[] = [
  { scene: 'in the snow', alternatives: [allOf('skis'), allOf('snowboard')] },
  { scene: 'on a tennis court', alternatives: [allOf('tennis racket', 'sports ball')], subjects: new Set(['person', 'tennis racket', 'sports ball']) },
  {
    scene: 'on a baseball field',
    alternatives: [allOf('baseball bat', 'baseball glove')],
    subjects: new Set(['person', 'baseball bat', 'baseball glove', 'sports ball']),
  },
  { scene: 'in a kitchen', alternatives: [allOf('oven'), allOf('refrigerator'), allOf('microwave', 'sink')] },
  { scene: 'in a bathroom', alternatives: [allOf('toilet'), allOf('sink', 'toothbrush')] },
  { scene: 'in a bedroom', alternatives: [allOf('bed')] },
  { scene: 'in a living room', alternatives: [allOf('couch', 'tv')] },
  // "Several cars": three, as two may be parked in a drive.
  {
    scene: 'on a street',
    alternatives: [[{ anyOf: ['car'], minCount: 3 }], allOf('traffic light'), allOf('stop sign'), allOf('fire hydrant'), allOf('parking meter')],
  },
  // A surfboard carried on the sand would read wrong; said only of people and the board.
  { scene: 'in the water', alternatives: [allOf('surfboard')], subjects: new Set(['person', 'surfboard']) },
  // "A person on the water" is wrong for someone on the quay; people in a boat get "in a boat" from the boxes.
  { scene: 'on the water', alternatives: [allOf('boat')], subjects: new Set(['boat']) },
  { scene: 'on a table', alternatives: [[...allOf('dining table'), { anyOf: FOOD }]], subjects: TABLETOP, covers: ['dining table'] },
];
/** Said only when no other scene is: one object that is almost never outdoors. */
const INDOORS_RULE: SceneRule = { scene: 'indoors', alternatives: INDOOR_ONLY.map((label) => allOf(label)) };

/** Scene words for common scene-classifier labels; others become "in a <label>". */
const SCENE_HINT_PHRASES: Record<string, string> = {
  beach: 'on a beach',
  snow: 'in the snow',
  'ski slope': 'on a ski slope',
  street: 'on a street',
  road: 'on a road',
  highway: 'on a highway',
  water: 'on the water',
  sea: 'by the sea',
  ocean: 'by the ocean',
  lake: 'by a lake',
  river: 'by a river',
  mountain: 'in the mountains',
  sky: 'in the sky',
  city: 'in a city',
  airport: 'at an airport',
  'train station': 'at a train station',
  indoor: 'indoors',
  outdoor: 'outdoors',
};

/** A classifier label ("beach", "/b/ski_slope", "in a kitchen") as scene words ("on a beach", "on a ski slope", "in a kitchen"). */
export function scenePhrase(scene: string): string {
  const label = (scene.split('/').filter(Boolean).pop() ?? '')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
  if (!label) return '';
  if (/^(in|on|at|by|under|near|inside|outside|indoors|outdoors)\b/.test(label)) return label;
  return SCENE_HINT_PHRASES[label] ?? `in ${/^the\s/.test(label) ? '' : `${indefiniteArticle(label)} `}${label}`;
}

/** Noisy-OR of the alternatives; an alternative scores its weakest cue, a cue its minCount-th best detection. */
function sceneEvidence(rule: SceneRule, detections: readonly Detection[]): number {
  let miss = 1;
  for (const alternative of rule.alternatives) {
    const cueScores = alternative.map((cue) => {
      const scores = detections.filter((d) => cue.anyOf.includes(d.label)).map((d) => d.score);
      return scores.sort((a, b) => b - a)[(cue.minCount ?? 1) - 1] ?? 0;
    });
    miss *= 1 - Math.min(...cueScores);
  }
  return 1 - miss;
}

interface ChosenScene {
  scene: string;
  covers: readonly string[];
}

/** Objects first (they are grounded in this photo), then a hint, then "indoors". */
function chooseScene(detections: readonly Detection[], mainLabel: string | null, hints: readonly SceneHint[]): ChosenScene | null {
  let best: { rule: SceneRule; evidence: number } | null = null;
  for (const rule of SCENE_RULES) {
    if (rule.subjects && (mainLabel === null || !rule.subjects.has(mainLabel))) continue;
    const evidence = sceneEvidence(rule, detections);
    if (evidence >= SCENE_MIN_EVIDENCE && (!best || evidence > best.evidence)) best = { rule, evidence };
  }
  if (best) return { scene: best.rule.scene, covers: best.rule.covers ?? [] };
  let hint: { scene: string; confidence: number } | null = null;
  for (const h of hints) {
    const scene = scenePhrase(h.scene);
    if (scene && h.confidence >= SCENE_HINT_MIN_CONFIDENCE && (!hint || h.confidence > hint.confidence)) hint = { scene, confidence: h.confidence };
  }
  if (hint) return { scene: hint.scene, covers: [] };
  return sceneEvidence(INDOORS_RULE, detections) >= SCENE_MIN_EVIDENCE ? { scene: INDOORS_RULE.scene, covers: [] } : null;
}

// ---- The caption ---------------------------------------------------------------------------------

interface MentionedObject {
  /** The exact COCO class, e.g. "dining table" where the sentence says "a table". */
  label: string;
  count: number;
}

export interface GroundedCaption {
  /** One sentence, capitalised, ending in a full stop: shown under the photo and used as its alt text. */
  text: string;
  /** The objects the sentence names, main object first. */
  mentioned: MentionedObject[];
  /** The scene words said, e.g. "in the snow", or null. */
  scene: string | null;
  /** False when nothing was found with confidence and the text says so, or only hedges. */
  confident: boolean;
  /** True when the text only guesses at a weak detection: "Maybe a dog." */
  hedged: boolean;
}

/** The bars a caption is written with; the sweep in `bench -- caption-thresholds` varies them. */
export interface CaptionThresholds {
  hedgeScore: number;
  confirmRank: number;
  vetoRank: number;
  supportRank: number;
}

export const DEFAULT_CAPTION_THRESHOLDS: CaptionThresholds = {
  hedgeScore: HEDGE_SCORE,
  confirmRank: CONFIRM_RANK,
  vetoRank: VETO_RANK,
  supportRank: SUPPORT_RANK,
};

export interface GroundedCaptionOptions {
  /** Scenes from a visual scene classifier; one is used only from SCENE_HINT_MIN_CONFIDENCE. */
  sceneHints?: readonly SceneHint[];
  /** The image tower's zero-shot rank of each COCO label (1 = its first choice); without it nothing is voted on. */
  zeroShotRanks?: ReadonlyMap<string, number>;
  thresholds?: CaptionThresholds;
}

export type LabelVote = 'confirm' | 'veto' | 'abstain';

/** The image tower's vote on a detected label, from the label's zero-shot rank among the 80 names. */
export function labelVote(rank: number | undefined, thresholds: CaptionThresholds = DEFAULT_CAPTION_THRESHOLDS): LabelVote {
  if (rank === undefined) return 'abstain';
  if (rank <= thresholds.confirmRank) return 'confirm';
  return rank >= thresholds.vetoRank ? 'veto' : 'abstain';
}

/**
 * The detections as the caption reads them after the vote: a weak one (hedge bar to CONFIDENT_SCORE)
 * that the image tower vetoes is dropped, one it confirms is read at CONFIDENT_SCORE; a weaker one
 * (DETECTION_MIN_SCORE to the hedge bar) that it supports is read at the hedge bar. Strong ones stand
 * as the detector found them: the small tower is no judge of what the detector is sure of.
 */
function votedDetections(result: DetectionResult, options: GroundedCaptionOptions = {}): DetectionResult {
  const ranks = options.zeroShotRanks;
  if (!ranks) return result;
  const thresholds = options.thresholds ?? DEFAULT_CAPTION_THRESHOLDS;
  const detections = result.detections.flatMap((d) => {
    if (d.score >= CONFIDENT_SCORE || d.score < DETECTION_MIN_SCORE) return [d];
    const rank = ranks.get(d.label);
    if (d.score < thresholds.hedgeScore) {
      const supported = thresholds.hedgeScore < CONFIDENT_SCORE && rank !== undefined && rank <= thresholds.supportRank;
      return supported ? [{ ...d, score: thresholds.hedgeScore }] : [d];
    }
    const vote = labelVote(rank, thresholds);
    return vote === 'veto' ? [] : vote === 'confirm' ? [{ ...d, score: CONFIDENT_SCORE }] : [d];
  });
  return { ...result, detections };
}

/** Detections worth reading: strong enough, big enough, and each object once. */
function usableDetections(result: DetectionResult, minScore = DETECTION_MIN_SCORE): Detection[] {
  const imageArea = Math.max(1, result.width * result.height);
  const candidates = result.detections
    .map((d, index) => ({ d, index }))
    .filter(({ d }) => d.score >= minScore && area(d.box) >= MIN_BOX_AREA_FRACTION * imageArea)
    .sort((a, b) => b.d.score - a.d.score || a.index - b.index)
    .map(({ d }) => d);
  const kept: Detection[] = [];
  for (const d of candidates) if (!kept.some((k) => k.label === d.label && iou(k.box, d.box) >= DUPLICATE_IOU)) kept.push(d);
  return kept;
}

function groupByClass(detections: readonly Detection[], imageArea: number): ObjectGroup[] {
  const groups = new Map<string, ObjectGroup>();
  for (const d of detections) {
    const group = groups.get(d.label) ?? { label: d.label, detections: [], salience: 0 };
    group.detections.push(d);
    group.salience += (area(d.box) / imageArea) * d.score * subjectWeight(wordsFor(d.label).supercategory);
    groups.set(d.label, group);
  }
  return [...groups.values()];
}

function bySalience(a: ObjectGroup, b: ObjectGroup): number {
  return b.salience - a.salience || b.detections[0]!.score - a.detections[0]!.score;
}

/** "Maybe a dog.": the most salient kind found at the hedge bar or above, or null when there is none. */
function hedgedCaption(result: DetectionResult, hedgeScore: number): GroundedCaption | null {
  if (hedgeScore >= CONFIDENT_SCORE) return null;
  const imageArea = Math.max(1, result.width * result.height);
  const main = groupByClass(usableDetections(result, hedgeScore), imageArea).sort(bySalience)[0];
  if (!main) return null;
  return {
    text: sentence(`maybe ${countedNoun(main.label, main.detections.length)}`),
    mentioned: [{ label: main.label, count: main.detections.length }],
    scene: null,
    confident: false,
    hedged: true,
  };
}

/** The caption of one photo's detections (after the image tower's vote, when ranks are given). Pure and deterministic. */
export function groundedCaption(detected: DetectionResult, options: GroundedCaptionOptions = {}): GroundedCaption {
  const hints = options.sceneHints ?? [];
  const result = votedDetections(detected, options);
  const imageArea = Math.max(1, result.width * result.height);
  const usable = usableDetections(result);
  const groups = groupByClass(usable, imageArea).sort(bySalience);
  const firstMain = groups.find((g) => g.detections[0]!.score >= CONFIDENT_SCORE);

  if (!firstMain) {
    const scene = chooseScene(usable, null, hints);
    if (scene) return { text: sentence(`a photo taken ${scene.scene}`), mentioned: [], scene: scene.scene, confident: true, hedged: false };
    return (
      hedgedCaption(result, (options.thresholds ?? DEFAULT_CAPTION_THRESHOLDS).hedgeScore) ?? {
        text: NOTHING_FOUND_TEXT,
        mentioned: [],
        scene: null,
        confident: false,
        hedged: false,
      }
    );
  }

  // Drop what is weak or tiny next to the main object, then regroup.
  const reference = firstMain.detections[0]!;
  const kept = usable.filter((d) => d.score >= RELATIVE_MIN_SCORE * reference.score && area(d.box) >= RELATIVE_MIN_AREA * area(reference.box));
  const keptGroups = groupByClass(kept, imageArea).sort(bySalience);

  // A rider, holder or wearer, or a thing on a surface, is what the photo is of: "a person riding a horse", "a pizza on a table".
  const largest = keptGroups.find((g) => g.label === firstMain.label)!;
  const leads = (g: ObjectGroup) => {
    const relation = g === largest || g.detections[0]!.score < CONFIDENT_SCORE ? null : groupRelation(g, largest);
    return relation !== null && LEADING_RELATIONS.has(relation.kind);
  };
  const main = keptGroups.find(leads) ?? largest;

  const others = keptGroups.filter((g) => g !== main).map((group) => ({ group, relation: groupRelation(main, group) }));
  // Related objects first (they make the sentence say something), the closer relations ("on", "riding") before "next to"; then by salience.
  const priority = (o: (typeof others)[number]) => (o.relation ? RELATION_RULES.indexOf(o.relation) : RELATION_RULES.length);
  const ordered = others
    .map((o, index) => ({ o, index }))
    .sort((a, b) => priority(a.o) - priority(b.o) || a.index - b.index)
    .map(({ o }) => o);

  // "On a table" names the table: it is not said where the boxes put the subject elsewhere than on it, nor listed twice.
  const sceneChoice = chooseScene(usable, main.label, hints);
  const covered = new Set(sceneChoice?.covers ?? []);
  const contradicted = others.some((o) => covered.has(o.group.label) && o.relation !== null && o.relation.kind !== 'onSurface');
  const scene = contradicted ? null : (sceneChoice?.scene ?? null);
  const chosen = ordered.filter((o) => !(scene && covered.has(o.group.label) && !o.relation)).slice(0, MAX_KINDS - 1);
  const sayScene = scene !== null && !chosen.some((o) => covered.has(o.group.label));

  const mainPhrase = countedNoun(main.label, main.detections.length);
  const related = chosen.filter((o) => o.relation);
  const unrelated = chosen.filter((o) => !o.relation).map((o) => countedNoun(o.group.label, o.group.detections.length));
  const relationPhrases = related.map(({ group, relation }) => {
    const words = wordsFor(group.label);
    const objectPhrase = relation!.kind === 'onBoard' && words.bare ? words.bare : countedNoun(group.label, group.detections.length);
    return `${relation!.words(group.label)} ${objectPhrase}`;
  });
  let text =
    related.length > 0
      ? [mainPhrase, ...relationPhrases].join(' ') + (unrelated.length ? ` with ${listPhrase(unrelated)}` : '')
      : listPhrase([mainPhrase, ...unrelated]);
  if (sayScene) text += ` ${scene}`;

  const mentioned = [main, ...related.map((o) => o.group), ...chosen.filter((o) => !o.relation).map((o) => o.group)].map((g) => ({
    label: g.label,
    count: g.detections.length,
  }));
  if (sayScene) {
    for (const label of covered) {
      const count = (kept.some((d) => d.label === label) ? kept : usable).filter((d) => d.label === label).length;
      if (count > 0 && !mentioned.some((m) => m.label === label)) mentioned.push({ label, count });
    }
  }
  return { text: sentence(text), mentioned, scene, confident: true, hedged: false };
}

/**
 * The text that text-only retrieval (tf-idf, BM25, a text encoder) matches for the photo: the
 * caption itself, or nothing when it only says it can't tell, so that sentence matches no dialogue.
 */
export function groundedRetrievalText(caption: GroundedCaption): string {
  return caption.confident ? caption.text : '';
}
