/**
 * What the CLEVR-Dialog models read, defined once: the Node exporter writes these arrays for the PyTorch
 * recipe (models/scripts/clevr/), and the engine feeds the same arrays to the ONNX models it exported.
 *
 * The image side is either the scene's object features (perfect perception, as the paper's models read
 * CLEVR): per object a one-hot of shape, colour, material and size, and its place in the picture
 * (x / 480, y / 320) and on the floor (x / 3, y / 3); or, for the pixel models, the scene drawn small by
 * render.ts, which a small CNN in the model reads.
 */
import type { ClevrDialog } from './generateDialogs';
import { ATTRIBUTE_VALUES, COLORS, IMAGE_HEIGHT, IMAGE_WIDTH, MATERIALS, SHAPES, SIZES, type Scene } from './scene';
import { renderScene } from './render';
import { clevrTokens } from './clevrStats';
import { GRAMMAR_ANSWERS, QUESTION_TEMPLATES, type QuestionLabel } from './templates';

export const MAX_OBJECTS = 10;
export const OBJECT_FEATURES = SHAPES.length + COLORS.length + MATERIALS.length + SIZES.length + 4;
/** Question tokens; longer questions are cut (the grammar's longest has 17 words). */
export const QUESTION_TOKENS = 20;
/** History rounds: the caption, then up to nine earlier question-answer pairs. */
export const HISTORY_ROUNDS = 10;
export const ROUND_TOKENS = 24;

export const PAD = '<pad>';
export const UNKNOWN = '<unk>';

/** Every answer the grammar can give, in a fixed order: the models' output classes. */
export const CLEVR_ANSWERS: readonly string[] = GRAMMAR_ANSWERS;

/** The count answers are CLEVR_ANSWERS' first ones, "0" to "10": the models' count head fills them. */
export const COUNT_ANSWERS = 11;

