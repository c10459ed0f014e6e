/**
 * CLEVR's scene JSON ({"info", "scenes": [...]}, as CLEVR_val_scenes.json) and CLEVR-Dialog's dialog JSON
 * (a list of image records with five dialogs each), read and written, the dialogs in our layout or in the
 * original generator's. A malformed file is refused with the file, the record, the dialog, the round and the
 * field named, and what was expected.
 */
import { describeJson, formatCount, invalid, isPlainObject, ownValue, quoteForMessage, shortErrorText } from '../datasets/validation';
import { type ClevrDialog, type ClevrDialogRecord } from './generateDialogs';
import { type Phrasings, type Round, WORD_SLOTS } from './dialogGrammar';
import {
  COLORS,
  MATERIALS,
  MAX_SCENE_OBJECTS,
  RELATIONS,
  type Scene,
  type SceneObject,
  SHAPES,
  SIZES,
  type Vec3,
  computeRelationships,
  projectToImage,
  sceneDirections,
} from './scene';
import { CAPTION_LABELS, QUESTION_LABELS, QUESTION_TEMPLATES, type QuestionLabel } from './templates';

function parseJson(text: string, fileName: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return invalid(`${fileName} is not valid JSON (${shortErrorText(error)}). Check that the file is complete.`);
  }
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  return invalid(`${where} is ${typeof value === 'string' ? quoteForMessage(value) : describeJson(value)}; it must be one of ${allowed.join(', ')}.`);
}

/** A value from the file for a message: strings quoted (so "NaN" reads as text), numbers as they are. */
function shown(value: unknown): string {
  if (typeof value === 'string') return `the text ${quoteForMessage(value)}`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'not a finite number (it reads as infinity)';
  return describeJson(value);
}

function vec3(value: unknown, where: string): Vec3 {
  if (!Array.isArray(value)) return invalid(`${where} is ${shown(value)}; it must be a list of three numbers (x, y, z).`);
  if (value.length !== 3) {
    const items = value.every((x) => typeof x === 'number') ? 'number' : 'item';
    return invalid(`${where} has ${value.length} ${items}${value.length === 1 ? '' : 's'}; it must have 3 numbers (x, y, z).`);
  }
  for (const [k, x] of value.entries()) {
    if (typeof x !== 'number') return invalid(`${where}[${k}] is ${shown(x)}; it must be a number.`);
    if (!Number.isFinite(x)) return invalid(`${where}[${k}] is not a finite number (it reads as infinity); it must be a finite number.`);
  }
  return [value[0] as number, value[1] as number, value[2] as number];
}

function integer(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'number' && Number.isFinite(value))
    return invalid(value < 0 ? `${where} is ${value}; it must be 0 or more.` : `${where} is ${value}; it must be a whole number.`);
  return invalid(`${where} is ${shown(value)}; it must be a whole number, 0 or more.`);
}

function text(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  return invalid(`${where} is ${describeJson(value)}; it must be a string.`);
}

/**
 * Reads a CLEVR scene file: {"scenes": [...]}, a list of scenes, or one scene. `onScene` hears after each
 * scene is checked (a worker reading a large file turns it into progress).
 */
export function parseClevrScenes(source: string, fileName: string, onScene?: (checked: number, total: number) => void): Scene[] {
  const json = parseJson(source, fileName);
  const list = Array.isArray(json)
    ? json
    : isPlainObject(json) && Array.isArray(ownValue(json, 'scenes'))
      ? (ownValue(json, 'scenes') as unknown[])
      : isPlainObject(json) && ownValue(json, 'objects') !== undefined
        ? [json]
        : null;
  if (!list) invalid(`${fileName} holds ${describeJson(json)} without a "scenes" list; a CLEVR scene file is {"scenes": [...]} (as CLEVR_val_scenes.json).`);
  // A dialog file chosen for its scene file is a likely slip: both are lists of image records.
  const first: unknown = list[0];
  if (isPlainObject(first) && ownValue(first, 'dialogs') !== undefined && ownValue(first, 'objects') === undefined)
    invalid(
      `${fileName} is a CLEVR-Dialog file (image records with their dialogs), not a scene file. Load the scene file the dialogs are about (as CLEVR_val_scenes.json).`,
    );
  return list.map((raw, k) => {
    const scene = parseScene(raw, `${fileName}, scene ${k}`);
    onScene?.(k + 1, list.length);
    return scene;
  });
}

