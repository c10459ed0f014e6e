/**
 * The dialog grammar's wording: our own caption and question templates under the labels of the original
 * CLEVR-Dialog generator (Kottur et al. 2019, sec. 3; github.com/satwikkottur/clevr-dialog, BSD-3). Data
 * only; `dialogGrammar.ts` fills the slots and checks each template's constraints against the scene graph
 * and the dialog state. The wording is ours; the labels, and so the rules behind them, are the original's.
 *
 * Slots: {d} an object description (singular, with its article: "a red cube"), {dd} the same without
 * the article, {D} a plural description ("red cubes"), {n} a count in words, {A} an attribute name,
 * {V} an attribute value, {R} a relation to a named thing ("to the left of"), {P} a relation to "it"
 * ("to its left"), {E} an earlier object ("the earlier red thing"), {X} a place in the picture ("at the far left"),
 * {Xa} the same as an adjective ("leftmost"), {I} the picture ("picture", "scene", ...), {T} a plain noun for
 * an object ("thing", "object", "item"), {Ts} its plural, {Ta} with its article ("an object").
 *
 * Each template and each slot has several phrasings, drawn per question by the seeded generator (issue 41):
 * the models learn what a question asks, not one sentence. The original's words (its synonyms.json and
 * templates) are used only as a coverage check of these (`bench -- clevr --data` reports the share of its
 * question words the models never saw); none of its sentences is copied.
 */
import { ATTRIBUTE_VALUES } from './scene';

/** The original's caption labels (templates/captions/*.json). */
export type ExtremePlace = 'left' | 'right' | 'front' | 'behind' | 'center';
export type CaptionLabel = 'unique-obj' | 'count-att' | 'count-att-no' | 'obj-relation' | `extreme-${ExtremePlace}`;

const EXTREME_TEXTS = [
  'There is {d} {X} of the {I}.',
  '{D0} sits {X} of the {I}.',
  'The {I} has {d} {X}.',
  'The {Xa} thing in the {I} is {d}.',
  '{D0} stands {X}.',
];

