import { COCO_CLASSES, type CocoClass } from '../detection/cocoClasses';
import { type CaptionItem, tokenizeCaption } from './captionMetrics';

/**
 * Which of the 80 COCO classes a caption mentions, and the precision and recall of a candidate
 * caption's mentions against the human captions' (in the spirit of CHAIR, Rohrbach et al. 2018,
 * "Object Hallucination in Image Captioning", with a word table of our own).
 */

/**
 * The words for each class. `nouns` get their regular plural added (dog -> dogs, bus -> buses,
 * puppy -> puppies, multi-word names on the last word); `fixed` are used as written (irregular
 * plurals, mass nouns, words that are already plural).
 * Written from ordinary English usage, never tuned on evaluation data. Left out on purpose, as
 * they too often name something else: bare "light", "sign", "meter", "board", "bag", "glass",
 * "computer", "screen", "fan", "pitcher", "batter", "ski" (ski slope, ski lift), "baseball" and
 * "football" (the game), pronouns. Known ambiguities kept: "orange" (also a colour), "glove", "plant",
 * "table", "monitor", "keyboard", "mouse", "remote", "train" (train tracks).
 */
const CLASS_WORDS: Record<CocoClass, { nouns?: string[]; fixed?: string[] }> = {
  person: {
    nouns: [
      'person',
      'boy',
      'girl',
      'kid',
      'baby',
      'toddler',
      'player',
      'guy',
      'lady',
      'skier',
      'surfer',
      'skateboarder',
      'snowboarder',
      'rider',
      'biker',
      'cyclist',
      'bicyclist',
      'catcher',
      'umpire',
      'adult',
      'teenager',
      'teen',
      'friend',
      'chef',
      'officer',
      'soldier',
      'worker',
      'tourist',
      'pedestrian',
      'student',
      'athlete',
      'spectator',
      'passenger',
      'driver',
      'mother',
      'father',
      'mom',
      'dad',
      'son',
      'daughter',
      'brother',
      'sister',
      'grandmother',
      'grandfather',
      'bride',
      'cowboy',
      'crowd',
      'individual',
      'infant',
    ],
    fixed: [
      'people',
      'persons',
      'man',
      'men',
      'woman',
      'women',
      'child',
      'children',
      'gentleman',
      'gentlemen',
      'policeman',
      'policemen',
      'businessman',
      'businessmen',
      'fireman',
      'firemen',
      'someone',
      'somebody',
    ],
  },
  bicycle: { nouns: ['bicycle', 'bike', 'tricycle'] },
  car: { nouns: ['car', 'automobile', 'sedan', 'taxi', 'taxicab', 'suv', 'hatchback'] },
  motorcycle: { nouns: ['motorcycle', 'motorbike', 'motor bike', 'dirt bike', 'moped'] },
  airplane: { nouns: ['airplane', 'aeroplane', 'plane', 'jet', 'airliner', 'jetliner'], fixed: ['aircraft'] },
  bus: { nouns: ['bus'], fixed: ['busses'] },
  train: { nouns: ['train', 'locomotive'] },
  truck: { nouns: ['truck', 'lorry', 'firetruck'] },
  boat: { nouns: ['boat', 'ship', 'sailboat', 'canoe', 'kayak', 'yacht', 'ferry'] },
  'traffic light': { nouns: ['traffic light', 'traffic signal', 'stop light', 'stoplight'] },
  'fire hydrant': { nouns: ['fire hydrant', 'hydrant', 'fireplug'] },
  'stop sign': { nouns: ['stop sign', 'stopsign'] },
  'parking meter': { nouns: ['parking meter'] },
  bench: { nouns: ['bench'] },
  bird: {
    nouns: ['bird', 'pigeon', 'seagull', 'gull', 'duck', 'parrot', 'swan', 'owl', 'eagle', 'hawk', 'sparrow', 'penguin', 'crow'],
    fixed: ['goose', 'geese'],
  },
  cat: { nouns: ['cat', 'kitten', 'kitty'] },
  dog: { nouns: ['dog', 'puppy', 'pup', 'doggy'] },
  horse: { nouns: ['horse', 'pony', 'foal'] },
  sheep: { nouns: ['lamb'], fixed: ['sheep'] },
  cow: { nouns: ['cow', 'bull'], fixed: ['cattle', 'calf', 'calves', 'ox', 'oxen'] },
  elephant: { nouns: ['elephant'] },
  bear: { nouns: ['bear'] },
  zebra: { nouns: ['zebra'] },
  giraffe: { nouns: ['giraffe'] },
  backpack: { nouns: ['backpack', 'knapsack', 'rucksack'] },
  umbrella: { nouns: ['umbrella', 'parasol'] },
  handbag: { nouns: ['handbag', 'hand bag', 'purse'] },
  tie: { nouns: ['tie', 'necktie'] },
  suitcase: { nouns: ['suitcase'], fixed: ['luggage'] },
  frisbee: { nouns: ['frisbee', 'flying disc'] },
  skis: { fixed: ['skis'] },
  snowboard: { nouns: ['snowboard', 'snow board'] },
  'sports ball': { nouns: ['sports ball', 'ball', 'soccer ball', 'tennis ball'] },
  kite: { nouns: ['kite'] },
  'baseball bat': { nouns: ['baseball bat', 'bat'] },
  'baseball glove': { nouns: ['baseball glove', 'glove', 'mitt', 'baseball mitt'] },
  skateboard: { nouns: ['skateboard', 'skate board'] },
  surfboard: { nouns: ['surfboard', 'surf board'] },
  'tennis racket': { nouns: ['tennis racket', 'racket', 'racquet', 'tennis racquet'] },
  bottle: { nouns: ['bottle'] },
  'wine glass': { nouns: ['wine glass', 'wineglass'] },
  cup: { nouns: ['cup', 'mug', 'teacup'] },
  fork: { nouns: ['fork'] },
  knife: { fixed: ['knife', 'knives'] },
  spoon: { nouns: ['spoon'] },
  bowl: { nouns: ['bowl'] },
  banana: { nouns: ['banana'] },
  apple: { nouns: ['apple'] },
  sandwich: { nouns: ['sandwich', 'burger', 'hamburger', 'sub sandwich'] },
  orange: { nouns: ['orange'] },
  broccoli: { fixed: ['broccoli'] },
  carrot: { nouns: ['carrot'] },
  'hot dog': { nouns: ['hot dog', 'hotdog', 'hot-dog'] },
  pizza: { nouns: ['pizza'] },
  donut: { nouns: ['donut', 'doughnut'] },
  cake: { nouns: ['cake', 'cupcake', 'cheesecake'] },
  chair: { nouns: ['chair', 'armchair', 'high chair'] },
  couch: { nouns: ['couch', 'sofa', 'loveseat', 'love seat'] },
  'potted plant': { nouns: ['potted plant', 'plant', 'houseplant', 'house plant'] },
  bed: { nouns: ['bed'] },
  'dining table': { nouns: ['dining table', 'table'] },
  toilet: { nouns: ['toilet', 'toilet bowl', 'toilet seat'] },
  tv: { nouns: ['tv', 'television', 'tv set', 'monitor'] },
  laptop: { nouns: ['laptop'] },
  mouse: { fixed: ['mouse', 'mice'] },
  remote: { nouns: ['remote', 'remote control', 'controller'] },
  keyboard: { nouns: ['keyboard'] },
  'cell phone': { nouns: ['cell phone', 'phone', 'cellphone', 'mobile phone', 'smartphone', 'cellular phone', 'iphone'] },
  microwave: { nouns: ['microwave', 'microwave oven'] },
  oven: { nouns: ['oven', 'stove'] },
  toaster: { nouns: ['toaster', 'toaster oven'] },
  sink: { nouns: ['sink'] },
  refrigerator: { nouns: ['refrigerator', 'fridge'] },
  book: { nouns: ['book'] },
  clock: { nouns: ['clock', 'clock tower'] },
  vase: { nouns: ['vase'] },
  scissors: { fixed: ['scissors', 'scissor'] },
  'teddy bear': { nouns: ['teddy bear', 'teddy', 'stuffed bear', 'stuffed animal'] },
  'hair drier': { nouns: ['hair drier', 'hair dryer', 'hairdryer', 'blow dryer', 'blow drier', 'blowdryer'] },
  toothbrush: { nouns: ['toothbrush', 'tooth brush'] },
};

