/**
 * CLEVR-Dialog's dialog grammar (Kottur et al. 2019, sec. 3): a caption, then rounds of questions whose
 * answers come from the scene graph, with a dialog state that records what has been said so later
 * questions can refer back ("what colour is it?", "the earlier red cube"). Every question records its
 * template, its answer, the objects it refers to and its coreference distance: how many rounds back its
 * referent was last mentioned (the caption is round 0).
 */
import { randomPick, shuffled } from '../random';
import { ATTRIBUTE_NAMES, ATTRIBUTE_VALUES, type AttributeName, RELATIONS, type Relation, type Scene, type SceneObject } from './scene';
import {
  CAPTION_TEMPLATES,
  type CaptionLabel,
  EXTREME_PLACES,
  NUMBER_WORDS,
  PLURAL,
  QUESTION_TEMPLATES,
  type QuestionLabel,
  RELATION_TO_IT,
  RELATION_TO_NAMED,
  THING_WORDS,
  VALUE_WORDS,
} from './templates';

export type Description = Partial<Record<AttributeName, string>>;

export interface MentionedObject {
  readonly known: Description;
  readonly lastRound: number;
}

export interface GroupMention {
  readonly members: readonly number[];
  readonly shared: Description;
  readonly round: number;
}

/** What the dialog has said so far. Immutable: each round makes a new state, so a beam can branch. */
export interface DialogState {
  readonly round: number;
  readonly mentioned: ReadonlyMap<number, MentionedObject>;
  /** The object "it" refers to. */
  readonly focus: number | null;
  readonly group: GroupMention | null;
  readonly asked: readonly string[];
  readonly lastLabel: QuestionLabel | null;
  /** The relations already asked about the focus in a run of "and to its right?" questions. */
  readonly chainRelations: readonly Relation[];
}

/** One template filled in: what it asks, whom it refers to and what it reveals. */
export interface QuestionPlan {
  readonly label: QuestionLabel;
  readonly attribute?: AttributeName;
  readonly value?: string;
  readonly relation?: Relation;
  readonly description?: Description;
  /** The earlier or focus object the question refers to. */
  readonly referent?: number;
  readonly usesGroup?: boolean;
}

export interface Round {
  readonly question: string;
  readonly answer: string;
  readonly template: QuestionLabel;
  /** Rounds back to the referent's last mention; null when the question refers to nothing earlier. */
  readonly coref_distance: number | null;
  /** Scene object indices the question refers to (the group's members for "them"). */
  readonly referents: readonly number[];
  /** Objects the answer is about (the ones counted, found or described). */
  readonly answer_objects: readonly number[];
}

export interface Caption {
  readonly text: string;
  readonly label: CaptionLabel;
  readonly objects: readonly number[];
}

// ---------------------------------------------------------------- scene queries

export function matches(object: SceneObject, description: Description): boolean {
  return ATTRIBUTE_NAMES.every((a) => description[a] === undefined || object[a] === description[a]);
}

export function selectObjects(scene: Scene, description: Description, exclude: ReadonlySet<number> = new Set()): number[] {
  return scene.objects.flatMap((o, i) => (!exclude.has(i) && matches(o, description) ? [i] : []));
}

/** The objects in direction r of object i. */
export function related(scene: Scene, i: number, relation: Relation): readonly number[] {
  return scene.relationships[relation][i] ?? [];
}

/** The one object with nothing beyond it in a direction (the leftmost has nothing to its left), if unique. */
export function extremeObject(scene: Scene, relation: Relation): number | null {
  const found = scene.objects.flatMap((_, i) => (related(scene, i, relation).length === 0 ? [i] : []));
  return found.length === 1 ? found[0]! : null;
}

// ---------------------------------------------------------------- wording

function article(phrase: string): string {
  return /^[aeiou]/.test(phrase) ? `an ${phrase}` : `a ${phrase}`;
}

function valueWord(value: string, random: () => number): string {
  const words = VALUE_WORDS[value];
  return words ? randomPick(random, words) : value;
}

/** "large red metal cube"; without a shape, "thing" or "object". */
export function describe(description: Description, random: () => number, plural = false): string {
  const words: string[] = [];
  for (const a of ['size', 'color', 'material'] as const) if (description[a]) words.push(valueWord(description[a]!, random));
  const noun = description.shape ? valueWord(description.shape, random) : randomPick(random, THING_WORDS);
  words.push(plural ? PLURAL[noun]! : noun);
  return words.join(' ');
}

