import type { CorpusFile } from '../conversations/corpus';
import { EngineError } from '../errors';
import { type AvsdDialogue, parseAvsd } from './avsd';
import { type CaptionSet, parseCaptionCsv, parseCocoCaptions } from './captionSets';
import { parseDailyDialog } from './dailyDialog';
import { type DialogueRecord, parseConversations } from './mmdialog';
import { type PolyaiExample, parsePolyaiJsonl } from './polyai';
import { type PoolMediaItem, type PoolText, parseMediaCatalogue, parseTextCatalogue, parseUtteranceFile } from './poolCatalogue';
import { parseTopicalChat } from './topicalChat';
import { parseJsonDocument } from './validation';
import { type VisdialData, parseVisdial } from './visdial';

/**
 * Every dataset file format the project reads, in one table: what it is called in a message, how a
 * file's name or its opening text gives it away, and its reader. The page's dataset import, the
 * conversation corpora and the Node benchmarks all decide and read through it, so adding a format
 * is a row here and its reader.
 */

/** What the rest of a dataset tells a reader: MMDialog records check their media keys against the images beside them. */
interface DatasetReadContext {
  readonly hasMedia?: (key: string) => boolean;
}

interface DatasetFormat<T> {
  /** The file as a person names it, for messages: "DailyDialog's dialogues_text.txt". */
  readonly what: string;
  /** Whether a file name marks this format; a dropped folder is planned from its paths alone, before anything is read. */
  readonly named: (fileName: string) => boolean;
  /** Whether a file's text looks like this format (each sniffs only as far into the text as it needs). */
  readonly looksLike: (text: string) => boolean;
  /** Reads the whole file; a file of the wrong shape is refused with a sentence naming the file, record and field. */
  readonly read: (text: string, file: string, context: DatasetReadContext) => T;
}

const lower = (fileName: string) => fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase();
const nameIs =
  (...names: string[]) =>
  (fileName: string) =>
    names.includes(lower(fileName));
const nameEndsWith =
  (...endings: string[]) =>
  (fileName: string) =>
    endings.some((end) => lower(fileName).endsWith(end));
/** A format told apart by its name alone: any text could be one. */
const noSignature = () => false;

/**
 * The formats, in the order detection tries them: a more specific signature before a looser one
 * (VisDial's answer_options before AVSD's dialogs-with-captions).
 */