/** The regular English plural: -es after s, x, z, ch, sh; consonant + y -> -ies; else -s. */
export function regularPlural(noun: string): string {
  if (/(?:s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** Every phrase (as tokens) that mentions a class, longest first within each first token. */
const PHRASES_BY_FIRST_TOKEN: ReadonlyMap<string, readonly { tokens: string[]; cocoClass: CocoClass }[]> = (() => {
  const byFirst = new Map<string, { tokens: string[]; cocoClass: CocoClass }[]>();
  const add = (phrase: string, cocoClass: CocoClass) => {
    const tokens = tokenizeCaption(phrase);
    const list = byFirst.get(tokens[0]!) ?? [];
    const duplicate = list.find((p) => p.tokens.join(' ') === tokens.join(' '));
    if (duplicate && duplicate.cocoClass !== cocoClass) throw new Error(`"${phrase}" is listed for both ${duplicate.cocoClass} and ${cocoClass}`);
    if (!duplicate) list.push({ tokens, cocoClass });
    byFirst.set(tokens[0]!, list);
  };
  for (const cocoClass of COCO_CLASSES) {
    const { nouns = [], fixed = [] } = CLASS_WORDS[cocoClass];
    add(cocoClass, cocoClass);
    for (const noun of nouns) {
      add(noun, cocoClass);
      const words = noun.split(' ');
      add([...words.slice(0, -1), regularPlural(words[words.length - 1]!)].join(' '), cocoClass);
    }
    for (const word of fixed) add(word, cocoClass);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return byFirst;
})();

/**
 * The COCO classes a caption mentions. Tokens are `tokenizeCaption`'s, so "dog's" and "dogs," both
 * count as dog. Scanning left to right, the longest phrase starting at a token wins and consumes
 * its tokens, so "hot dog" is only hot dog and "teddy bear" only teddy bear. Hyphenated words stay
 * one token: "dog-shaped" mentions nothing.
 */
export function mentionedClasses(caption: string): Set<CocoClass> {
  const tokens = tokenizeCaption(caption);
  const found = new Set<CocoClass>();
  let i = 0;
  while (i < tokens.length) {
    const phrase = PHRASES_BY_FIRST_TOKEN.get(tokens[i]!)?.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
    if (phrase) {
      found.add(phrase.cocoClass);
      i += phrase.tokens.length;
    } else i++;
  }
  return found;
}

interface ImageMentions {
  /** In COCO class order. */
  candidate: CocoClass[];
  references: CocoClass[];
  /** Classes in both. */
  matched: CocoClass[];
}

export interface ObjectMentionScores {
  /** matched / candidateMentions; 0 when the candidates mention no class. */
  precision: number;
  /** matched / referenceMentions; 0 when the references mention no class. */
  recall: number;
  /** Summed over images: classes the candidate mentions that some reference of its image mentions. */
  matched: number;
  /** Summed over images: classes each candidate mentions. */
  candidateMentions: number;
  /** Summed over images: classes each image's references mention (the union over its references). */
  referenceMentions: number;
  perImage: ImageMentions[];
}

const inClassOrder = (classes: Set<CocoClass>) => COCO_CLASSES.filter((c) => classes.has(c));

/**
 * Object-mention precision and recall of candidate captions against human captions, micro-averaged
 * over images. An image's reference set is the union of the classes any of its references mentions,
 * so a candidate mention counts as right when any one annotator named the object. Each class
 * counts once per caption, however often it is named.
 */
export function objectMentionScores(items: readonly CaptionItem[]): ObjectMentionScores {
  let matched = 0,
    candidateMentions = 0,
    referenceMentions = 0;
  const perImage = items.map(({ candidate, references }) => {
    const inCandidate = mentionedClasses(candidate);
    const inReferences = new Set(references.flatMap((r) => [...mentionedClasses(r)]));
    const both = new Set([...inCandidate].filter((c) => inReferences.has(c)));
    matched += both.size;
    candidateMentions += inCandidate.size;
    referenceMentions += inReferences.size;
    return { candidate: inClassOrder(inCandidate), references: inClassOrder(inReferences), matched: inClassOrder(both) };
  });
  return {
    precision: candidateMentions ? matched / candidateMentions : 0,
    recall: referenceMentions ? matched / referenceMentions : 0,
    matched,
    candidateMentions,
    referenceMentions,
    perImage,
  };
}
