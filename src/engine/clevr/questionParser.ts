/**
 * Reads a typed question with the dialog grammar itself: each template's wording becomes a pattern,
 * the slots are read back into attributes, relations and objects, and the template's constraints are
 * checked against the scene and the dialog state. What it cannot read gets a sentence that says why.
 */
import { type Description, type DialogState, type QuestionPlan, WORD_SLOTS, attributeGroup } from './dialogGrammar';
import { ATTRIBUTE_NAMES, ATTRIBUTE_VALUES, type AttributeName, RELATIONS, type Relation, type Scene } from './scene';
import {
  EARLIER_WORDS,
  PLURAL,
  QUESTION_LABELS,
  QUESTION_TEMPLATES,
  type QuestionLabel,
  RELATION_TO_IT,
  RELATION_TO_NAMED,
  THING_WORDS,
  VALUE_WORDS,
} from './templates';

export type ParsedQuestion = { ok: true; plan: QuestionPlan } | { ok: false; reason: string };

/** Lower case, one space between words, no end punctuation, British spellings folded. */
function normalizeQuestion(text: string): string {
  return text
    .toLowerCase()
    .replace(/colour/g, 'color')
    .replace(/grey/g, 'gray')
    .replace(/[?.!]+\s*$/, '')
    .replace(/[,:;]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

interface CompiledTemplate {
  readonly label: QuestionLabel;
  readonly pattern: RegExp;
}

/** Slots with a closed set of words match only those, so two slots side by side split one way. */
const SLOT_PATTERN: Record<string, string> = {
  R: Object.values(RELATION_TO_NAMED).flat().join('|'),
  P: Object.values(RELATION_TO_IT).flat().join('|'),
  A: ATTRIBUTE_NAMES.join('|'),
  E: `(?:${EARLIER_WORDS.join('|')}) [a-z0-9 ]+?`,
};

const COMPILED: readonly CompiledTemplate[] = QUESTION_LABELS.flatMap((label) =>
  QUESTION_TEMPLATES[label].texts.map((text) => {
    // Slot names keep their case ({A}, {dd}): they are set aside while the words are normalized as typed text is.
    const slots: string[] = [];
    const source = normalizeQuestion(text.replace(/\{(\w+)\}/g, (_, slot: string) => `\u0000${slots.push(slot) - 1}\u0001`))
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\u0000(\d+)\u0001/g, (_, k: string) => {
        const slot = slots[Number(k)]!;
        // A word-only slot is matched and never read, so a template may use it twice.
        const words = WORD_SLOTS[slot];
        if (words) return `(?:${words.join('|')})`;
        return `(?<${slot}>${SLOT_PATTERN[slot] ?? '[a-z0-9 ]+?'})`;
      });
    return { label, pattern: new RegExp(`^${source}$`) };
  }),
);

/** Canonical value of a word ("ball" -> "sphere", "shiny" -> "metal"), with the attribute it belongs to. */
function valueOf(word: string): { attribute: AttributeName; value: string } | null {
  for (const attribute of ATTRIBUTE_NAMES) {
    for (const value of ATTRIBUTE_VALUES[attribute]) {
      const words = VALUE_WORDS[value] ?? [value];
      if (words.includes(word) || words.some((w) => PLURAL[w] === word)) return { attribute, value };
    }
  }
  return null;
}

/** "large red metal cubes" -> {size, color, material, shape}; "things" -> {}; null if a word is not a description word. */
function parseDescription(text: string): Description | null {
  // "round thing" is a sphere's one two-word name: read as one word.
  const words = text
    .replace(/\bround thing/g, 'ball')
    .split(' ')
    .filter((w) => w !== '');
  if (words[0] === 'a' || words[0] === 'an' || words[0] === 'the' || words[0] === 'any') words.shift();
  if (words.length === 0) return null;
  const description: Description = {};
  for (const word of words) {
    if ((THING_WORDS as readonly string[]).includes(word) || THING_WORDS.some((t) => PLURAL[t] === word)) continue;
    const v = valueOf(word);
    if (!v || description[v.attribute] !== undefined) return null;
    description[v.attribute] = v.value;
  }
  return description;
}

function relationFrom(phrase: string, table: Record<Relation, readonly string[]>): Relation | null {
  return RELATIONS.find((r) => table[r].includes(phrase)) ?? null;
}

function attributeFrom(word: string): AttributeName | null {
  return (ATTRIBUTE_NAMES as readonly string[]).includes(word) ? (word as AttributeName) : null;
}

const EARLIER_PHRASE = new RegExp(`^(?:${EARLIER_WORDS.join('|')}) (.+)$`);

/** "the earlier red cube": the one mentioned object the dialog has said fits it (what it told, not what the picture shows). */
function earlierObject(phrase: string, state: DialogState): { index: number; description: Description } | { error: string } {
  const m = EARLIER_PHRASE.exec(phrase);
  const description = m ? parseDescription(m[1]!) : null;
  if (!description) return { error: `"${phrase}" should name an object mentioned before, as "the earlier red cube".` };
  const found = [...state.mentioned.entries()].filter(([, o]) => ATTRIBUTE_NAMES.every((a) => description[a] === undefined || o.known[a] === description[a]));
  if (found.length === 1) return { index: found[0]![0], description };
  if (found.length === 0) return { error: `No ${m![1]} has been mentioned yet in this dialog, so "${phrase}" points at nothing.` };
  return { error: `More than one ${m![1]} has been mentioned, so "${phrase}" is not clear: add its colour, size or material.` };
}

const NO_GROUP = 'No group of objects has been mentioned that "them" could mean. Ask how many of some kind there are first.';

function planFor(label: QuestionLabel, slots: Record<string, string>, scene: Scene, state: DialogState): ParsedQuestion {
  const focus = state.focus;
  const needFocus = (): ParsedQuestion | null =>
    focus === null ? { ok: false, reason: 'Nothing has been mentioned that "it" could mean yet. Ask about an object first.' } : null;
  const needGroup = (): ParsedQuestion | null => (state.group && state.group.members.length >= 2 ? null : { ok: false, reason: NO_GROUP });
  const attribute = slots.A === undefined ? undefined : attributeFrom(slots.A);
  if (slots.A !== undefined && !attribute)
    return { ok: false, reason: `"${slots.A}" is not something the grammar asks about; ask about the colour, shape, size or material.` };
  const relationIt = slots.P === undefined ? undefined : relationFrom(slots.P, RELATION_TO_IT);
  if (slots.P !== undefined && !relationIt)
    return { ok: false, reason: `"${slots.P}" is not a direction the grammar knows; say "to its left", "to its right", "in front of it" or "behind it".` };
  const relationNamed = slots.R === undefined ? undefined : relationFrom(slots.R, RELATION_TO_NAMED);
  if (slots.R !== undefined && !relationNamed)
    return { ok: false, reason: `"${slots.R}" is not a direction the grammar knows; say "to the left of", "to the right of", "in front of" or "behind".` };
  const earlier = slots.E === undefined ? undefined : earlierObject(slots.E, state);
  if (earlier && 'error' in earlier) return { ok: false, reason: earlier.error };
  const earlierIndex = earlier && 'index' in earlier ? earlier.index : undefined;
  const earlierDescription = earlier && 'index' in earlier ? earlier.description : undefined;
  const last = state.history[state.history.length - 1];

  switch (label) {
    case 'count-all-group': {
      const missing = needGroup();
      return missing ?? { ok: true, plan: { label, usesGroup: true } };
    }
    case 'count-all':
    case 'count-other':
    case 'exist-other':
      if (label !== 'count-all' && state.mentioned.size === 0 && !state.group)
        return { ok: false, reason: 'Nothing has been mentioned yet, so "other" objects means every object; ask how many objects there are.' };
      return { ok: true, plan: { label } };
    case 'count-attribute':
    case 'exist-attribute': {
      const description = parseDescription(slots.D ?? slots.d ?? '');
      if (!description || Object.keys(description).length === 0)
        return { ok: false, reason: `"${slots.D ?? slots.d}" is not a description the grammar knows, as "red cubes" or "small metal things".` };
      return { ok: true, plan: { label, description } };
    }
    case 'count-attribute-group':
    case 'exist-attribute-group': {
      // The grammar's own rule: after a yes/no question one object found is a group too.
      if (attributeGroup(state) === null) return { ok: false, reason: NO_GROUP };
      const v = valueOf((slots.V ?? '').replace(/^an? /, ''));
      if (!v) return { ok: false, reason: `"${slots.V}" is not a colour, shape, size or material.` };
      return { ok: true, plan: { label, attribute: v.attribute, value: v.value, usesGroup: true } };
    }
    case 'count-obj-rel-imm':
    case 'exist-obj-rel-imm':
    case 'count-obj-rel-imm2':
    case 'exist-obj-rel-imm2': {
      if (label.endsWith('imm2')) {
        // "And to its right?" keeps the object the last question of the same kind asked about.
        if (!last || !last.label.includes('obj-rel-imm') || last.label.slice(0, 5) !== label.slice(0, 5) || last.focus === null)
          return { ok: false, reason: `"And ${slots.P}?" follows a question about what is around it; ask that first.` };
        return { ok: true, plan: { label, referent: last.focus, relation: relationIt! } };
      }
      return needFocus() ?? { ok: true, plan: { label, referent: focus!, relation: relationIt! } };
    }
    case 'count-obj-rel-early':
    case 'exist-obj-rel-early':
      // "For the earlier cube, how many things are to its left?" says the direction as to "it".
      return { ok: true, plan: { label, referent: earlierIndex!, relation: (relationNamed ?? relationIt)!, description: earlierDescription } };
    case 'count-obj-exclude-imm':
    case 'exist-obj-exclude-imm': {
      const missing = needFocus();
      return missing ?? { ok: true, plan: { label, referent: focus!, attribute: attribute! } };
    }
    case 'count-obj-exclude-early':
    case 'exist-obj-exclude-early':
      return { ok: true, plan: { label, referent: earlierIndex!, attribute: attribute!, description: earlierDescription } };
    case 'seek-attr-imm':
    case 'seek-attr-imm2': {
      const missing = needFocus();
      return missing ?? { ok: true, plan: { label, referent: focus!, attribute: attribute! } };
    }
    case 'seek-attr-early':
      return { ok: true, plan: { label, referent: earlierIndex!, attribute: attribute!, description: earlierDescription } };
    case 'seek-attr-sim-early':
      // "And the earlier cube?" asks again what the last question asked.
      if (!last || (last.label !== 'seek-attr-imm' && last.label !== 'seek-attr-imm2') || last.asked === null)
        return { ok: false, reason: `"${slots.E}" on its own follows a question that asked its colour, shape, size or material; ask that first.` };
      return { ok: true, plan: { label, referent: earlierIndex!, attribute: last.asked, description: earlierDescription } };
    case 'seek-attr-rel-imm':
    case 'seek-attr-rel-early': {
      const from = label === 'seek-attr-rel-imm' ? focus : earlierIndex!;
      if (from === null) return { ok: false, reason: 'Nothing has been mentioned that "it" could mean yet. Ask about an object first.' };
      // The nearest object that way answers; with nothing there the answer is "none".
      const relation = (label === 'seek-attr-rel-imm' ? relationIt : (relationNamed ?? relationIt))!;
      return {
        ok: true,
        plan: { label, referent: from, relation, attribute: attribute!, description: label === 'seek-attr-rel-imm' ? undefined : earlierDescription },
      };
    }
  }
}

/** The question as a plan of the grammar, or why it cannot be one. */
export function parseQuestion(text: string, scene: Scene, state: DialogState): ParsedQuestion {
  const normalized = normalizeQuestion(text);
  if (normalized === '') return { ok: false, reason: 'Type a question about the picture.' };
  let firstFailure: ParsedQuestion | null = null;
  for (const { label, pattern } of COMPILED) {
    const m = pattern.exec(normalized);
    if (!m) continue;
    const parsed = planFor(label, { ...m.groups }, scene, state);
    if (parsed.ok) return parsed;
    firstFailure ??= parsed;
  }
  return (
    firstFailure ?? {
      ok: false,
      reason: `The dialog grammar cannot read "${text.trim()}". It asks how many, whether there is, and what colour, shape, size or material things are.`,
    }
  );
}