export const DATASET_FORMATS = {
  mmdialog: {
    what: 'MMDialog conversations (conversations.json: records of "conversation" turns, as a JSON array or JSON Lines)',
    named: (fileName: string) => nameIs('conversations.json', 'conversations.jsonl')(fileName) || nameEndsWith('.conversations.json')(fileName),
    looksLike: (text: string) => /"conversation"\s*:\s*\[\s*\{\s*"turn"\s*:/.test(text.slice(0, 20_000)),
    read: (text: string, file: string, context: DatasetReadContext): DialogueRecord[] =>
      parseConversations(text, context.hasMedia ? { file, hasMedia: context.hasMedia } : { file }),
  },
  'media-catalogue': {
    what: 'an image catalogue (media.json: {"version": 1, "items": [{"key", "file", "alt", ...}]})',
    named: nameIs('media.json'),
    looksLike: (text: string) => /"items"\s*:\s*\[\s*(\{\s*"key"\s*:|\])/.test(text.slice(0, 2000)),
    read: (text: string, file: string): PoolMediaItem[] => parseMediaCatalogue(parseJsonDocument(text, file), { file, allowEmpty: true }),
  },
  'pool-texts': {
    what: 'a text pool (texts.json: {"version": 1, "texts": [{"id", "text"}, ...]})',
    named: nameIs('texts.json'),
    looksLike: (text: string) => /"texts"\s*:\s*\[\s*(\{\s*"id"\s*:|\])/.test(text.slice(0, 200_000)),
    read: (text: string, file: string): PoolText[] => parseTextCatalogue(parseJsonDocument(text, file), { file }),
  },
  dailydialog: {
    what: "DailyDialog's dialogues_text.txt",
    named: nameIs('dialogues_text.txt'),
    looksLike: (text: string) => /__eou__/.test(text.slice(0, 20_000)),
    read: (text: string, file: string): CorpusFile => {
      const { dialogues, skipped } = parseDailyDialog(text, file);
      return { conversations: dialogues.map((d) => ({ id: `line-${d.line}`, turns: d.turns })), skipped };
    },
  },
  'topical-chat': {
    what: 'a Topical-Chat file such as test_freq.json',
    named: nameIs('train.json', 'valid_freq.json', 'valid_rare.json', 'test_freq.json', 'test_rare.json'),
    looksLike: (text: string) =>
      /^\s*\{\s*"t_[0-9a-f-]+"\s*:\s*\{/.test(text.slice(0, 2000)) || /"content"\s*:\s*\[\s*\{\s*"message"/.test(text.slice(0, 5000)),
    read: (text: string, file: string): CorpusFile => parseTopicalChat(text, file),
  },
  polyai: {
    what: 'PolyAI JSON lines',
    named: nameEndsWith('.jsonl'),
    looksLike: (text: string) => /^\s*\{[^\n]*"context"\s*:/.test(text.slice(0, 20_000)) && /"response"\s*:/.test(text.slice(0, 20_000)),
    read: (text: string, file: string): PolyaiExample[] => parsePolyaiJsonl(text, file),
  },
  visdial: {
    what: "VisDial v1.0's visdial_1.0_val.json",
    named: (fileName: string) => /^visdial_1\.0_\w+\.json$/.test(lower(fileName)),
    // {"version", "data": {"dialogs": [{... "answer_options": [...]}]}}: the options come early in the first dialog.
    looksLike: (text: string) => /"data"\s*:/.test(text.slice(0, 5000)) && /"answer_options"/.test(text.slice(0, 200_000)),
    read: (text: string, file: string): VisdialData => parseVisdial(parseJsonDocument(text, file), file),
  },
  avsd: {
    what: "DSTC7 AVSD's lbl_test_set4DSTC7-AVSD.json",
    named: (fileName: string) => /avsd.*\.json$/.test(lower(fileName)),
    // {"type": "scene_aware_dialog", "dialogs": [{"image_id", "caption", "dialog": [{"question", "answer"}]}]}
    looksLike: (text: string) =>
      /"scene_aware_dialog"/.test(text.slice(0, 2000)) ||
      (/"dialogs"\s*:/.test(text.slice(0, 5000)) && /"caption"\s*:/.test(text.slice(0, 5000)) && !/"answer_options"/.test(text.slice(0, 200_000))),
    read: (text: string, file: string): AvsdDialogue[] => parseAvsd(parseJsonDocument(text, file), file),
  },
  'coco-captions': {
    what: 'COCO captions JSON ({"images": [{"id", "file_name"}], "annotations": [{"image_id", "caption"}]})',
    named: (fileName: string) => /^captions.*\.json$/.test(lower(fileName)),
    looksLike: (text: string) => /"annotations"\s*:/.test(text) && /"file_name"\s*:/.test(text.slice(0, 200_000)),
    read: (text: string, file: string): CaptionSet => parseCocoCaptions(parseJsonDocument(text, file), file),
  },
  'caption-csv': {
    what: 'an image,caption CSV',
    named: nameEndsWith('.csv'),
    looksLike: (text: string) => /^\uFEFF?\s*"?image"?\s*,\s*"?caption"?\s*(\r?\n|$)/i.test(text.slice(0, 200)),
    read: (text: string, file: string): CaptionSet => parseCaptionCsv(text, file),
  },
  utterances: {
    what: 'utterances, one a line (.txt)',
    named: nameEndsWith('.txt'),
    looksLike: noSignature,
    read: (text: string, file: string): PoolText[] => parseUtteranceFile(text, { file }),
  },
} as const satisfies Record<string, DatasetFormat<unknown>>;

export type DatasetFormatId = keyof typeof DATASET_FORMATS;
export const DATASET_FORMAT_IDS = Object.keys(DATASET_FORMATS) as DatasetFormatId[];
/** What a format's reader gives back. */
type DatasetOf<F extends DatasetFormatId> = ReturnType<(typeof DATASET_FORMATS)[F]['read']>;

/** The formats a dropped folder in the page may hold, beside its images. */
export const IMPORT_FORMATS = ['mmdialog', 'media-catalogue', 'pool-texts', 'utterances'] as const satisfies readonly DatasetFormatId[];
/** The files `bench -- select` ranks. */
export const SELECTION_FORMATS = ['dailydialog', 'topical-chat', 'polyai', 'visdial', 'avsd'] as const satisfies readonly DatasetFormatId[];
/** The captioned image sets `bench -- retrieval` and `bench -- caption` read. */
export const CAPTION_FORMATS = ['coco-captions', 'caption-csv'] as const satisfies readonly DatasetFormatId[];

/** The first of `among` whose name rule the file name meets, or null. */
export function datasetFormatOfName<F extends DatasetFormatId>(fileName: string, among: readonly F[]): F | null {
  return among.find((f) => DATASET_FORMATS[f].named(fileName)) ?? null;
}

/** The first of `among` the text looks like, or null (a format with no signature is never guessed from text). */
export function datasetFormatOfText<F extends DatasetFormatId>(text: string, among: readonly F[]): F | null {
  return among.find((f) => DATASET_FORMATS[f].looksLike(text)) ?? null;
}

/** The formats a reader takes, listed for a message; `option` adds how to ask for each ("--format"). */
function describeDatasetFormats(among: readonly DatasetFormatId[], option?: string): string {
  return among.map((f) => `${DATASET_FORMATS[f].what}${option ? ` (${option} ${f})` : ''}`).join(', ');
}

/** The one sentence for a file none of `among` reads: which file, which program, and what it takes instead. */
export function unknownDatasetFormatMessage(file: string, reader: string, among: readonly DatasetFormatId[], option?: string): string {
  return `${file} is not a file ${reader} can read: it takes ${describeDatasetFormats(among, option)}.`;
}

/** Reads a file as the given format. */
export function readDatasetFile<F extends DatasetFormatId>(format: F, text: string, file: string, context: DatasetReadContext = {}): DatasetOf<F> {
  return DATASET_FORMATS[format].read(text, file, context) as DatasetOf<F>;
}

/**
 * Decides a file's format among `among` from its text, then its name, and reads it; a file that is
 * none of them is refused with the sentence of unknownDatasetFormatMessage.
 */
export function readAnyDatasetFile<F extends DatasetFormatId>(
  text: string,
  file: string,
  among: readonly F[],
  reader: string,
  context: DatasetReadContext = {},
): { format: F; data: DatasetOf<F> } {
  const format = datasetFormatOfText(text, among) ?? datasetFormatOfName(file, among);
  if (!format) throw new EngineError('dataset-invalid', unknownDatasetFormatMessage(file, reader, among));
  return { format, data: readDatasetFile(format, text, file, context) };
}
