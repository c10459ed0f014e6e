/**
 * The dialog grammar's wording: our own caption and question templates under the labels of the original
 * CLEVR-Dialog generator (Kottur et al. 2019, sec. 3; github.com/satwikkottur/clevr-dialog, BSD-3). Data
 * only; `dialogGrammar.ts` fills the slots and checks each template's constraints against the scene graph
 * and the dialog state. The wording is ours; the labels, and so the rules behind them, are the original's.
 *
 * Slots: {d} an object description (singular, with its article: "a red cube"), {dd} the same without
 * the article, {D} a plural description ("red cubes"), {n} a count in words, {A} an attribute name,
 * {V} an attribute value, {R} a relation to a named thing ("to the left of"), {P} a relation to "it"
 * ("to its left"), {E} an earlier object ("the earlier red thing"), {X} a place in the picture ("at the far left").
 */
import { ATTRIBUTE_VALUES } from './scene';

/** The original's caption labels (templates/captions/*.json). */
export type ExtremePlace = 'left' | 'right' | 'front' | 'behind' | 'center';
export type CaptionLabel = 'unique-obj' | 'count-att' | 'count-att-no' | 'obj-relation' | `extreme-${ExtremePlace}`;

const EXTREME_TEXTS = ['There is {d} {X} of the picture.', '{D0} sits {X} of the image.', 'The picture has {d} {X}.'];

export const CAPTION_TEMPLATES: { readonly [L in CaptionLabel]: readonly string[] } = {
  'unique-obj': ['There is exactly one {dd} in the picture.', 'The picture has only one {dd}.', 'There is a single {dd} in the image.'],
  'count-att': ['There are {n} {D} in the picture.', 'The image has {n} {D}.', 'I can see {n} {D} in the image.'],
  'count-att-no': ['There are several {D} in the picture.', 'The image has more than one {dd}.', 'I can see a number of {D} in the image.'],
  'obj-relation': ['There is {d} {R} {d2}.', 'A {dd} sits {R} {d2}.', 'The picture shows {d} {R} {d2}.'],
  'extreme-left': EXTREME_TEXTS,
  'extreme-right': EXTREME_TEXTS,
  'extreme-front': EXTREME_TEXTS,
  'extreme-behind': EXTREME_TEXTS,
  'extreme-center': EXTREME_TEXTS,
};
export const EXTREME_PLACES: { readonly [P in ExtremePlace]: string } = {
  left: 'at the far left',
  right: 'at the far right',
  front: 'at the very front',
  behind: 'at the very back',
  center: 'in the middle',
};

export type QuestionFamily = 'count' | 'exist' | 'seek';
/** How a question depends on the dialog so far (paper Fig. 5): not at all, on one earlier mention, or on all of it. */
export type HistoryDependence = 'none' | 'coref' | 'all';

/** The original's 24 question labels (templates/questions/*.json). */
export type QuestionLabel =
  | 'count-all'
  | 'count-other'
  | 'count-all-group'
  | 'count-attribute'
  | 'count-attribute-group'
  | 'count-obj-rel-imm'
  | 'count-obj-rel-imm2'
  | 'count-obj-rel-early'
  | 'count-obj-exclude-imm'
  | 'count-obj-exclude-early'
  | 'exist-other'
  | 'exist-attribute'
  | 'exist-attribute-group'
  | 'exist-obj-rel-imm'
  | 'exist-obj-rel-imm2'
  | 'exist-obj-rel-early'
  | 'exist-obj-exclude-imm'
  | 'exist-obj-exclude-early'
  | 'seek-attr-imm'
  | 'seek-attr-imm2'
  | 'seek-attr-early'
  | 'seek-attr-sim-early'
  | 'seek-attr-rel-imm'
  | 'seek-attr-rel-early';

export interface QuestionTemplate {
  readonly family: QuestionFamily;
  readonly history: HistoryDependence;
  readonly texts: readonly string[];
}