function parseScene(raw: unknown, where: string): Scene {
  if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}; each scene must be an object.`);
  const index = integer(ownValue(raw, 'image_index'), `${where}: "image_index"`);
  const at = `${where} (image_index ${index})`;
  const objectsRaw = ownValue(raw, 'objects');
  if (!Array.isArray(objectsRaw)) invalid(`${at}: "objects" is ${describeJson(objectsRaw)}; it must be a list of objects.`);
  // Checked before any object is read: the relations grow with the square of the count.
  if (objectsRaw.length > MAX_SCENE_OBJECTS) {
    invalid(
      `${at} has ${formatCount(objectsRaw.length)} objects; a scene may have at most ${MAX_SCENE_OBJECTS} (CLEVR's generator places 3 to 10), since each one is drawn. Remove objects or split the scene, then load the file again.`,
    );
  }
  const objects: SceneObject[] = objectsRaw.map((o, j) => {
    const w = `${at}: objects[${j}]`;
    if (!isPlainObject(o)) invalid(`${w} is ${describeJson(o)}; it must be an object.`);
    const coords = vec3(ownValue(o, '3d_coords'), `${w}."3d_coords"`);
    const rotation = ownValue(o, 'rotation');
    const pixel = ownValue(o, 'pixel_coords');
    return {
      shape: oneOf(ownValue(o, 'shape'), SHAPES, `${w}.shape`),
      color: oneOf(ownValue(o, 'color'), COLORS, `${w}.color`),
      material: oneOf(ownValue(o, 'material'), MATERIALS, `${w}.material`),
      size: oneOf(ownValue(o, 'size'), SIZES, `${w}.size`),
      '3d_coords': coords,
      rotation:
        rotation === undefined
          ? 0
          : typeof rotation === 'number' && Number.isFinite(rotation)
            ? rotation
            : invalid(`${w}.rotation is ${describeJson(rotation)}; it must be a number of degrees.`),
      pixel_coords: pixel === undefined ? projectToImage(coords) : vec3(pixel, `${w}.pixel_coords`),
    };
  });
  const directions = ownValue(raw, 'directions');
  const dirs = isPlainObject(directions)
    ? { ...sceneDirections(), ...Object.fromEntries(RELATIONS.map((r) => [r, vec3(ownValue(directions, r), `${at}: directions.${r}`)])) }
    : sceneDirections();
  const relationships = ownValue(raw, 'relationships');
  const rel = relationships === undefined ? computeRelationships(objects, dirs) : parseRelationships(relationships, objects.length, at);
  const filename = ownValue(raw, 'image_filename');
  const split = ownValue(raw, 'split');
  return {
    split: split === undefined ? 'unknown' : text(split, `${at}: "split"`),
    image_index: index,
    image_filename: filename === undefined ? `CLEVR_${index}.png` : text(filename, `${at}: "image_filename"`),
    objects,
    relationships: rel,
    directions: dirs,
  };
}