export interface ClevrVocabulary {
  readonly words: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

export function vocabulary(words: readonly string[]): ClevrVocabulary {
  return { words, index: new Map(words.map((w, i) => [w, i])) };
}

/** The words of a set of dialogs, in first-seen order after <pad> and <unk>. */
export function buildVocabulary(dialogs: Iterable<ClevrDialog>): ClevrVocabulary {
  const words = [PAD, UNKNOWN];
  const seen = new Set(words);
  const add = (text: string) => {
    for (const w of clevrTokens(text)) {
      if (seen.has(w)) continue;
      seen.add(w);
      words.push(w);
    }
  };
  for (const d of dialogs) {
    add(d.caption);
    for (const r of d.dialog) {
      add(r.question);
      add(r.answer);
    }
  }
  return vocabulary(words);
}

export interface VocabularyCoverage {
  readonly texts: number;
  readonly tokens: number;
  /** Tokens the vocabulary lacks (each read as <unk> by the models). */
  readonly unknownTokens: number;
  /** Texts with at least one such token. */
  readonly textsWithUnknown: number;
  /** The missing words, most frequent first. */
  readonly unknownWords: readonly (readonly [string, number])[];
}

/** How much of some texts the models' vocabulary covers: the words they would read as <unk>. */
export function vocabularyCoverage(texts: Iterable<string>, vocab: ClevrVocabulary): VocabularyCoverage {
  let count = 0;
  let tokens = 0;
  let unknownTokens = 0;
  let textsWithUnknown = 0;
  const missing = new Map<string, number>();
  for (const text of texts) {
    count++;
    let unknownHere = false;
    for (const w of clevrTokens(text)) {
      tokens++;
      if (vocab.index.has(w)) continue;
      unknownTokens++;
      unknownHere = true;
      missing.set(w, (missing.get(w) ?? 0) + 1);
    }
    if (unknownHere) textsWithUnknown++;
  }
  const unknownWords = [...missing.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { texts: count, tokens, unknownTokens, textsWithUnknown, unknownWords };
}

function encodeInto(out: Int32Array, offset: number, length: number, text: string, vocab: ClevrVocabulary): void {
  const unknown = vocab.index.get(UNKNOWN)!;
  const tokens = clevrTokens(text).slice(0, length);
  tokens.forEach((w, i) => (out[offset + i] = vocab.index.get(w) ?? unknown));
}

/** Object features of a scene, MAX_OBJECTS rows (zero rows past the last object) and a mask. */
export function objectFeatures(scene: Pick<Scene, 'objects'>): { features: Float32Array; mask: Float32Array } {
  const features = new Float32Array(MAX_OBJECTS * OBJECT_FEATURES);
  const mask = new Float32Array(MAX_OBJECTS);
  scene.objects.slice(0, MAX_OBJECTS).forEach((o, i) => {
    const row = i * OBJECT_FEATURES;
    let k = 0;
    for (const [values, value] of [
      [SHAPES, o.shape],
      [COLORS, o.color],
      [MATERIALS, o.material],
      [SIZES, o.size],
    ] as const) {
      features[row + k + (values as readonly string[]).indexOf(value)] = 1;
      k += values.length;
    }
    features[row + k] = o.pixel_coords[0] / IMAGE_WIDTH;
    features[row + k + 1] = o.pixel_coords[1] / IMAGE_HEIGHT;
    features[row + k + 2] = o['3d_coords'][0] / 3;
    features[row + k + 3] = o['3d_coords'][1] / 3;
    mask[i] = 1;
  });
  return { features, mask };
}

/**
 * The picture the pixel models read: the scene drawn at a fifth of CLEVR's 480x320, 2x2 rays a pixel
 * (about 10 ms in Node), channel by channel (red rows, then green, then blue), 0-255.
 */
export const PIXEL_WIDTH = 96;
export const PIXEL_HEIGHT = 64;

export function scenePixels(scene: Pick<Scene, 'objects'>): Uint8Array {
  const { data } = renderScene(scene.objects, PIXEL_WIDTH, PIXEL_HEIGHT, 2);
  const plane = PIXEL_WIDTH * PIXEL_HEIGHT;
  const pixels = new Uint8Array(3 * plane);
  for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) pixels[c * plane + i] = data[4 * i + c]!;
  return pixels;
}

/** The pixels as the model's input: each value / 255, as the recipe scales them. */
export function pixelInputs(pixels: Uint8Array): Float32Array {
  return Float32Array.from(pixels, (v) => v / 255);
}

export interface RoundInputs {
  /** [QUESTION_TOKENS] token ids, 0 = <pad>. */
  readonly question: Int32Array;
  /** [HISTORY_ROUNDS, ROUND_TOKENS]: the caption, then "question answer" of each earlier round. */
  readonly history: Int32Array;
}

/** The inputs for round `n` (0-based) of a dialog: its question and everything said before it. */
export function roundInputs(caption: string, earlier: readonly { question: string; answer: string }[], question: string, vocab: ClevrVocabulary): RoundInputs {
  const q = new Int32Array(QUESTION_TOKENS);
  encodeInto(q, 0, QUESTION_TOKENS, question, vocab);
  const history = new Int32Array(HISTORY_ROUNDS * ROUND_TOKENS);
  encodeInto(history, 0, ROUND_TOKENS, caption, vocab);
  // With more than nine earlier rounds the oldest are dropped (the grammar's dialogs have ten rounds).
  earlier.slice(-(HISTORY_ROUNDS - 1)).forEach((r, i) => encodeInto(history, (i + 1) * ROUND_TOKENS, ROUND_TOKENS, `${r.question} ${r.answer}`, vocab));
  return { question: q, history };
}

/**
 * The answers a question of this template can have (the Random-Q baseline draws among them, as the
 * paper's samples within the question type): counts, yes/no, or the values of the attribute it asks.
 */
export function answersForQuestion(template: QuestionLabel, question: string): readonly string[] {
  const family = QUESTION_TEMPLATES[template].family;
  if (family === 'count') return CLEVR_ANSWERS.slice(0, COUNT_ANSWERS);
  if (family === 'exist') return ['yes', 'no'];
  const words = clevrTokens(question);
  const attribute = (Object.keys(ATTRIBUTE_VALUES) as (keyof typeof ATTRIBUTE_VALUES)[]).find((a) => words.includes(a));
  return attribute ? ATTRIBUTE_VALUES[attribute] : CLEVR_ANSWERS.slice(13);
}