function attributeWord(attribute: AttributeName): string {
  return attribute;
}

function fill(template: string, slots: Record<string, string>): string {
  const text = template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = slots[key];
    if (value === undefined) throw new Error(`template slot {${key}} has no value in "${template}"`);
    return value;
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------- state

export function emptyState(): DialogState {
  return { round: 0, mentioned: new Map(), focus: null, group: null, asked: [], lastLabel: null, chainRelations: [] };
}

function mention(mentioned: ReadonlyMap<number, MentionedObject>, index: number, round: number, known: Description = {}): Map<number, MentionedObject> {
  const out = new Map(mentioned);
  const before = out.get(index);
  out.set(index, { known: { ...(before?.known ?? {}), ...known }, lastRound: round });
  return out;
}

/** A description that picks exactly one object out of the scene, from 1 to 3 attributes, shape always. */
function uniqueDescription(scene: Scene, index: number, random: () => number): Description | null {
  const object = scene.objects[index]!;
  const options: AttributeName[][] = [
    ['shape'],
    ['color', 'shape'],
    ['size', 'shape'],
    ['material', 'shape'],
    ['size', 'color', 'shape'],
    ['color', 'material', 'shape'],
    ['size', 'color', 'material', 'shape'],
  ];
  // Shuffled, then stably sorted by length: a comparator that draws random numbers would draw a different
  // count in another engine's sort, and the page must make the same dialogs as Node.
  const order = shuffled(random, options).sort((a, b) => a.length - b.length);
  for (const attrs of order) {
    const description: Description = Object.fromEntries(attrs.map((a) => [a, object[a]]));
    if (selectObjects(scene, description).length === 1) return description;
  }
  return null;
}

/** How "the earlier …" names a mentioned object: its known attributes, unique among the mentioned ones. */
function earlierDescription(state: DialogState, scene: Scene, index: number): Description | null {
  const known = state.mentioned.get(index)?.known ?? {};
  if (Object.keys(known).length === 0) return null;
  const clashes = [...state.mentioned.keys()].filter((j) => j !== index && matches(scene.objects[j]!, known));
  return clashes.length === 0 ? known : null;
}

// ---------------------------------------------------------------- captions

/** Every caption the grammar can say about a scene, one per kind where the kind applies. */
export function captionOptions(scene: Scene, random: () => number): { caption: Caption; state: DialogState }[] {
  const out: { caption: Caption; state: DialogState }[] = [];
  const n = scene.objects.length;
  if (n === 0) return out;
  const pick = (label: CaptionLabel) => randomPick(random, CAPTION_TEMPLATES[label]);

  // Unique object: a description that fits one object only.
  const uniqueIndex = Math.floor(random() * n);
  const unique = uniqueDescription(scene, uniqueIndex, random);
  if (unique) {
    const text = fill(pick('unique-obj'), { dd: describe(unique, random) });
    out.push({
      caption: { text, label: 'unique-obj', objects: [uniqueIndex] },
      state: { ...emptyState(), mentioned: mention(new Map(), uniqueIndex, 0, unique), focus: uniqueIndex },
    });
  }

  // Multiple objects: a description that fits two or more.
  const groups: { description: Description; members: number[] }[] = [];
  for (const a of ATTRIBUTE_NAMES) {
    for (const v of ATTRIBUTE_VALUES[a]) {
      const members = selectObjects(scene, { [a]: v });
      if (members.length >= 2) groups.push({ description: { [a]: v }, members });
    }
  }
  if (groups.length > 0) {
    const g = randomPick(random, groups);
    const text = fill(pick('count-att'), { n: NUMBER_WORDS[g.members.length] ?? String(g.members.length), D: describe(g.description, random, true) });
    out.push({
      caption: { text, label: 'count-att', objects: g.members },
      state: { ...emptyState(), group: { members: g.members, shared: g.description, round: 0 } },
    });
  }

  // Object relation: two uniquely described objects and a relation between them.
  const pairs: { a: number; b: number; relation: Relation }[] = [];
  for (let a = 0; a < n; a++) for (const relation of RELATIONS) for (const b of related(scene, a, relation)) pairs.push({ a: b, b: a, relation });
  for (let tries = 0; tries < 6 && pairs.length > 0; tries++) {
    const { a, b, relation } = randomPick(random, pairs);
    const da = uniqueDescription(scene, a, random);
    const db = uniqueDescription(scene, b, random);
    if (!da || !db) continue;
    const dd = describe(da, random);
    const text = fill(pick('obj-relation'), { d: article(dd), dd, R: RELATION_TO_NAMED[relation], d2: article(describe(db, random)) });
    const mentioned = mention(mention(new Map(), b, 0, db), a, 0, da);
    out.push({ caption: { text, label: 'obj-relation', objects: [a, b] }, state: { ...emptyState(), mentioned, focus: a } });
    break;
  }

  // Extreme location: the leftmost, rightmost, closest or farthest object.
  const extremes = RELATIONS.flatMap((relation) => {
    const i = extremeObject(scene, relation);
    return i === null ? [] : [{ relation, i }];
  });
  if (extremes.length > 0) {
    const { relation, i } = randomPick(random, extremes);
    const attrs = randomPick(random, [
      ['color', 'shape'],
      ['size', 'shape'],
      ['material', 'shape'],
      ['size', 'color', 'shape'],
    ] as AttributeName[][]);
    const known: Description = Object.fromEntries(attrs.map((a) => [a, scene.objects[i]![a]]));
    const d = article(describe(known, random));
    const text = fill(pick(`extreme-${relation}`), { X: EXTREME_PLACES[relation], d, D0: d });
    out.push({
      caption: { text, label: `extreme-${relation}`, objects: [i] },
      state: { ...emptyState(), mentioned: mention(new Map(), i, 0, known), focus: i },
    });
  }
  return out;
}

// ---------------------------------------------------------------- questions

function randomDescription(random: () => number, attributes: 1 | 2): Description {
  const names = shuffled(random, ATTRIBUTE_NAMES).slice(0, attributes);
  return Object.fromEntries(names.map((a) => [a, randomPick(random, ATTRIBUTE_VALUES[a])]));
}

/** Applicable question plans for this state (the templates' constraints), a few instantiations each. */
export function questionOptions(scene: Scene, state: DialogState, random: () => number): QuestionPlan[] {
  const plans: QuestionPlan[] = [];
  const focus = state.focus;
  const earlier = [...state.mentioned.keys()].filter((i) => i !== focus && earlierDescription(state, scene, i) !== null);

  if (!state.asked.includes('count-all')) plans.push({ label: 'count-all' });
  if (state.mentioned.size > 0 || state.group) {
    plans.push({ label: 'count-other' });
    plans.push({ label: 'exist-other' });
  }
  for (let k = 0; k < 3; k++) {
    plans.push({ label: 'count-attribute', description: randomDescription(random, random() < 0.5 ? 1 : 2) });
    plans.push({ label: 'exist-attribute', description: randomDescription(random, random() < 0.5 ? 1 : 2) });
  }
  if (state.group && state.group.members.length >= 2) {
    const open = ATTRIBUTE_NAMES.filter((a) => state.group!.shared[a] === undefined);
    for (const a of open) {
      const present = state.group.members.map((m) => scene.objects[m]![a]);
      const value = random() < 0.6 ? randomPick(random, present) : randomPick(random, ATTRIBUTE_VALUES[a]);
      plans.push({ label: 'count-attribute-group', attribute: a, value, usesGroup: true });
      plans.push({ label: 'exist-attribute-group', attribute: a, value, usesGroup: true });
    }
  }
  if (focus !== null) {
    for (const relation of RELATIONS) {
      plans.push({ label: 'count-obj-rel-imm', referent: focus, relation });
      plans.push({ label: 'exist-obj-rel-imm', referent: focus, relation });
      if (related(scene, focus, relation).length === 1) {
        plans.push({ label: 'seek-attr-rel-imm', referent: focus, relation, attribute: randomPick(random, ATTRIBUTE_NAMES) });
      }
    }
    const inChain = (family: 'count' | 'exist') => state.lastLabel === `${family}-obj-rel-imm` || state.lastLabel === `${family}-obj-rel-imm2`;
    for (const family of ['count', 'exist'] as const) {
      if (!inChain(family)) continue;
      for (const relation of RELATIONS) {
        if (!state.chainRelations.includes(relation)) plans.push({ label: `${family}-obj-rel-imm2`, referent: focus, relation });
      }
    }
    for (const attribute of ATTRIBUTE_NAMES) {
      plans.push({ label: 'count-obj-exclude-imm', referent: focus, attribute });
      plans.push({ label: 'exist-obj-exclude-imm', referent: focus, attribute });
    }
    const unknown = ATTRIBUTE_NAMES.filter((a) => state.mentioned.get(focus)?.known[a] === undefined);
    const seekChain = state.lastLabel === 'seek-attr-imm' || state.lastLabel === 'seek-attr-imm2';
    for (const attribute of unknown) plans.push({ label: seekChain ? 'seek-attr-imm2' : 'seek-attr-imm', referent: focus, attribute });
  }
  for (const i of earlier) {
    const relation = randomPick(random, RELATIONS);
    plans.push({ label: 'count-obj-rel-early', referent: i, relation });
    plans.push({ label: 'exist-obj-rel-early', referent: i, relation: randomPick(random, RELATIONS) });
    const attribute = randomPick(random, ATTRIBUTE_NAMES);
    plans.push({ label: 'count-obj-exclude-early', referent: i, attribute });
    plans.push({ label: 'exist-obj-exclude-early', referent: i, attribute: randomPick(random, ATTRIBUTE_NAMES) });
    const unknown = ATTRIBUTE_NAMES.filter((a) => state.mentioned.get(i)?.known[a] === undefined);
    if (unknown.length > 0) plans.push({ label: 'seek-attr-early', referent: i, attribute: randomPick(random, unknown) });
    const uniqueRelations = RELATIONS.filter((r) => related(scene, i, r).length === 1);
    if (uniqueRelations.length > 0)
      plans.push({ label: 'seek-attr-rel-early', referent: i, relation: randomPick(random, uniqueRelations), attribute: randomPick(random, ATTRIBUTE_NAMES) });
  }
  // A question the dialog has already asked, word for word in plan, is not asked again.
  return plans.filter((p) => !state.asked.includes(planKey(p)));
}

export function planKey(plan: QuestionPlan): string {
  return [plan.label, plan.attribute ?? '', plan.value ?? '', plan.relation ?? '', plan.referent ?? '', JSON.stringify(plan.description ?? {})].join('|');
}

export interface AskResult {
  readonly round: Round;
  readonly state: DialogState;
}

function countAnswer(n: number): string {
  return String(n);
}
function yesNo(b: boolean): string {
  return b ? 'yes' : 'no';
}

/** Words the plan's question, answers it from the scene graph and moves the dialog state on. */
export function ask(scene: Scene, state: DialogState, plan: QuestionPlan, random: () => number): AskResult {
  const round = state.round + 1;
  const template = QUESTION_TEMPLATES[plan.label];
  const text = randomPick(random, template.texts);
  let mentioned = new Map(state.mentioned);
  let focus = state.focus;
  let group = state.group;
  let answer: string;
  let answerObjects: number[] = [];
  let referents: number[] = [];
  let corefDistance: number | null = null;
  const slots: Record<string, string> = {};
  const refer = (i: number) => {
    referents = [i];
    corefDistance = round - (state.mentioned.get(i)?.lastRound ?? round);
  };
  const earlierPhrase = (i: number) => `the earlier ${describe(earlierDescription(state, scene, i) ?? {}, random)}`;
  const everyMentioned = new Set<number>([...state.mentioned.keys(), ...(state.group?.members ?? [])]);

  switch (plan.label) {
    case 'count-all-group':
      answerObjects = [...(state.group?.members ?? [])];
      referents = answerObjects;
      corefDistance = round - (state.group?.round ?? round);
      answer = countAnswer(answerObjects.length);
      break;
    case 'count-all':
      answerObjects = scene.objects.map((_, i) => i);
      answer = countAnswer(answerObjects.length);
      break;
    case 'count-other':
    case 'exist-other':
      answerObjects = scene.objects.map((_, i) => i).filter((i) => !everyMentioned.has(i));
      referents = [...everyMentioned];
      answer = plan.label === 'count-other' ? countAnswer(answerObjects.length) : yesNo(answerObjects.length > 0);
      break;
    case 'count-attribute':
    case 'exist-attribute': {
      const description = plan.description ?? {};
      answerObjects = selectObjects(scene, description);
      slots.D = describe(description, random, true);
      slots.d = article(describe(description, random));
      answer = plan.label === 'count-attribute' ? countAnswer(answerObjects.length) : yesNo(answerObjects.length > 0);
      if (answerObjects.length >= 2) group = { members: answerObjects, shared: description, round };
      if (answerObjects.length === 1) {
        mentioned = mention(mentioned, answerObjects[0]!, round, description);
        focus = answerObjects[0]!;
      }
      break;
    }
    case 'count-attribute-group':
    case 'exist-attribute-group': {
      const g = state.group!;
      referents = [...g.members];
      corefDistance = round - g.round;
      answerObjects = g.members.filter((m) => scene.objects[m]![plan.attribute!] === plan.value);
      slots.V = plan.attribute === 'shape' ? article(valueWord(plan.value!, random)) : valueWord(plan.value!, random);
      answer = plan.label === 'count-attribute-group' ? countAnswer(answerObjects.length) : yesNo(answerObjects.length > 0);
      group = { ...g, round };
      if (answerObjects.length === 1) {
        mentioned = mention(mentioned, answerObjects[0]!, round, { ...g.shared, [plan.attribute!]: plan.value });
        focus = answerObjects[0]!;
      }
      break;
    }
    case 'count-obj-rel-imm':
    case 'count-obj-rel-imm2':
    case 'exist-obj-rel-imm':
    case 'exist-obj-rel-imm2':
    case 'count-obj-rel-early':
    case 'exist-obj-rel-early': {
      const i = plan.referent!;
      refer(i);
      answerObjects = [...related(scene, i, plan.relation!)];
      slots.P = RELATION_TO_IT[plan.relation!];
      slots.R = RELATION_TO_NAMED[plan.relation!];
      if (plan.label.endsWith('early')) slots.E = earlierPhrase(i);
      answer = plan.label.startsWith('count') ? countAnswer(answerObjects.length) : yesNo(answerObjects.length > 0);
      mentioned = mention(mentioned, i, round);
      focus = i;
      break;
    }
    case 'count-obj-exclude-imm':
    case 'exist-obj-exclude-imm':
    case 'count-obj-exclude-early':
    case 'exist-obj-exclude-early': {
      const i = plan.referent!;
      refer(i);
      const value = scene.objects[i]![plan.attribute!];
      answerObjects = selectObjects(scene, { [plan.attribute!]: value }, new Set([i]));
      slots.A = attributeWord(plan.attribute!);
      if (plan.label.endsWith('early')) slots.E = earlierPhrase(i);
      answer = plan.label.startsWith('count') ? countAnswer(answerObjects.length) : yesNo(answerObjects.length > 0);
      mentioned = mention(mentioned, i, round);
      focus = i;
      break;
    }
    case 'seek-attr-imm':
    case 'seek-attr-imm2':
    case 'seek-attr-early':
    case 'seek-attr-sim-early': {
      const i = plan.referent!;
      refer(i);
      answerObjects = [i];
      slots.A = attributeWord(plan.attribute!);
      if (plan.label.endsWith('early')) slots.E = earlierPhrase(i);
      answer = scene.objects[i]![plan.attribute!];
      mentioned = mention(mentioned, i, round, { [plan.attribute!]: answer });
      focus = i;
      break;
    }
    case 'seek-attr-rel-imm':
    case 'seek-attr-rel-early': {
      const i = plan.referent!;
      refer(i);
      const target = related(scene, i, plan.relation!)[0]!;
      answerObjects = [target];
      slots.A = attributeWord(plan.attribute!);
      slots.P = RELATION_TO_IT[plan.relation!];
      slots.R = RELATION_TO_NAMED[plan.relation!];
      if (plan.label === 'seek-attr-rel-early') slots.E = earlierPhrase(i);
      answer = scene.objects[target]![plan.attribute!];
      mentioned = mention(mention(mentioned, i, round), target, round, { [plan.attribute!]: answer });
      focus = target;
      break;
    }
  }
  const chainRelations = plan.label.endsWith('obj-rel-imm')
    ? [plan.relation!]
    : plan.label.endsWith('obj-rel-imm2')
      ? [...state.chainRelations, plan.relation!]
      : [];
  return {
    round: {
      question: fill(text, slots),
      answer,
      template: plan.label,
      coref_distance: template.history === 'coref' ? corefDistance : null,
      referents,
      answer_objects: answerObjects,
    },
    state: { round, mentioned, focus, group, asked: [...state.asked, planKey(plan), plan.label], lastLabel: plan.label, chainRelations },
  };
}