function parseRelationships(raw: unknown, count: number, at: string): Scene['relationships'] {
  if (!isPlainObject(raw)) invalid(`${at}: "relationships" is ${describeJson(raw)}; it must be an object with left, right, front and behind lists.`);
  const out = {} as { [R in (typeof RELATIONS)[number]]: number[][] };
  for (const r of RELATIONS) {
    const lists = ownValue(raw, r);
    if (!Array.isArray(lists) || lists.length !== count)
      invalid(
        `${at}: relationships.${r} is ${describeJson(lists)}${Array.isArray(lists) ? ` of ${lists.length}` : ''}; it must be one list per object (${count}).`,
      );
    out[r] = lists.map((l, i) => {
      if (!Array.isArray(l) || l.length >= count || new Set(l).size !== l.length || !l.every((j) => Number.isInteger(j) && j >= 0 && j < count && j !== i))
        invalid(`${at}: relationships.${r}[${i}] must list other objects' indices (0 to ${count - 1}), each once.`);
      return l as number[];
    });
  }
  return out;
}

/** A scene file in CLEVR's layout (pixel coordinates and relationships included). */
export function clevrScenesJson(scenes: readonly Scene[], info: Record<string, string> = {}): string {
  return `${JSON.stringify({ info: { version: '1.0', ...info }, scenes })}\n`;
}

/**
 * The two dialog layouts read and written here. `ours`: what `clevr:generate` writes by default, each dialog with
 * its `caption_template` and each round with its `coref_distance`, `referents` and `answer_objects`.
 * `original`: what the original generator's generate_dataset.py writes (github.com/satwikkottur/clevr-dialog,
 * BSD-3): the caption's label in `template_info[0].label`, and each round's coreference in
 * `graph.history[round].dependence`, the index of the round it depends on (-1 for the caption, null for none).
 */
export const CLEVR_DIALOG_FORMATS = ['ours', 'original'] as const;
export type ClevrDialogFormat = (typeof CLEVR_DIALOG_FORMATS)[number];

/** A CLEVR-Dialog file read: its layout (told by its content) and its records in our form. */
export interface ClevrDialogFile {
  readonly format: ClevrDialogFormat;
  readonly records: ClevrDialogRecord[];
}

/**
 * Which layout a parsed dialog file is in: ours when its first dialog has a `caption_template` (our writer
 * always puts one there), the original's otherwise. The original has no such field, so a file without it is
 * held to the original's rules, `graph` included.
 */
function clevrDialogFormat(json: unknown): ClevrDialogFormat {
  if (!Array.isArray(json)) return 'ours';
  for (const record of json) {
    const dialogs = isPlainObject(record) ? ownValue(record, 'dialogs') : undefined;
    if (Array.isArray(dialogs) && dialogs.length > 0) {
      return isPlainObject(dialogs[0]) && ownValue(dialogs[0], 'caption_template') !== undefined ? 'ours' : 'original';
    }
  }
  return 'ours';
}

/** Reads a CLEVR-Dialog file in either layout (told by its content): a list of image records, each with its dialogs. */
export function readClevrDialogFile(source: string, fileName: string): ClevrDialogFile {
  const json = parseJson(source, fileName);
  if (!Array.isArray(json)) invalid(`${fileName} holds ${describeJson(json)}; a CLEVR-Dialog file is a list of image records.`);
  const format = clevrDialogFormat(json);
  const records = json.map((raw, k) => {
    const where = `${fileName}, record ${k}`;
    if (!isPlainObject(raw)) invalid(`${where} is ${describeJson(raw)}; each record must be an object.`);
    const index = integer(ownValue(raw, 'image_index'), `${where}: "image_index"`);
    const at = `${where} (image_index ${index})`;
    const dialogs = ownValue(raw, 'dialogs');
    if (!Array.isArray(dialogs)) invalid(`${at}: "dialogs" is ${describeJson(dialogs)}; it must be a list.`);
    return {
      split: text(ownValue(raw, 'split') ?? 'unknown', `${at}: "split"`),
      image_index: index,
      image_filename: text(ownValue(raw, 'image_filename'), `${at}: "image_filename"`),
      dialogs: dialogs.map((d, j) => (format === 'ours' ? parseDialog(d, `${at}, dialog ${j}`) : parseOriginalDialog(d, `${at}, dialog ${j}`))),
    };
  });
  return { format, records };
}

