/**
 * CLEVR-Dialog's dialog grammar (Kottur et al. 2019, sec. 3), with the rules of the original generator
 * (github.com/satwikkottur/clevr-dialog, constraints.py): a caption, then rounds of questions whose
 * answers come from the scene graph. The dialog state is the original's partial scene graph: what each
 * round told (its history) and, merged, what is known of each mentioned object: its attributes, how many
 * objects lie in a direction of it, how many share one of its attributes. A question is only asked when
 * its answer is not known yet, about objects the dialog has mentioned, and "it" only after a round that
 * was about one object. Every round records its template, its answer and its coreference distance: how
 * many rounds back the thing it refers to was told (the caption is round 0).
 */
import { randomPick } from '../random';
import { ATTRIBUTE_NAMES, ATTRIBUTE_VALUES, type AttributeName, RELATIONS, type Relation, type Scene, type SceneObject } from './scene';
import {
  ANSWER_NONE,
  CAPTION_TEMPLATES,
  type CaptionLabel,
  EARLIER_WORDS,
  EXTREME_ADJECTIVES,
  EXTREME_PLACES,
  type ExtremePlace,
  NUMBER_WORDS,
  PICTURE_WORDS,
  PLURAL,
  QUESTION_TEMPLATES,
  type QuestionLabel,
  RELATION_TO_IT,
  RELATION_TO_NAMED,
  THING_WORDS,
  VALUE_WORDS,
} from './templates';

export type Description = Partial<Record<AttributeName, string>>;

/** What the dialog has told about one object (the original's graph['objects'][id]). */
interface MentionedObject {
  readonly known: Description;
  readonly lastRound: number;
  /** Objects in a direction of it, where told (0 for the direction a caption puts it at the extreme of). */
  readonly relationCounts: Partial<Record<Relation, number>>;
  readonly relationExists: Partial<Record<Relation, boolean>>;
  /** Other objects sharing one of its attributes, where told. */
  readonly shareCounts: Partial<Record<AttributeName, number>>;
  readonly shareExists: Partial<Record<AttributeName, boolean>>;
}

/** What one round (caption or question) told: the original's graph['history'] items. */
interface HistoryItem {
  readonly round: number;
  readonly label: CaptionLabel | QuestionLabel;
  /** The objects the round was about, with the attributes it told of each. */
  readonly objects: readonly { readonly id: number; readonly known: Description }[];
  /** Whether what it told is certain enough to merge into the objects (a caption's "several" is not). */
  readonly mergeable: boolean;
  /** The group's size, when the round told it. */
  readonly count: number | null;
  /** The attribute value a group was named by ("red things"). */
  readonly groupAttribute: readonly [AttributeName, string] | null;
  /** The object a question was asked about (a follow-up "and to its right?" keeps it). */
  readonly focus: number | null;
  /** The attribute a seek question asked ("and the earlier cube?" asks it again). */
  readonly asked: AttributeName | null;
}

interface GroupMention {
  readonly members: readonly number[];
  readonly shared: Description;
  readonly round: number;
}

/** What the dialog has said so far. Immutable: each round makes a new state, so a beam can branch. */
export interface DialogState {
  readonly round: number;
  readonly mentioned: ReadonlyMap<number, MentionedObject>;
  readonly history: readonly HistoryItem[];
  /** The object "it" refers to: the one object of the last round, if it was about exactly one. */
  readonly focus: number | null;
  /** The objects "them" refers to: the last round's, if it was about a group. */
  readonly group: GroupMention | null;
  readonly lastLabel: CaptionLabel | QuestionLabel | null;
}

/** One template filled in: what it asks and whom it refers to. */
export interface QuestionPlan {
  readonly label: QuestionLabel;
  readonly attribute?: AttributeName;
  readonly value?: string;
  readonly relation?: Relation;
  /** The object the question is about ("it" or "the earlier …"). */
  readonly referent?: number;
  /** The one told attribute that names an earlier object ("the earlier red thing"). */
  readonly description?: Description;
  readonly usesGroup?: boolean;
}

