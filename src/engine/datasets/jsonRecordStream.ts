import { EngineError } from '../errors';
import { JSON_CHAR, formatCount, invalid, isJsonWhitespace, quoteForMessage, shortErrorText } from './validation';

const {
  quote: QUOTE,
  backslash: BACKSLASH,
  lbrace: LBRACE,
  rbrace: RBRACE,
  lbracket: LBRACKET,
  rbracket: RBRACKET,
  comma: COMMA,
  newline: NEWLINE,
  bom: BOM,
} = JSON_CHAR;

/** Where a record stands, for the format's own messages. */
export interface RecordPlace {
  /** 0-based, like an array index. */
  readonly index: number;
  /** The line the record starts on, in JSON Lines only (in an array, records may share lines). */
  readonly line: number | undefined;
}

/** The sentences that name the format; the rest of the scanner's messages are the same for every format. */
export interface RecordStreamWording {
  /** The reader's name, for "X for FILE was already ended." */
  readonly readerName: string;
  /** Follows "FILE is empty. " */
  readonly whenEmpty: string;
  /** Follows "FILE has no records. " */
  readonly whenNoRecords: string;
  /** Follows "FILE is longer than N characters, more than this app reads at once. " */
  readonly whenTooLong: string;
  /** Follows "FILE is neither a JSON array of records nor JSON Lines: it starts with X. " */
  readonly expectedShape: string;
  /** Follows "PLACE nests brackets more than N levels deep; " */
  readonly whenTooDeep: string;
}

export interface RecordStreamOptions<T> {
  /** Name used in messages, e.g. "test/conversations.json". */
  readonly file: string;
  readonly maxRecords: number;
  readonly maxTotalChars: number;
  readonly maxDepth: number;
  readonly wording: RecordStreamWording;
  /** Checks one parsed record and makes it what the reader returns; throws to stop the stream. */
  readonly read: (value: unknown, place: RecordPlace) => T;
}

/** 'start': nothing but whitespace yet; 'array': inside [ ... ]; 'lines': JSON Lines; 'closed': after the final ]. */
type ScanMode = 'start' | 'array' | 'lines' | 'closed';

/**
 * Reads a file of JSON records piece by piece: either a JSON array of records or JSON Lines (one record
 * a line). Each record is cut out of the text by tracking strings, escapes and bracket depth, then parsed
 * and handed to `read` on its own, so a large file never has to be one string and errors name the record.
 * After its first error the stream stays failed, so a caller cannot read on past a bad record.
 */
export class JsonRecordStream<T> {
  private readonly options: RecordStreamOptions<T>;
  private mode: ScanMode = 'start';
  private totalChars = 0;
  private line = 1;
  /** Records read so far, which is also the index of the next one. */
  private count = 0;
  /** What the first failing step threw (boxed, as anything can be thrown); every later step throws it again. */
  private failure: { thrown: unknown } | null = null;
  private ended = false;
  // The record being cut out.
  private inRecord = false;
  private parts: string[] = [];
  private recordLine = 1;
  private readonly openers: number[] = [];
  private inString = false;
  private escaped = false;
  /** Array mode: after "[" or ",", before the next record. */
  private expectRecord = true;

  constructor(options: RecordStreamOptions<T>) {
    this.options = options;
  }

  /** Feeds the next piece of text; returns the records completed by it. */
  push(chunk: string): T[] {
    return this.guard(() => this.scan(chunk));
  }

  /** Says the text is complete; returns the last record of a JSON Lines file without a final newline. */
  end(): T[] {
    return this.guard(() => {
      const { file, wording } = this.options;
      this.ended = true;
      const out: T[] = [];
      if (this.mode === 'lines' && this.inRecord) this.finishRecord('', out, true);
      if (this.mode === 'start') invalid(`${file} is empty. ${wording.whenEmpty}`);
      if (this.mode === 'array') {
        if (this.inRecord) {
          invalid(
            `${file} ends in the middle of record ${this.count} (which starts on line ${this.recordLine}): the file is cut off or a closing bracket is missing. Copy or export the file again.`,
          );
        }
        invalid(
          `${file} ends without the closing "]" of the record list (after record ${this.count - 1}): the file is cut off. Copy or export the file again.`,
        );
      }
      if (this.count === 0) invalid(`${file} has no records. ${wording.whenNoRecords}`);
      return out;
    });
  }

  private guard(step: () => T[]): T[] {
    if (this.failure) throw this.failure.thrown;
    if (this.ended) throw new EngineError('invalid-input', `${this.options.wording.readerName} for ${this.options.file} was already ended.`);
    try {
      return step();
    } catch (error) {
      this.failure = { thrown: error };
      throw error;
    }
  }