/** Reads a CLEVR-Dialog file in either layout; see readClevrDialogFile. */
export function parseClevrDialogs(source: string, fileName: string): ClevrDialogRecord[] {
  return readClevrDialogFile(source, fileName).records;
}

function parseDialog(raw: unknown, at: string): ClevrDialog {
  if (!isPlainObject(raw)) invalid(`${at} is ${describeJson(raw)}; it must be an object.`);
  const rounds = ownValue(raw, 'dialog');
  if (!Array.isArray(rounds)) invalid(`${at}: "dialog" is ${describeJson(rounds)}; it must be a list of rounds.`);
  const captionTemplate = ownValue(raw, 'caption_template');
  const dialog: Round[] = rounds.map((r, n) => {
    const w = `${at}, round ${n + 1}`;
    if (!isPlainObject(r)) invalid(`${w} is ${describeJson(r)}; it must be an object.`);
    const distance = ownValue(r, 'coref_distance');
    const indices = (key: string) => {
      const v = ownValue(r, key);
      if (v === undefined) return [];
      if (!Array.isArray(v) || !v.every((i) => Number.isInteger(i) && i >= 0)) invalid(`${w}: "${key}" must be a list of object indices.`);
      return v as number[];
    };
    const answer = ownValue(r, 'answer') ?? invalid(`${w}: "answer" is missing.`);
    if (typeof answer !== 'string' && typeof answer !== 'number' && typeof answer !== 'boolean')
      invalid(`${w}: "answer" is ${describeJson(answer)}; it must be a word, a number or true/false.`);
    return {
      question: text(ownValue(r, 'question'), `${w}: "question"`),
      answer: String(answer),
      template: oneOf(ownValue(r, 'template'), QUESTION_LABELS, `${w}: "template"`),
      coref_distance: distance === undefined || distance === null ? null : integer(distance, `${w}: "coref_distance"`),
      referents: indices('referents'),
      answer_objects: indices('answer_objects'),
    };
  });
  const captionObjects = ownValue(raw, 'caption_objects');
  const captionLabel = oneOf(captionTemplate, CAPTION_LABELS, `${at}: "caption_template"`);
  return {
    caption: text(ownValue(raw, 'caption'), `${at}: "caption"`),
    caption_template: captionLabel,
    caption_objects: Array.isArray(captionObjects) ? captionObjects.filter((i): i is number => Number.isInteger(i)) : [],
    template_info: [{ label: captionLabel }, ...dialog.map((r) => ({ label: r.template }))],
    dialog,
  };
}

const ORIGINAL_FORMAT_HINT = 'Use the file as the original generator (generate_dataset.py) wrote it.';

/** A list of object indices from the original's `objects` ([{"id": 3, ...}, ...]). */
function originalObjectIds(value: unknown, where: string): number[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return invalid(`${where} is ${describeJson(value)}; it must be a list of objects, each with its "id".`);
  return value.map((o, i) => integer(isPlainObject(o) ? ownValue(o, 'id') : o, `${where}[${i}].id`));
}

/** Object indices in our own extension of a history entry ("referents": [2, 5]). */
function indexList(value: unknown, where: string): number[] {
  if (!Array.isArray(value)) return invalid(`${where} is ${describeJson(value)}; it must be a list of object indices.`);
  return value.map((i, k) => integer(i, `${where}[${k}]`));
}

/**
 * One dialog as the original writes it. Round k (1-based) is graph.history[k]; its `dependence` d is the
 * 0-based index of the round it refers back to (-1: the caption), so its coreference distance is (k - 1) - d
 * (generate_dataset.py, identify_coref_chains). The objects a round's history entry holds are what its
 * answer told (our answer_objects); its focus object, where it has one, is what it refers to.
 */