export interface Round {
  readonly question: string;
  readonly answer: string;
  readonly template: QuestionLabel;
  /** Rounds back to the round that told what the question refers to; null when it refers to nothing earlier. */
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

function matches(object: SceneObject, description: Description): boolean {
  return ATTRIBUTE_NAMES.every((a) => description[a] === undefined || object[a] === description[a]);
}

export function selectObjects(scene: Scene, description: Description, exclude: ReadonlySet<number> = new Set()): number[] {
  return scene.objects.flatMap((o, i) => (!exclude.has(i) && matches(o, description) ? [i] : []));
}

/** The objects in direction r of object i. */
export function related(scene: Scene, i: number, relation: Relation): readonly number[] {
  return scene.relationships[relation][i] ?? [];
}

/** The nearest object in a direction: of those there, the one with the most objects beyond it the same way (constraints.py, seek-attr-rel). */
function nearestObject(scene: Scene, i: number, relation: Relation): number | null {
  let best: number | null = null;
  for (const j of related(scene, i, relation)) if (best === null || related(scene, j, relation).length > related(scene, best, relation).length) best = j;
  return best;
}

/** How many objects have each attribute value, among the given objects (all by default). */
function valueCounts(scene: Scene, objects?: readonly number[]): ReadonlyMap<string, number> {
  if (!objects) {
    let whole = sceneCounts.get(scene);
    if (!whole)
      sceneCounts.set(
        scene,
        (whole = valueCounts(
          scene,
          scene.objects.map((_, i) => i),
        )),
      );
    return whole;
  }
  const counts = new Map<string, number>();
  for (const a of ATTRIBUTE_NAMES) for (const v of ATTRIBUTE_VALUES[a]) counts.set(`${a}:${v}`, 0);
  for (const i of objects) for (const a of ATTRIBUTE_NAMES) counts.set(`${a}:${scene.objects[i]![a]}`, counts.get(`${a}:${scene.objects[i]![a]}`)! + 1);
  return counts;
}
/** Whole-scene counts, asked for at every step of the beam search. */
const sceneCounts = new WeakMap<Scene, ReadonlyMap<string, number>>();
const valueKey = (a: AttributeName, v: string) => `${a}:${v}`;
const splitKey = (key: string) => key.split(':') as [AttributeName, string];

// ---------------------------------------------------------------- wording

function article(phrase: string): string {
  return /^[aeiou]/.test(phrase) ? `an ${phrase}` : `a ${phrase}`;
}

function valueWord(value: string, random: () => number): string {
  const words = VALUE_WORDS[value];
  return words ? randomPick(random, words) : value;
}

/** "large red metal cube"; without a shape, "thing" or "object". */
function describe(description: Description, random: () => number, plural = false): string {
  const words: string[] = [];
  for (const a of ['size', 'color', 'material'] as const) if (description[a]) words.push(valueWord(description[a], random));
  const noun = description.shape ? valueWord(description.shape, random) : randomPick(random, THING_WORDS);
  words.push(plural ? PLURAL[noun]! : noun);
  return words.join(' ');
}

/**
 * The word-only slots and the words each may be: the picture's name and the plain noun for an object. The
 * generator draws one per use; the parser matches any of them and reads none.
 */
export const WORD_SLOTS: Readonly<Record<string, readonly string[]>> = {
  I: PICTURE_WORDS,
  T: THING_WORDS,
  Ts: THING_WORDS.map((t) => PLURAL[t]!),
  Ta: THING_WORDS.map(article),
};

/** The template with its slots filled. */
function fill(template: string, slots: Record<string, string>, random: () => number): string {
  const text = template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const words = WORD_SLOTS[key];
    const value = words ? randomPick(random, words) : slots[key];
    if (value === undefined) throw new Error(`template slot {${key}} has no value in "${template}"`);
    return value;
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------- state

export function emptyState(): DialogState {
  return { round: 0, mentioned: new Map(), history: [], focus: null, group: null, lastLabel: null };
}

function newObject(round: number): MentionedObject {
  return { known: {}, lastRound: round, relationCounts: {}, relationExists: {}, shareCounts: {}, shareExists: {} };
}

/** The state after a round that told `item`; `update` adds what it told about the asked-about object. */
function advance(state: DialogState, item: HistoryItem, update?: { id: number; change: (o: MentionedObject) => MentionedObject }): DialogState {
  const mentioned = new Map(state.mentioned);
  if (item.mergeable) {
    for (const { id, known } of item.objects) {
      const before = mentioned.get(id) ?? newObject(item.round);
      mentioned.set(id, { ...before, known: { ...before.known, ...known }, lastRound: item.round });
    }
  }
  if (update) {
    const before = mentioned.get(update.id) ?? newObject(item.round);
    mentioned.set(update.id, { ...update.change(before), lastRound: item.round });
  }
  return stateFrom(item.round, mentioned, [...state.history, item]);
}

/** "it" follows a round about exactly one object whose answer was certain (constraints.py, apply_immediate). */
function immediateObject(item: HistoryItem | undefined): number | null {
  return item && item.objects.length === 1 && item.mergeable && !item.label.startsWith('exist') ? item.objects[0]!.id : null;
}

function stateFrom(round: number, mentioned: ReadonlyMap<number, MentionedObject>, history: readonly HistoryItem[]): DialogState {
  const last = history[history.length - 1];
  const group =
    last && last.objects.length >= 2 && last.label !== 'obj-relation'
      ? { members: last.objects.map((o) => o.id), shared: last.groupAttribute ? { [last.groupAttribute[0]]: last.groupAttribute[1] } : {}, round: last.round }
      : null;
  return { round, mentioned, history, focus: immediateObject(last), group, lastLabel: last?.label ?? null };
}

function item(round: number, label: CaptionLabel | QuestionLabel, objects: HistoryItem['objects'], extra: Partial<HistoryItem> = {}): HistoryItem {
  return { round, label, objects, mergeable: true, count: null, groupAttribute: null, focus: null, asked: null, ...extra };
}

/** Attribute values the dialog has told, of objects or of groups (constraints.py, get_known_attributes). */
function knownValues(state: DialogState): Set<string> {
  const out = new Set<string>();
  for (const o of state.mentioned.values()) for (const a of ATTRIBUTE_NAMES) if (o.known[a] !== undefined) out.add(valueKey(a, o.known[a]));
  for (const h of state.history) if (h.groupAttribute) out.add(valueKey(...h.groupAttribute));
  return out;
}

/**
 * Objects "the earlier X" can name: a told attribute value that exactly one mentioned object is known to
 * have, of an object the last round was not about. With `preferShared`, values that other objects in the
 * picture share come first, so the reference needs the dialog (constraints.py, the *-early templates).
 */
function earlierCandidates(
  scene: Scene,
  state: DialogState,
  preferShared: boolean,
  skip?: AttributeName,
): { id: number; attribute: AttributeName; value: string }[] {
  const last = state.history[state.history.length - 1];
  const lastObjects = new Set(last?.objects.map((o) => o.id) ?? []);
  const out: { id: number; attribute: AttributeName; value: string }[] = [];
  for (const key of knownValues(state)) {
    const [attribute, value] = splitKey(key);
    if (attribute === skip) continue;
    const holders = [...state.mentioned.entries()].filter(([, o]) => o.known[attribute] === value);
    if (holders.length !== 1 || lastObjects.has(holders[0]![0])) continue;
    const id = holders[0]![0];
    if (skip !== undefined && state.mentioned.get(id)!.known[skip] !== undefined) continue;
    out.push({ id, attribute, value });
  }
  if (!preferShared) return out;
  const counts = valueCounts(scene);
  const shared = out.filter((c) => counts.get(valueKey(c.attribute, c.value))! > 1);
  return shared.length > 0 ? shared : out;
}

/** The round that first told the attribute naming an earlier object: how far back "the earlier X" reaches. */
function toldIn(state: DialogState, id: number, attribute: AttributeName): number {
  for (const h of state.history) if (h.objects.some((o) => o.id === id && o.known[attribute] !== undefined)) return h.round;
  return state.mentioned.get(id)?.lastRound ?? state.round;
}

// ---------------------------------------------------------------- captions

function sampleExtra(random: () => number, attributes: readonly AttributeName[]): AttributeName[] {
  // One more attribute 30% of the time (metainfo.json's probabilities 0.7 / 0.3).
  return attributes.length > 0 && random() < 0.3 ? [randomPick(random, attributes)] : [];
}

function pickDescription(scene: Scene, id: number, attributes: readonly AttributeName[]): Description {
  return Object.fromEntries(attributes.map((a) => [a, scene.objects[id]![a]]));
}

/**
 * The captions the grammar can open a scene with, one of each kind that applies, in the original's order
 * (constraints.py, caption): an object at an extreme or in the middle, a unique object, a counted group,
 * two objects in a relation.
 */
export function captionOptions(scene: Scene, random: () => number): { caption: Caption; state: DialogState }[] {
  const out: { caption: Caption; state: DialogState }[] = [];
  const n = scene.objects.length;
  if (n === 0) return out;
  const counts = valueCounts(scene);
  const uniqueAttributes = (i: number) => ATTRIBUTE_NAMES.filter((a) => counts.get(valueKey(a, scene.objects[i]![a])) === 1);
  const sharedAttributes = (i: number) => ATTRIBUTE_NAMES.filter((a) => counts.get(valueKey(a, scene.objects[i]![a]))! > 1);
  const pick = (label: CaptionLabel) => randomPick(random, CAPTION_TEMPLATES[label]);
  const start = (caption: Caption, first: HistoryItem, update?: Parameters<typeof advance>[2]) =>
    out.push({ caption, state: advance(emptyState(), first, update) });

  // An object at an extreme, or in the middle, described only by attributes others share (the place tells it apart).
  const places: ExtremePlace[] = ['right', 'left', 'behind', 'front', 'center'];
  const extremes = places.flatMap((place) =>
    scene.objects.flatMap((_, i) => {
      const there = place === 'center' ? RELATIONS.every((r) => related(scene, i, r).length <= n / 2) : related(scene, i, place).length === 0;
      return there && sharedAttributes(i).length > 0 ? [{ place, i }] : [];
    }),
  );
  if (extremes.length > 0) {
    const { place, i } = randomPick(random, extremes);
    const shared = sharedAttributes(i);
    const first = randomPick(random, shared);
    const known = pickDescription(scene, i, [
      first,
      ...sampleExtra(
        random,
        shared.filter((a) => a !== first),
      ),
    ]);
    const d = article(describe(known, random));
    const label: CaptionLabel = `extreme-${place}`;
    const text = fill(pick(label), { X: randomPick(random, EXTREME_PLACES[place]), Xa: randomPick(random, EXTREME_ADJECTIVES[place]), d, D0: d }, random);
    start(
      { text, label, objects: [i] },
      item(0, label, [{ id: i, known }]),
      place === 'center' ? undefined : { id: i, change: (o) => ({ ...o, relationCounts: { [place]: 0 }, relationExists: { [place]: false } }) },
    );
  }

  // A unique object: one attribute value no other object has, perhaps one more attribute.
  const uniques = scene.objects.flatMap((_, i) => uniqueAttributes(i).map((attribute) => ({ i, attribute })));
  if (uniques.length > 0) {
    const { i, attribute } = randomPick(random, uniques);
    const known = pickDescription(scene, i, [
      attribute,
      ...sampleExtra(
        random,
        ATTRIBUTE_NAMES.filter((a) => a !== attribute),
      ),
    ]);
    start(
      { text: fill(pick('unique-obj'), { dd: describe(known, random) }, random), label: 'unique-obj', objects: [i] },
      item(0, 'unique-obj', [{ id: i, known }]),
    );
  }

  // A group sharing an attribute value, counted or "several".
  const groups = [...counts.entries()].filter(([, c]) => c > 1);
  if (groups.length > 0) {
    const [key, count] = randomPick(random, groups);
    const [attribute, value] = splitKey(key);
    const label = randomPick(random, ['count-att-no', 'count-att'] as const);
    const members = selectObjects(scene, { [attribute]: value });
    const known = { [attribute]: value };
    const text = fill(pick(label), { n: NUMBER_WORDS[count] ?? String(count), D: describe(known, random, true), dd: describe(known, random) }, random);
    start(
      { text, label, objects: members },
      item(
        0,
        label,
        members.map((id) => ({ id, known })),
        { mergeable: label === 'count-att', count: label === 'count-att' ? count : null, groupAttribute: [attribute, value] },
      ),
    );
  }

  // Two neighbours in a direction, one named by a unique attribute value, the other by a shared one.
  const pairs: { near: number; far: number; relation: Relation; nearAttribute: AttributeName; farAttribute: AttributeName }[] = [];
  for (const relation of RELATIONS) {
    const order = scene.objects.map((_, i) => i).sort((a, b) => related(scene, b, relation).length - related(scene, a, relation).length);
    for (let k = 0; k + 1 < order.length; k++) {
      const far = order[k]!;
      const near = order[k + 1]!;
      const [farPool, nearPool] =
        uniqueAttributes(far).length > 0 ? [uniqueAttributes(far), sharedAttributes(near)] : [sharedAttributes(far), uniqueAttributes(near)];
      if (farPool.length > 0 && nearPool.length > 0)
        pairs.push({ near, far, relation, farAttribute: randomPick(random, farPool), nearAttribute: randomPick(random, nearPool) });
    }
  }
  if (pairs.length > 0) {
    // "near" lies in `relation` of "far": the next object that way.
    const { near, far, relation, nearAttribute, farAttribute } = randomPick(random, pairs);
    const nearKnown = pickDescription(scene, near, [nearAttribute]);
    const farKnown = pickDescription(scene, far, [farAttribute]);
    const dd = describe(nearKnown, random);
    const text = fill(
      pick('obj-relation'),
      { d: article(dd), dd, R: randomPick(random, RELATION_TO_NAMED[relation]), d2: article(describe(farKnown, random)) },
      random,
    );
    start(
      { text, label: 'obj-relation', objects: [near, far] },
      item(0, 'obj-relation', [
        { id: near, known: nearKnown },
        { id: far, known: farKnown },
      ]),
    );
  }
  return out;
}

// ---------------------------------------------------------------- questions

/** Templates the beam search tries together: a count question and its yes/no twin are one choice (generate_dataset.py). */
export const QUESTION_GROUPS: readonly (readonly QuestionLabel[])[] = [
  ['count-all'],
  ['count-other', 'exist-other'],
  ['count-all-group'],
  ['count-attribute', 'exist-attribute'],
  ['count-attribute-group', 'exist-attribute-group'],
  ['count-obj-rel-imm', 'exist-obj-rel-imm'],
  ['count-obj-rel-imm2', 'exist-obj-rel-imm2'],
  ['count-obj-rel-early', 'exist-obj-rel-early'],
  ['count-obj-exclude-imm', 'exist-obj-exclude-imm'],
  ['count-obj-exclude-early', 'exist-obj-exclude-early'],
  ['seek-attr-imm'],
  ['seek-attr-imm2'],
  ['seek-attr-early'],
  ['seek-attr-sim-early'],
  ['seek-attr-rel-imm'],
  ['seek-attr-rel-early'],
];

const heads = (random: () => number) => random() > 0.5;

/** "Them" in "how many of them are red?": the last round's objects, at least two unless it was a yes/no question. */
export function attributeGroup(state: DialogState): number[] | null {
  const last = state.history[state.history.length - 1];
  if (!last || last.objects.length <= (last.label.startsWith('exist') ? 0 : 1) || !last.mergeable || last.label === 'obj-relation') return null;
  return last.objects.map((o) => o.id);
}

/**
 * A question of this template the state allows, with the original's random choices (constraints.py,
 * question), or null when its constraints fail: nothing for "it" to mean, the answer already known, or
 * the coin's yes or no not possible here (each yes/no question draws its answer first, independently).
 */
export function planQuestion(scene: Scene, state: DialogState, label: QuestionLabel, random: () => number): QuestionPlan | null {
  const history = state.history;
  const last = history[history.length - 1];
  const questions = history.filter((h) => h.round > 0);
  const n = scene.objects.length;
  const isCount = label.startsWith('count');

  const early = (preferShared: boolean, skip?: AttributeName) => {
    const options = earlierCandidates(scene, state, preferShared, skip);
    if (options.length === 0) return null;
    const c = randomPick(random, options);
    return { referent: c.id, description: { [c.attribute]: c.value } as Description };
  };
  // An -imm template refers to "it" (the focus), an -early one to "the earlier X".
  const itOrEarly = (preferShared: boolean): { referent: number; description?: Description } | null =>
    label.endsWith('imm') ? (state.focus === null ? null : { referent: state.focus }) : early(preferShared);

  switch (label) {
    case 'count-all':
      return questions.some((h) => h.label === 'count-all' || h.label === 'count-other') ? null : { label };
    case 'count-other':
    case 'exist-other': {
      if (questions.some((h) => h.label === 'count-all' || h.label === 'count-other' || (label === 'exist-other' && h.label === 'exist-other'))) return null;
      const told = new Set(history.flatMap((h) => h.objects.map((o) => o.id)));
      if (label === 'exist-other' && (heads(random) ? told.size >= n : told.size < n)) return null;
      return { label };
    }
    case 'count-all-group':
      // "How many are there?" after a group whose size was not told.
      return last && last.objects.length > 1 && last.count === null && last.label !== 'obj-relation' ? { label, usesGroup: true } : null;
    case 'count-attribute':
    case 'exist-attribute':
    case 'count-attribute-group':
    case 'exist-attribute-group': {
      let pool = scene.objects.map((_, i) => i);
      if (label.endsWith('group')) {
        const members = attributeGroup(state);
        if (members === null) return null;
        pool = members;
      }
      const counts = valueCounts(scene, pool);
      // Zero answers: half the time for yes/no, 30% for counts.
      const zero = random() > (isCount ? 0.7 : 0.5);
      const countedBefore = new Set(history.filter((h) => h.count !== null && h.groupAttribute).map((h) => valueKey(...h.groupAttribute!)));
      const told = isCount ? new Set<string>() : knownValues(state);
      const options = [...counts.entries()].filter(([key, c]) => (zero ? c === 0 : c !== 0) && !countedBefore.has(key) && !told.has(key));
      if (options.length === 0) return null;
      const [attribute, value] = splitKey(randomPick(random, options)[0]);
      return { label, attribute, value, usesGroup: label.endsWith('group') };
    }
    case 'count-obj-rel-imm':
    case 'exist-obj-rel-imm':
    case 'count-obj-rel-imm2':
    case 'exist-obj-rel-imm2':
    case 'count-obj-rel-early':
    case 'exist-obj-rel-early': {
      let referent: number | null;
      let description: Description | undefined;
      if (label.endsWith('imm2')) {
        // "And to its right?" continues a question of the same kind about the same object.
        referent = last && last.label.includes('obj-rel-imm') && last.label.slice(0, 5) === label.slice(0, 5) ? last.focus : null;
      } else {
        const target = itOrEarly(false);
        referent = target?.referent ?? null;
        description = target?.description;
      }
      if (referent === null) return null;
      const o = state.mentioned.get(referent) ?? newObject(0);
      const open = RELATIONS.filter((r) => o.relationCounts[r] === undefined && (isCount ? o.relationExists[r] !== false : o.relationExists[r] === undefined));
      if (open.length === 0) return null;
      let options = open;
      if (!isCount)
        options = heads(random) ? open.filter((r) => related(scene, referent, r).length === 0) : open.filter((r) => related(scene, referent, r).length > 0);
      if (options.length === 0) return null;
      return { label, referent, relation: randomPick(random, options), description };
    }
    case 'count-obj-exclude-imm':
    case 'exist-obj-exclude-imm':
    case 'count-obj-exclude-early':
    case 'exist-obj-exclude-early': {
      const target = itOrEarly(true);
      if (target === null) return null;
      const { referent, description } = target;
      const o = state.mentioned.get(referent) ?? newObject(0);
      const open = ATTRIBUTE_NAMES.filter(
        (a) => o.known[a] !== undefined && o.shareCounts[a] === undefined && (isCount ? o.shareExists[a] !== false : o.shareExists[a] === undefined),
      );
      let options = open;
      if (!isCount) {
        const counts = valueCounts(scene);
        const alone = (a: AttributeName) => counts.get(valueKey(a, scene.objects[referent]![a]))! === 1;
        options = heads(random) ? open.filter(alone) : open.filter((a) => !alone(a));
      }
      if (options.length === 0) return null;
      return { label, referent, attribute: randomPick(random, options), description };
    }
    case 'seek-attr-rel-imm':
    case 'seek-attr-rel-early': {
      const target = itOrEarly(true);
      if (target === null) return null;
      const { referent, description } = target;
      const o = state.mentioned.get(referent) ?? newObject(0);
      const options: { relation: Relation; attribute: AttributeName }[] = [];
      for (const relation of RELATIONS) {
        const nearest = nearestObject(scene, referent, relation);
        if (nearest === null) {
          // Nothing there: asked only while the dialog does not know it, and answered "none".
          if (o.relationCounts[relation] === undefined && o.relationExists[relation] === undefined)
            options.push({ relation, attribute: randomPick(random, ATTRIBUTE_NAMES) });
          continue;
        }
        const known = state.mentioned.get(nearest)?.known ?? {};
        for (const attribute of ATTRIBUTE_NAMES) if (known[attribute] === undefined) options.push({ relation, attribute });
      }
      if (options.length === 0) return null;
      return { label, referent, ...randomPick(random, options), description };
    }
    case 'seek-attr-imm':
    case 'seek-attr-imm2':
    case 'seek-attr-early':
    case 'seek-attr-sim-early': {
      let referent: number | null = null;
      let description: Description | undefined;
      let attribute: AttributeName | undefined;
      if (label === 'seek-attr-imm2') {
        // "And its shape?" after a question that asked an attribute of one object.
        if (last && (last.label === 'seek-attr-imm' || last.label === 'seek-attr-imm2' || last.label === 'seek-attr-rel-imm') && last.objects.length > 0)
          referent = last.objects[0]!.id;
      } else if (label === 'seek-attr-imm') referent = state.focus;
      else {
        if (label === 'seek-attr-sim-early') {
          // "And the earlier cube?" asks the attribute the last question asked, of an object whose value is not told.
          if (!last || (last.label !== 'seek-attr-imm' && last.label !== 'seek-attr-imm2') || last.asked === null) return null;
          attribute = last.asked;
        }
        const e = early(true, attribute);
        referent = e?.referent ?? null;
        description = e?.description;
      }
      if (referent === null) return null;
      if (attribute === undefined) {
        const known = state.mentioned.get(referent)?.known ?? {};
        const unknown = ATTRIBUTE_NAMES.filter((a) => known[a] === undefined);
        if (unknown.length === 0) return null;
        attribute = randomPick(random, unknown);
      }
      return { label, referent, attribute, description };
    }
  }
}

/** For each group of templates, one drawn template's question, where the state allows one. */
export function questionOptions(scene: Scene, state: DialogState, random: () => number): QuestionPlan[] {
  return QUESTION_GROUPS.flatMap((group) => {
    const plan = planQuestion(scene, state, randomPick(random, group), random);
    return plan ? [plan] : [];
  });
}

export interface AskResult {
  readonly round: Round;
  readonly state: DialogState;
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/**
 * Other wording for some templates, in place of their own texts (the same slots): a held-out set of
 * phrasings that measures what models make of sentence forms they were never trained on.
 */
export type Phrasings = Partial<Record<QuestionLabel, readonly string[]>>;

/** Words the plan's question, answers it from the scene graph and moves the dialog state on. */
export function ask(scene: Scene, state: DialogState, plan: QuestionPlan, random: () => number, phrasings: Phrasings = {}): AskResult {
  const round = state.round + 1;
  const label = plan.label;
  const template = QUESTION_TEMPLATES[label];
  const text = randomPick(random, phrasings[label] ?? template.texts);
  const last = state.history[state.history.length - 1];
  const isCount = label.startsWith('count');
  const slots: Record<string, string> = {};
  let answer: string;
  let answerObjects: number[] = [];
  let referents: number[] = [];
  let corefDistance: number | null = null;
  let next: HistoryItem;
  let update: Parameters<typeof advance>[2];
  const i = plan.referent;
  if (i !== undefined) {
    referents = [i];
    // "it" and "them" reach back one round; "the earlier X" to the round that first told X of it.
    if (label.endsWith('early')) {
      const attribute = ATTRIBUTE_NAMES.find((a) => plan.description?.[a] !== undefined);
      corefDistance = round - (attribute ? toldIn(state, i, attribute) : (state.mentioned.get(i)?.lastRound ?? state.round));
      slots.E = `${randomPick(random, EARLIER_WORDS)} ${describe(plan.description ?? {}, random)}`;
    } else corefDistance = 1;
  }
  if (plan.relation) {
    slots.P = randomPick(random, RELATION_TO_IT[plan.relation]);
    slots.R = randomPick(random, RELATION_TO_NAMED[plan.relation]);
  }
  if (plan.attribute) slots.A = plan.attribute;

  switch (label) {
    case 'count-all':
      answerObjects = scene.objects.map((_, k) => k);
      answer = String(answerObjects.length);
      next = item(
        round,
        label,
        answerObjects.map((id) => ({ id, known: {} })),
        { count: answerObjects.length },
      );
      break;
    case 'count-other':
    case 'exist-other': {
      const told = new Set(state.history.flatMap((h) => h.objects.map((o) => o.id)));
      referents = [...told];
      answerObjects = scene.objects.map((_, k) => k).filter((k) => !told.has(k));
      answer = isCount ? String(answerObjects.length) : yesNo(answerObjects.length > 0);
      next = item(
        round,
        label,
        answerObjects.map((id) => ({ id, known: {} })),
        { mergeable: isCount, count: isCount ? answerObjects.length : null },
      );
      break;
    }
    case 'count-all-group': {
      const members = (last?.objects ?? []).map((o) => o.id);
      referents = members;
      corefDistance = 1;
      answerObjects = members;
      answer = String(members.length);
      next = item(round, label, last?.objects ?? [], { count: members.length, groupAttribute: last?.groupAttribute ?? null });
      break;
    }
    case 'count-attribute':
    case 'exist-attribute':
    case 'count-attribute-group':
    case 'exist-attribute-group': {
      // The grammar names one attribute value; a typed question may name more ("red cubes").
      const known: Description = plan.description ?? { [plan.attribute!]: plan.value! };
      const single = ATTRIBUTE_NAMES.filter((a) => known[a] !== undefined);
      let pool = scene.objects.map((_, k) => k);
      if (plan.usesGroup) {
        pool = (last?.objects ?? []).map((o) => o.id);
        referents = pool;
        corefDistance = 1;
      }
      answerObjects = pool.filter((k) => matches(scene.objects[k]!, known));
      slots.D = describe(known, random, true);
      slots.d = article(describe(known, random));
      if (plan.attribute && plan.value) slots.V = plan.attribute === 'shape' ? article(valueWord(plan.value, random)) : valueWord(plan.value, random);
      answer = isCount ? String(answerObjects.length) : yesNo(answerObjects.length > 0);
      next = item(
        round,
        label,
        answerObjects.map((id) => ({ id, known })),
        {
          count: isCount ? answerObjects.length : null,
          groupAttribute: single.length === 1 ? [single[0]!, known[single[0]!]!] : null,
        },
      );
      break;
    }
    case 'count-obj-rel-imm':
    case 'count-obj-rel-imm2':
    case 'exist-obj-rel-imm':
    case 'exist-obj-rel-imm2':
    case 'count-obj-rel-early':
    case 'exist-obj-rel-early': {
      const relation = plan.relation!;
      answerObjects = [...related(scene, i!, relation)];
      answer = isCount ? String(answerObjects.length) : yesNo(answerObjects.length > 0);
      next = item(
        round,
        label,
        answerObjects.map((id) => ({ id, known: {} })),
        { focus: i!, count: isCount ? answerObjects.length : null },
      );
      update = {
        id: i!,
        change: (o) =>
          isCount
            ? { ...o, relationCounts: { ...o.relationCounts, [relation]: answerObjects.length } }
            : { ...o, relationExists: { ...o.relationExists, [relation]: answerObjects.length > 0 } },
      };
      break;
    }
    case 'count-obj-exclude-imm':
    case 'exist-obj-exclude-imm':
    case 'count-obj-exclude-early':
    case 'exist-obj-exclude-early': {
      const attribute = plan.attribute!;
      const value = scene.objects[i!]![attribute];
      answerObjects = selectObjects(scene, { [attribute]: value }, new Set([i!]));
      answer = isCount ? String(answerObjects.length) : yesNo(answerObjects.length > 0);
      next = item(
        round,
        label,
        answerObjects.map((id) => ({ id, known: { [attribute]: value } })),
        { focus: i!, count: isCount ? answerObjects.length : null },
      );
      update = {
        id: i!,
        change: (o) =>
          isCount
            ? { ...o, shareCounts: { ...o.shareCounts, [attribute]: answerObjects.length } }
            : { ...o, shareExists: { ...o.shareExists, [attribute]: answerObjects.length > 0 } },
      };
      break;
    }
    case 'seek-attr-imm':
    case 'seek-attr-imm2':
    case 'seek-attr-early':
    case 'seek-attr-sim-early': {
      const attribute = plan.attribute!;
      answerObjects = [i!];
      answer = scene.objects[i!]![attribute];
      next = item(round, label, [{ id: i!, known: { [attribute]: answer } }], { focus: i!, asked: attribute });
      break;
    }
    case 'seek-attr-rel-imm':
    case 'seek-attr-rel-early': {
      const attribute = plan.attribute!;
      const relation = plan.relation!;
      const target = nearestObject(scene, i!, relation);
      if (target === null) {
        answer = ANSWER_NONE;
        next = item(round, label, [], { focus: i!, asked: attribute });
        // Nothing lies that way: the dialog now knows it, and does not ask again.
        update = {
          id: i!,
          change: (o) => ({ ...o, relationCounts: { ...o.relationCounts, [relation]: 0 }, relationExists: { ...o.relationExists, [relation]: false } }),
        };
      } else {
        answerObjects = [target];
        answer = scene.objects[target]![attribute];
        next = item(round, label, [{ id: target, known: { [attribute]: answer } }], { focus: i!, asked: attribute });
      }
      break;
    }
  }
  return {
    round: {
      question: fill(text, slots, random),
      answer,
      template: label,
      coref_distance: template.history === 'coref' ? corefDistance : null,
      referents,
      answer_objects: answerObjects,
    },
    state: advance(state, next, update ?? (i !== undefined ? { id: i, change: (o) => o } : undefined)),
  };
}
