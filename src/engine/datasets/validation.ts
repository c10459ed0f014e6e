import { EngineError, errorMessage } from '../errors';

/**
 * What every dataset reader checks before it looks at its own format: bytes that must be UTF-8, whole
 * JSON documents that must not nest without end, plain JSON objects, media keys, and the one error
 * ('dataset-invalid') whose message says where and what to do.
 */

// Available in browsers, workers and Node; declared here because the engine compiles without DOM types.
declare const TextDecoder: new (label: string, options: { ignoreBOM: boolean }) => { decode(bytes: Uint8Array): string };

/** Brackets a reader accepts; deeper input is junk that could exhaust the stack of JSON.parse. */
export const JSON_NESTING_LIMIT = 64;

/** Character codes the JSON scanners look for. */
export const JSON_CHAR = {
  quote: 0x22,
  backslash: 0x5c,
  lbrace: 0x7b,
  rbrace: 0x7d,
  lbracket: 0x5b,
  rbracket: 0x5d,
  comma: 0x2c,
  newline: 0x0a,
  bom: 0xfeff,
} as const;

const MEDIA_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Says what a media key may look like, to follow "is not a valid media key: ". */
export const MEDIA_KEY_RULE = 'keys are 1 to 128 letters, digits, "_", "." or "-", starting with a letter or digit (so no slashes, spaces or leading dots)';

/** A key that is safe as a file name stem and in a URL: no path separators, so no traversal. */
export function isMediaKey(value: unknown): value is string {
  return typeof value === 'string' && MEDIA_KEY.test(value);
}

/** A JSON object made by JSON.parse or a literal; class instances and objects with odd prototypes are refused. */
export function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reads one own property; inherited ones (say, through a crafted __proto__) never count. */
export function ownValue(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** "a string", "an array"... for "X is a string, not an array." */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'an object with an unusual prototype';
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value}`;
}

/** Quotes a value from the file for a message, shortened so that a huge string cannot flood it. */
export function quoteForMessage(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** 10485760 → "10,485,760", without depending on the locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Throws the 'dataset-invalid' error every dataset reader uses: the message says where and what to do. */
export function invalid(message: string, cause?: unknown): never {
  throw new EngineError('dataset-invalid', message, cause === undefined ? undefined : { cause });
}

/** A parser's own message, cut short: JSON.parse may quote a whole line of the file. */
export function shortErrorText(error: unknown): string {
  const text = errorMessage(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Where UTF-8 breaks: the offset of the first byte that does not start a well-formed sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Uint8Array): { offset: number; cutOff: boolean } | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // How many continuation bytes follow the lead byte, and the allowed range of the first of them;
    // the narrowed ranges rule out overlong forms, surrogates and code points past U+10FFFF.
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
    else if (b === 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (b === 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) {
      need = 3;
      hi = 0x8f;
    } else return { offset: i, cutOff: false };
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return { offset: i, cutOff: true };
      const next = bytes[i + k]!;
      if (next < (k === 1 ? lo : 0x80) || next > (k === 1 ? hi : 0xbf)) return { offset: i, cutOff: false };
    }
    i += need + 1;
  }
  return null;
}

/**
 * Decodes a UTF-8 file, refusing anything else: a Latin-1 or UTF-16 file would otherwise turn into
 * mojibake silently. A leading byte order mark is dropped.
 */
export function decodeUtf8Strict(bytes: Uint8Array, file: string): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad) {
    const hex = bytes[bad.offset]!.toString(16).padStart(2, '0');
    const note = bad.cutOff ? ' (the file ends in the middle of a character)' : '';
    invalid(`${file} is not UTF-8: byte ${bad.offset} (0x${hex}) is invalid${note}. Save the file as UTF-8.`);
  }
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  // ignoreBOM keeps the decoder from dropping a second BOM after we dropped the first.
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(hasBom ? bytes.subarray(3) : bytes);
}

/** Deepest bracket nesting outside strings, stopping early once past `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === JSON_CHAR.backslash) i++;
      else if (c === JSON_CHAR.quote) inString = false;
    } else if (c === JSON_CHAR.quote) inString = true;
    else if (c === JSON_CHAR.lbrace || c === JSON_CHAR.lbracket) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === JSON_CHAR.rbrace || c === JSON_CHAR.rbracket) depth--;
  }
  return deepest;
}

/**
 * JSON.parse for a whole small file (media.json, texts.json) with the file named in errors. Nesting is
 * checked first because JSON.parse on deeply nested junk throws a RangeError or exhausts the stack.
 */
export function parseJsonDocument(text: string, file: string, maxDepth: number = JSON_NESTING_LIMIT): unknown {
  const body = text.charCodeAt(0) === JSON_CHAR.bom ? text.slice(1) : text;
  if (body.trim() === '') invalid(`${file} is empty. Export the file again.`);
  if (nestingDepth(body, maxDepth) > maxDepth) {
    invalid(`${file} nests brackets more than ${maxDepth} levels deep, so it is not a file this app can read. Check that it is the right file.`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    invalid(`${file} is not valid JSON (${shortErrorText(cause)}). Check the file for a missing comma, quote or bracket, or export it again.`, cause);
  }
}