function parseOriginalDialog(raw: unknown, at: string): ClevrDialog {
  if (!isPlainObject(raw)) invalid(`${at} is ${describeJson(raw)}; it must be an object.`);
  const info = ownValue(raw, 'template_info');
  if (!Array.isArray(info) || info.length === 0)
    invalid(
      `${at}: "template_info" is ${describeJson(info)}; it must be a list whose first entry is the caption's template (the file is read in the original generator's layout, since its first dialog has no "caption_template"). ${ORIGINAL_FORMAT_HINT}`,
    );
  const first: unknown = info[0];
  if (!isPlainObject(first)) invalid(`${at}: template_info[0] is ${describeJson(first)}; it must be the caption's template, an object with its "label".`);
  const captionLabel = oneOf(ownValue(first, 'label'), CAPTION_LABELS, `${at}: template_info[0].label`);
  const rounds = ownValue(raw, 'dialog');
  if (!Array.isArray(rounds)) invalid(`${at}: "dialog" is ${describeJson(rounds)}; it must be a list of rounds.`);
  const graph = ownValue(raw, 'graph');
  if (graph === undefined)
    invalid(
      `${at}: "graph" is missing; in the original CLEVR-Dialog format each dialog has a "graph" whose "history" holds each round's coreference. ${ORIGINAL_FORMAT_HINT}`,
    );
  if (!isPlainObject(graph)) invalid(`${at}: "graph" is ${describeJson(graph)}; it must be an object with a "history" list. ${ORIGINAL_FORMAT_HINT}`);
  const history = ownValue(graph, 'history');
  if (!Array.isArray(history) || history.length !== rounds.length + 1)
    invalid(
      `${at}: graph.history is ${describeJson(history)}${Array.isArray(history) ? ` of ${history.length}` : ''}; it must hold one entry for the caption and one per round (${rounds.length + 1}). ${ORIGINAL_FORMAT_HINT}`,
    );
  const entry = (k: number, where: string): object => {
    const h: unknown = history[k];
    if (!isPlainObject(h)) return invalid(`${where}: graph.history[${k}] is ${describeJson(h)}; it must be an object.`);
    return h;
  };
  const caption = entry(0, at);
  const dialog: Round[] = rounds.map((r, n) => {
    const round = n + 1;
    const w = `${at}, round ${round}`;
    if (!isPlainObject(r)) invalid(`${w} is ${describeJson(r)}; it must be an object.`);
    const h = entry(round, w);
    const dependence = ownValue(h, 'dependence');
    let distance: number | null = null;
    if (dependence !== undefined && dependence !== null) {
      if (typeof dependence !== 'number' || !Number.isInteger(dependence))
        invalid(`${w}: graph.history[${round}].dependence is ${shown(dependence)}; it must be a round's index (-1 for the caption) or null.`);
      if (dependence < -1 || dependence > n - 1)
        invalid(
          `${w}: graph.history[${round}].dependence is ${dependence}, outside the dialog; it must be -1 (the caption)${n > 0 ? ` or an earlier round's index (0 to ${n - 1})` : ''}, or null. ${ORIGINAL_FORMAT_HINT}`,
        );
      distance = n - dependence;
    }
    const answer = ownValue(r, 'answer');
    const referents = ownValue(h, 'referents');
    const focus = ownValue(h, 'focus_id');
    return {
      question: text(ownValue(r, 'question'), `${w}: "question"`),
      answer:
        typeof answer === 'string' || (typeof answer === 'number' && Number.isInteger(answer))
          ? String(answer)
          : invalid(`${w}: "answer" is ${describeJson(answer)}; it must be a word or a count.`),
      template: oneOf(ownValue(r, 'template'), QUESTION_LABELS, `${w}: "template"`),
      coref_distance: distance,
      referents:
        referents !== undefined
          ? indexList(referents, `${w}: graph.history[${round}].referents`)
          : focus === undefined || focus === null
            ? []
            : [integer(focus, `${w}: graph.history[${round}].focus_id`)],
      answer_objects: originalObjectIds(ownValue(h, 'objects'), `${w}: graph.history[${round}].objects`),
    };
  });
  return {
    caption: text(ownValue(raw, 'caption'), `${at}: "caption"`),
    caption_template: captionLabel,
    caption_objects: originalObjectIds(ownValue(caption, 'objects'), `${at}: graph.history[0].objects`),
    template_info: [{ label: captionLabel }, ...dialog.map((r) => ({ label: r.template }))],
    dialog,
  };
}