export const CAPTION_TEMPLATES: { readonly [L in CaptionLabel]: readonly string[] } = {
  'unique-obj': [
    'There is exactly one {dd} in the {I}.',
    'The {I} has only one {dd}.',
    'There is a single {dd} in the {I}.',
    'Only one {dd} is present.',
    'The {I} holds just one {dd}.',
  ],
  'count-att': ['There are {n} {D} in the {I}.', 'The {I} has {n} {D}.', 'I can see {n} {D} in the {I}.', 'The {I} contains {n} {D}.', '{n} {D} are present.'],
  'count-att-no': [
    'There are several {D} in the {I}.',
    'The {I} has more than one {dd}.',
    'I can see a number of {D} in the {I}.',
    'There are multiple {D}.',
    'Many {D} are in the {I}.',
    'A lot of {D} are present.',
  ],
  'obj-relation': [
    'There is {d} {R} {d2}.',
    'A {dd} sits {R} {d2}.',
    'The {I} shows {d} {R} {d2}.',
    '{d} stands {R} {d2}.',
    'You can see {d} {R} {d2}.',
    '{d} is sitting {R} {d2}.',
  ],
  'extreme-left': EXTREME_TEXTS,
  'extreme-right': EXTREME_TEXTS,
  'extreme-front': EXTREME_TEXTS,
  'extreme-behind': EXTREME_TEXTS,
  'extreme-center': EXTREME_TEXTS,
};
/** Where an extreme caption's object is ({X}), and the same as one word before "thing" ({Xa}). */
export const EXTREME_PLACES: { readonly [P in ExtremePlace]: readonly string[] } = {
  left: ['at the far left', 'on the far left', 'at the left edge'],
  right: ['at the far right', 'on the far right', 'at the right edge'],
  front: ['at the very front', 'closest to the camera', 'nearest to us'],
  behind: ['at the very back', 'farthest from the camera', 'furthest away'],
  center: ['in the middle', 'in the center', 'at the center'],
};
export const EXTREME_ADJECTIVES: { readonly [P in ExtremePlace]: readonly string[] } = {
  left: ['leftmost'],
  right: ['rightmost'],
  front: ['frontmost', 'nearest'],
  behind: ['rearmost', 'farthest'],
  center: ['most central', 'middle'],
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
    texts: [
      'How many {Ts} are in the {I}?',
      'How many {Ts} are there in total?',
      'What is the number of {Ts} in the {I}?',
      'How many {Ts} can you see?',
      'How many {Ts} does the {I} contain?',
      'How many {Ts} are there?',
      'How many {Ts} are present in the {I}?',
      'How many {Ts} do you see?',
      'How many {Ts} are there in all?',
      'What is the total number of {Ts}?',
      'In total, how many {Ts} does the {I} show?',
      'Can you count all the {Ts}?',
      'Count every {T} in the {I}: how many are there?',
      'Altogether, how many {Ts} are present?',
      'Give me a count of all the {Ts}.',
      'Count the {Ts} in the {I} for me.',
    ],
  },
  'count-other': {
    family: 'count',
    history: 'all',
    texts: [
      'How many other {Ts} are there?',
      'Apart from those, how many {Ts} are in the {I}?',
      'How many {Ts} have not been mentioned yet?',
      'Besides the ones we talked about, how many {Ts} are there?',
      'Not counting those mentioned, how many {Ts} are left?',
      'Except for the {Ts} mentioned so far, how many are there?',
      'What is the number of {Ts} not yet mentioned?',
      'Give me a count of the other {Ts}.',
      'How many {Ts} are not mentioned so far?',
    ],
  },
  'count-all-group': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many of them are there?',
      'How many are in that group?',
      'What is their number?',
      'How many such things are present?',
      'How many of those are in the {I}?',
      'Can you count them?',
    ],
  },
  'count-attribute': {
    family: 'count',
    history: 'none',
    texts: [
      'How many {D} are there?',
      'How many {D} are in the {I}?',
      'What is the number of {D} in the {I}?',
      'How many {D} can you see?',
      'How many {D} are present?',
      'If there are any {D}, how many?',
      'Count the {D} in the {I}, how many are there?',
      'Give me a count of the {D}.',
      'How many {D}, if there are any?',
      'Assuming there are {D}, how many are there?',
    ],
  },
  'count-attribute-group': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many of them are {V}?',
      'Among them, how many are {V}?',
      'How many of those are {V}?',
      'Of these, how many are {V}?',
      'How many in that group are {V}?',
    ],
  },
  'count-obj-rel-imm': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many {Ts} are {P}?',
      'How many {Ts} are there {P}?',
      'What is the number of {Ts} {P}?',
      'How many {Ts} sit {P}?',
      'If there are {Ts} {P}, how many?',
      'How many {Ts} are present {P}?',
      'Can you count the {Ts} {P}?',
      'Give me a count of the {Ts} {P}.',
      'Counting the {Ts} {P}, how many are there?',
    ],
  },
  'count-obj-rel-imm2': {
    family: 'count',
    history: 'coref',
    texts: ['And {P}?', 'What about {P}?', 'How about {P}?', 'And how many {P}?', 'What about the ones {P}?'],
  },
  'count-obj-rel-early': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many {Ts} are {R} {E}?',
      'How many {Ts} are there {R} {E}?',
      'What is the number of {Ts} {R} {E}?',
      'How many {Ts} sit {R} {E}?',
      'How many {Ts}, if any, are {R} {E}?',
      'For {E}, how many {Ts} are {P}?',
      'Looking from {E}, how many {Ts} lie {P}?',
      'Can you count the {Ts} {R} {E}?',
      'Give me a count of the {Ts} {R} {E}.',
      'Around {E}, how many {Ts} are {P}?',
      'How many {Ts} lie {R} {E}, if any?',
    ],
  },
  'count-obj-exclude-imm': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many other {Ts} share its {A}?',
      'How many other {Ts} have the same {A} as it?',
      'What number of other {Ts} have its {A}?',
      'How many {Ts} besides it are of the same {A}?',
      'Except for it, how many {Ts} have that {A}?',
      'How many {Ts} other than this one share its {A}?',
      'How many other {Ts} are similar in {A}?',
      'Not counting the {T} itself, how many share its {A}?',
      'Give me a count of the other {Ts} with its {A}.',
    ],
  },
  'count-obj-exclude-early': {
    family: 'count',
    history: 'coref',
    texts: [
      'How many other {Ts} share the {A} of {E}?',
      'How many other {Ts} have the same {A} as {E}?',
      'Besides {E}, how many {Ts} have its {A}?',
      'Except for {E}, how many {Ts} are of the same {A}?',
      'What is the number of other {Ts} whose {A} matches {E}?',
      'How many {Ts} match {E} in {A}, not counting it?',
      'Apart from {E}, how many {Ts} in the {I} have its {A}?',
      'Give me a count of the other {Ts} with the {A} of {E}.',
    ],
  },
  'exist-other': {
    family: 'exist',
    history: 'all',
    texts: [
      'Are there any other {Ts}?',
      'Is there anything else in the {I}?',
      'Are there {Ts} that have not been mentioned?',
      'Besides those, is anything else present?',
      'Are there more {Ts} than the ones mentioned?',
      'Does the {I} hold any other {Ts}?',
      'Is there any {T} we have not talked about?',
    ],
  },
  'exist-attribute': {
    family: 'exist',
    history: 'none',
    texts: [
      'Is there {d}?',
      'Does the {I} have {d}?',
      'Are there any {D}?',
      'Is there {d} in the {I}?',
      'Can you see any {D}?',
      'Are any {D} present?',
      'Does the {I} contain {d}?',
    ],
  },
  'exist-attribute-group': {
    family: 'exist',
    history: 'coref',
    texts: ['Are any of them {V}?', 'Is any of them {V}?', 'Among them, is anything {V}?', 'Is one of those {V}?', 'Of these, are any {V}?'],
  },
  'exist-obj-rel-imm': {
    family: 'exist',
    history: 'coref',
    texts: [
      'Is there anything {P}?',
      'Is there {Ta} {P}?',
      'Are there any {Ts} {P}?',
      'Is anything present {P}?',
      'Does any {T} sit {P}?',
      'Can you see anything {P}?',
      'Does it have anything {P}?',
      'Does it have any {Ts} {P}?',
    ],
  },
  'exist-obj-rel-imm2': { family: 'exist', history: 'coref', texts: ['And {P}?', 'What about {P}?', 'How about {P}?', 'And anything {P}?'] },
  'exist-obj-rel-early': {
    family: 'exist',
    history: 'coref',
    texts: [
      'Is there anything {R} {E}?',
      'Is there {Ta} {R} {E}?',
      'Are there any {Ts} {R} {E}?',
      'Does anything sit {R} {E}?',
      'Can you see {Ta} {R} {E}?',
      'Does {E} have anything {P}?',
      'For {E}, are there any {Ts} {P}?',
    ],
  },
  'exist-obj-exclude-imm': {
    family: 'exist',
    history: 'coref',
    texts: [
      'Is there another {T} with its {A}?',
      'Does any other {T} share its {A}?',
      'Is anything else of the same {A} as it?',
      'Besides this one, does anything have that {A}?',
      'Is there any other {T} sharing its {A}?',
      'Does the {I} show any other {T} with its {A}?',
    ],
  },
  'exist-obj-exclude-early': {
    family: 'exist',
    history: 'coref',
    texts: [
      'Does any other {T} share the {A} of {E}?',
      'Is there another {T} with the same {A} as {E}?',
      'Except for {E}, is anything of its {A}?',
      'Apart from {E}, does any {T} have the same {A}?',
      'Are there other {Ts} whose {A} matches {E}?',
      'Is the {A} of {E} shared by any other {T}?',
      'Does the {I} show any other {T} with the {A} of {E}?',
    ],
  },
  'seek-attr-imm': {
    family: 'seek',
    history: 'coref',
    texts: [
      'What is its {A}?',
      'What {A} is it?',
      'Which {A} does it have?',
      'What is the {A} of this one?',
      'What {A} does this thing have?',
      'Can you tell me its {A}?',
      'Tell me the {A} of this {T}.',
      'What is the {A} of this {T}?',
    ],
  },
  'seek-attr-imm2': {
    family: 'seek',
    history: 'coref',
    texts: ['And its {A}?', 'What about its {A}?', 'How about its {A}?', 'And what {A} is it?', 'And the {A}?', 'What about the {A}?', 'And what is the {A}?'],
  },
  'seek-attr-early': {
    family: 'seek',
    history: 'coref',
    texts: ['What is the {A} of {E}?', 'What {A} is {E}?', 'Which {A} does {E} have?', 'What {A} does {E} have?', 'Can you tell me the {A} of {E}?'],
  },
  /** The attribute the previous round asked, now of an earlier object. */
  'seek-attr-sim-early': {
    family: 'seek',
    history: 'coref',
    texts: ['And {E}?', 'What about {E}?', 'How about {E}?', 'And for {E}?', 'What about {E} then?', 'And what of {E}?', 'The same for {E}?'],
  },
  /** The nearest object in that direction; "none" when there is nothing there. */
  'seek-attr-rel-imm': {
    family: 'seek',
    history: 'coref',
    texts: [
      'What is the {A} of the nearest {T} {P}?',
      'What {A} is the closest {T} {P}?',
      'Which {A} does the nearest {T} {P} have?',
      'If there is something {P}, what {A} is the nearest one?',
      'What {A} is the nearest {T} {P}, if there is one?',
      'What is the {A} of the closest {T} {P}, if one is present?',
    ],
  },
  'seek-attr-rel-early': {
    family: 'seek',
    history: 'coref',
    texts: [
      'What is the {A} of the nearest {T} {R} {E}?',
      'What {A} is the closest {T} {R} {E}?',
      'If anything is {R} {E}, what {A} is the nearest one?',
      'Which {A} does the nearest {T} {R} {E} have, if there is one?',
      'For {E}, what {A} is the closest {T} {P}?',
    ],
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
  sphere: ['sphere', 'ball', 'round thing'],
  cylinder: ['cylinder'],
  rubber: ['rubber', 'matte'],
  metal: ['metal', 'metallic', 'shiny'],
  large: ['large', 'big'],
  small: ['small', 'tiny', 'little'],
};
export const PLURAL: { readonly [noun: string]: string } = {
  cube: 'cubes',
  block: 'blocks',
  sphere: 'spheres',
  ball: 'balls',
  'round thing': 'round things',
  cylinder: 'cylinders',
  thing: 'things',
  object: 'objects',
  item: 'items',
};
export const THING_WORDS = ['thing', 'object', 'item'] as const;
/** What the scene is called ({I}). */
export const PICTURE_WORDS = ['picture', 'image', 'scene', 'view'] as const;
/** How a question points back at an object mentioned before ({E} is one of these and a description). */
export const EARLIER_WORDS = ['the earlier', 'the previous', 'the aforementioned', 'the above', 'that', 'the previously mentioned'] as const;

/** The phrases for each direction, to a named thing ({R}) and to "it" ({P}); the first is the one messages quote. */
export const RELATION_TO_NAMED = {
  left: ['to the left of', 'left of', 'on the left side of'],
  right: ['to the right of', 'right of', 'on the right side of'],
  front: ['in front of', 'closer to the camera than'],
  behind: ['behind', 'farther back than', 'further away than'],
} as const;
export const RELATION_TO_IT = {
  left: ['to its left', 'on its left', 'to the left of it', 'left of it'],
  right: ['to its right', 'on its right', 'to the right of it', 'right of it'],
  front: ['in front of it', 'closer to the camera than it', 'at its front'],
  behind: ['behind it', 'at its back', 'farther back than it'],
} as const;

export const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'] as const;