export const QUESTION_TEMPLATES: { readonly [L in QuestionLabel]: QuestionTemplate } = {
  'count-all': {
    family: 'count',
    history: 'none',
    texts: ['How many objects are in the picture?', 'How many things are there in total?', 'What is the number of objects in the image?'],
  },
  'count-other': {
    family: 'count',
    history: 'all',
    texts: ['How many other objects are there?', 'Apart from those, how many things are in the picture?', 'How many objects have not been mentioned yet?'],
  },
  'count-all-group': {
    family: 'count',
    history: 'coref',
    texts: ['How many of them are there?', 'How many are in that group?', 'What is their number?'],
  },
  'count-attribute': {
    family: 'count',
    history: 'none',
    texts: ['How many {D} are there?', 'How many {D} are in the picture?', 'What is the number of {D} in the image?'],
  },
  'count-attribute-group': {
    family: 'count',
    history: 'coref',
    texts: ['How many of them are {V}?', 'Among them, how many are {V}?', 'How many of those are {V}?'],
  },
  'count-obj-rel-imm': {
    family: 'count',
    history: 'coref',
    texts: ['How many objects are {P}?', 'How many things are there {P}?', 'What is the number of things {P}?'],
  },
  'count-obj-rel-imm2': { family: 'count', history: 'coref', texts: ['And {P}?', 'What about {P}?', 'How about {P}?'] },
  'count-obj-rel-early': { family: 'count', history: 'coref', texts: ['How many objects are {R} {E}?', 'How many things are there {R} {E}?'] },
  'count-obj-exclude-imm': {
    family: 'count',
    history: 'coref',
    texts: ['How many other objects share its {A}?', 'How many other things have the same {A} as it?', 'What number of other objects have its {A}?'],
  },
  'count-obj-exclude-early': {
    family: 'count',
    history: 'coref',
    texts: ['How many other objects share the {A} of {E}?', 'How many other things have the same {A} as {E}?'],
  },
  'exist-other': {
    family: 'exist',
    history: 'all',
    texts: ['Are there any other objects?', 'Is there anything else in the picture?', 'Are there objects that have not been mentioned?'],
  },
  'exist-attribute': { family: 'exist', history: 'none', texts: ['Is there {d}?', 'Does the picture have {d}?', 'Are there any {D}?'] },
  'exist-attribute-group': { family: 'exist', history: 'coref', texts: ['Are any of them {V}?', 'Is any of them {V}?', 'Among them, is anything {V}?'] },
  'exist-obj-rel-imm': { family: 'exist', history: 'coref', texts: ['Is there anything {P}?', 'Is there an object {P}?', 'Are there any things {P}?'] },
  'exist-obj-rel-imm2': { family: 'exist', history: 'coref', texts: ['And {P}?', 'What about {P}?', 'How about {P}?'] },
  'exist-obj-rel-early': { family: 'exist', history: 'coref', texts: ['Is there anything {R} {E}?', 'Is there an object {R} {E}?'] },
  'exist-obj-exclude-imm': {
    family: 'exist',
    history: 'coref',
    texts: ['Is there another object with its {A}?', 'Does any other thing share its {A}?', 'Is anything else of the same {A} as it?'],
  },
  'exist-obj-exclude-early': {
    family: 'exist',
    history: 'coref',
    texts: ['Does any other object share the {A} of {E}?', 'Is there another thing with the same {A} as {E}?'],
  },
  'seek-attr-imm': { family: 'seek', history: 'coref', texts: ['What is its {A}?', 'What {A} is it?', 'Which {A} does it have?'] },
  'seek-attr-imm2': { family: 'seek', history: 'coref', texts: ['And its {A}?', 'What about its {A}?', 'How about its {A}?'] },
  'seek-attr-early': { family: 'seek', history: 'coref', texts: ['What is the {A} of {E}?', 'What {A} is {E}?', 'Which {A} does {E} have?'] },
  /** The attribute the previous round asked, now of an earlier object. */
  'seek-attr-sim-early': { family: 'seek', history: 'coref', texts: ['And {E}?', 'What about {E}?', 'How about {E}?'] },
  /** The nearest object in that direction; "none" when there is nothing there. */
  'seek-attr-rel-imm': {
    family: 'seek',
    history: 'coref',
    texts: ['What is the {A} of the nearest object {P}?', 'What {A} is the closest thing {P}?', 'Which {A} does the nearest thing {P} have?'],
  },
  'seek-attr-rel-early': {
    family: 'seek',
    history: 'coref',
    texts: ['What is the {A} of the nearest object {R} {E}?', 'What {A} is the closest thing {R} {E}?'],
  },
};

export const QUESTION_LABELS = Object.keys(QUESTION_TEMPLATES) as QuestionLabel[];
export const CAPTION_LABELS = Object.keys(CAPTION_TEMPLATES) as CaptionLabel[];
/** The questions that do not depend on the dialog (the original's metainfo "independent_questions"). */
export const INDEPENDENT_QUESTIONS: readonly QuestionLabel[] = ['count-all', 'count-other', 'count-attribute', 'exist-other', 'exist-attribute'];

/** What a "what is the X of the nearest thing to its left?" answers when nothing is there. */
export const ANSWER_NONE = 'none';
/** Every answer the grammar can give, in a fixed order: counts 0 to 10, yes and no, the attribute values, "none" (29, as the paper's Table 1). */
export const GRAMMAR_ANSWERS: readonly string[] = [
  ...Array.from({ length: 11 }, (_, n) => String(n)),
  'yes',
  'no',
  ...ATTRIBUTE_VALUES.shape,
  ...ATTRIBUTE_VALUES.color,
  ...ATTRIBUTE_VALUES.material,
  ...ATTRIBUTE_VALUES.size,
  ANSWER_NONE,
];

/** Words for attribute values; the first is the canonical one, the answers use it. */
export const VALUE_WORDS: { readonly [value: string]: readonly string[] } = {
  cube: ['cube', 'block'],
  sphere: ['sphere', 'ball'],
  cylinder: ['cylinder'],
  rubber: ['rubber', 'matte'],
  metal: ['metal', 'metallic', 'shiny'],
};
export const PLURAL: { readonly [noun: string]: string } = {
  cube: 'cubes',
  block: 'blocks',
  sphere: 'spheres',
  ball: 'balls',
  cylinder: 'cylinders',
  thing: 'things',
  object: 'objects',
};
export const THING_WORDS = ['thing', 'object'] as const;

export const RELATION_TO_NAMED = { left: 'to the left of', right: 'to the right of', front: 'in front of', behind: 'behind' } as const;
export const RELATION_TO_IT = { left: 'to its left', right: 'to its right', front: 'in front of it', behind: 'behind it' } as const;

export const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'] as const;