  private scan(chunk: string): T[] {
    const { file, wording, maxDepth } = this.options;
    const out: T[] = [];
    const offset = this.totalChars;
    this.totalChars += chunk.length;
    if (this.totalChars > this.options.maxTotalChars) {
      invalid(`${file} is longer than ${formatCount(this.options.maxTotalChars)} characters, more than this app reads at once. ${wording.whenTooLong}`);
    }
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inRecord) {
        if (this.mode === 'lines' && c === NEWLINE) {
          // A JSON Lines record ends at its newline whatever else is open; JSON.parse reports the rest.
          this.finishRecord(chunk.slice(start, i), out);
        } else if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) this.inString = false;
        } else if (c === QUOTE) this.inString = true;
        else if (c === LBRACE || c === LBRACKET) {
          this.openers.push(c);
          if (this.openers.length > maxDepth) invalid(`${this.recordPlace()} nests brackets more than ${maxDepth} levels deep; ${wording.whenTooDeep}`);
        } else if (c === RBRACE || c === RBRACKET) {
          const opener = this.openers.pop();
          if (opener === undefined) {
            if (this.mode === 'array' && c === RBRACKET) {
              // "]" right after a bare value such as [1, 2]: the value ends and so does the list.
              this.finishRecord(chunk.slice(start, i), out);
              this.mode = 'closed';
            } else invalid(`${this.recordPlace()} is not valid JSON: "${String.fromCharCode(c)}" on line ${this.line} closes a bracket that was never opened.`);
          } else if (opener !== (c === RBRACE ? LBRACE : LBRACKET)) {
            invalid(
              `${this.recordPlace()} is not valid JSON: "${String.fromCharCode(c)}" on line ${this.line} closes a "${String.fromCharCode(opener)}". Check the brackets of that record.`,
            );
          } else if (this.openers.length === 0 && this.mode === 'array') {
            this.finishRecord(chunk.slice(start, i + 1), out);
            this.expectRecord = false;
          }
        } else if (c === COMMA && this.mode === 'array' && this.openers.length === 0) {
          this.finishRecord(chunk.slice(start, i), out);
          this.expectRecord = true;
        }
      } else if (isJsonWhitespace(c) || (c === BOM && offset + i === 0)) {
        // between records
      } else if (this.mode === 'start') {
        if (c === LBRACKET) this.mode = 'array';
        else if (c === LBRACE) {
          this.mode = 'lines';
          start = this.beginRecord(i);
          i--; // the "{" is read again, as the record's first character
          continue;
        } else {
          invalid(
            `${file} is neither a JSON array of records nor JSON Lines: it starts with ${quoteForMessage(chunk.slice(i, i + 20))}. ${wording.expectedShape}`,
          );
        }
      } else if (this.mode === 'array') {
        if (c === COMMA) {
          if (this.expectRecord) invalid(`${file} has an extra comma on line ${this.line}, before record ${this.count}. Remove it.`);
          this.expectRecord = true;
        } else if (c === RBRACKET) {
          if (this.expectRecord && this.count > 0)
            invalid(`${file} has a comma after the last record (line ${this.line}). Remove it; JSON does not allow trailing commas.`);
          this.mode = 'closed';
        } else {
          if (!this.expectRecord) invalid(`${file} is missing a comma between record ${this.count - 1} and record ${this.count} (line ${this.line}).`);
          start = this.beginRecord(i);
          i--;
          continue;
        }
      } else if (this.mode === 'lines') {
        start = this.beginRecord(i);
        i--;
        continue;
      } else {
        invalid(`${file} has more text after the closing "]" of the record list (line ${this.line}). Remove it, or put all records inside the list.`);
      }
      if (c === NEWLINE) this.line++;
    }
    if (this.inRecord) this.parts.push(chunk.slice(start));
    return out;
  }

  private beginRecord(at: number): number {
    if (this.count >= this.options.maxRecords) {
      invalid(`${this.options.file} has more than ${formatCount(this.options.maxRecords)} records, more than this app reads at once. Use a smaller split.`);
    }
    this.inRecord = true;
    this.recordLine = this.line;
    return at;
  }

  /** "test/conversations.json, record 3 (line 4)": where the record being read starts. */
  private recordPlace(): string {
    return `${this.options.file}, record ${this.count} (line ${this.recordLine})`;
  }

  private finishRecord(tail: string, out: T[], last = false): void {
    const text = this.parts.length > 0 ? this.parts.join('') + tail : tail;
    const place = this.recordPlace();
    this.parts = [];
    this.inRecord = false;
    this.openers.length = 0;
    this.inString = false;
    this.escaped = false;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (cause) {
      // The depth check above keeps RangeError (too deep) from happening; it is reported the same way if it does.
      const cutOff = last ? ' It is the last line, so the file may be cut off.' : '';
      invalid(`${place} is not valid JSON (${shortErrorText(cause)}). Check that record for a missing comma, quote or bracket.${cutOff}`, cause);
    }
    out.push(this.options.read(value, { index: this.count, line: this.mode === 'lines' ? this.recordLine : undefined }));
    this.count++;
  }
}

/** Whether a parsed value nests objects and arrays more than `max` levels deep (the value itself is level 1). */
function nestsDeeperThan(value: unknown, max: number, level = 1): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > max) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (nestsDeeperThan(child, max, level + 1)) return true;
  return false;
}

/**
 * A whole text that is one JSON array of records, read at native speed: JSON.parse, then `read` on
 * each record in order, as the stream would hand them over. Null for anything else (JSON Lines, a
 * BOM, invalid JSON, too long, no records or too many, a record nested too deep, or one that `read`
 * refuses): the caller then streams the text, whose messages name the record and the line. The stream
 * cuts every record out character by character, about 0.1 s for the demo's 1.4 MB train split in
 * Node and several times that in a worker still warming up while the model loads (issue 38).
 */
export function readWholeJsonArray<T>(
  text: string,
  limits: Pick<RecordStreamOptions<T>, 'maxRecords' | 'maxTotalChars' | 'maxDepth'>,
  read: (value: unknown, place: RecordPlace) => T,
): T[] | null {
  if (text.length > limits.maxTotalChars || text.charCodeAt(0) !== LBRACKET) return null;
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(values) || values.length === 0 || values.length > limits.maxRecords) return null;
  if (values.some((value) => nestsDeeperThan(value, limits.maxDepth))) return null;
  try {
    return values.map((value, index) => read(value, { index, line: undefined }));
  } catch {
    return null;
  }
}