/**
 * Our records in the original's layout, as its generate_dataset.py writes them, so that its readers and ours
 * take them: each round's coreference as graph.history[round].dependence, counts as numbers. What the original
 * has no field for is kept in fields of our own that its readers pass over: a round's `referents` in its
 * history entry. Read back, the records are the same.
 */
export function clevrOriginalDialogsJson(records: readonly ClevrDialogRecord[]): string {
  return `${JSON.stringify(
    records.map((record) => ({
      image_index: record.image_index,
      split: record.split,
      image_filename: record.image_filename,
      dialogs: record.dialogs.map(originalDialog),
    })),
  )}\n`;
}

function originalDialog(dialog: ClevrDialog): object {
  const ids = (objects: readonly number[]) => objects.map((id) => ({ id }));
  const history = [
    { round: 0, template: dialog.caption_template, objects: ids(dialog.caption_objects), mergeable: true },
    ...dialog.dialog.map((r, n) => ({
      round: n + 1,
      template: r.template,
      objects: ids(r.answer_objects),
      referents: r.referents,
      mergeable: true,
      dependence: r.coref_distance === null ? null : n - r.coref_distance,
    })),
  ];
  const known = [...new Set([...dialog.caption_objects, ...dialog.dialog.flatMap((r) => [...r.referents, ...r.answer_objects])])];
  return {
    template_info: [{ label: dialog.caption_template }, ...dialog.dialog.map((r) => ({ label: r.template }))],
    caption: dialog.caption,
    dialog: dialog.dialog.map((r) => ({ question: r.question, answer: /^\d+$/.test(r.answer) ? Number(r.answer) : r.answer, template: r.template })),
    graph: { objects: Object.fromEntries(known.map((id) => [String(id), { id }])), counts: {}, relationships: {}, exists: {}, history },
  };
}

const slotsOf = (text: string) => text.match(/\{[A-Za-z]+\}/g) ?? [];

/**
 * A phrasings file ({"count-all": ["Tell me how many {Ts} the {I} has.", ...], ...}): wording in place of
 * some templates' own. Each text may use only the slots its template's own texts use and the word-only
 * ones (picture, thing), since the generator fills those and no others.
 */
export function parseClevrPhrasings(source: string, fileName: string): Phrasings {
  const json = parseJson(source, fileName);
  if (!isPlainObject(json)) invalid(`${fileName} holds ${describeJson(json)}; a phrasings file is an object from question templates to lists of texts.`);
  const phrasings: Phrasings = {};
  for (const [label, texts] of Object.entries(json)) {
    const known: QuestionLabel = oneOf(label, QUESTION_LABELS, `${fileName}: a key`);
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string' && t.trim() !== ''))
      invalid(
        `${fileName}: "${known}" is ${Array.isArray(texts) && texts.length === 0 ? 'an empty list' : describeJson(texts)}; it must be a non-empty list of question texts.`,
      );
    const allowed = new Set([...QUESTION_TEMPLATES[known].texts.flatMap(slotsOf), ...Object.keys(WORD_SLOTS).map((w) => `{${w}}`)]);
    for (const text of texts as string[]) {
      const unknown = slotsOf(text).filter((slot) => !allowed.has(slot));
      if (unknown.length > 0)
        invalid(
          `${fileName}: "${known}" has ${quoteForMessage(text)}, whose ${unknown.join(', ')} the template does not fill; use only ${[...allowed].join(', ') || 'no slots'}.`,
        );
    }
    phrasings[known] = texts as string[];
  }
  return phrasings;
}
