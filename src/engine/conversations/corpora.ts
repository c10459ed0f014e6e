import { DATASET_FORMATS } from '../datasets/datasetFormats';
import { hashText } from '../pool/contentHash';
import type { Conversation, CorpusFile } from './corpus';

/**
 * The real conversation corpora the project learns from and reports on, in one table: where each
 * lives under ../shared/data, its credit and licence (shown in Credits beside every pool text it
 * gave), which format of the dataset format registry it is read with, and which part of the split each conversation belongs to. Adding a corpus
 * is a row here and its reader.
 */
export const CONVERSATION_CORPUS_IDS = ['dailydialog', 'topical-chat'] as const;
export type ConversationCorpusId = (typeof CONVERSATION_CORPUS_IDS)[number];

/** PolyAI's protocol: train on train, choose on valid (carved out of train), report test. */
export type ConversationPart = 'train' | 'valid' | 'test';

/** What a file of a corpus holds before the split: every part, the train and valid parts, or the test part. */
type FileRole = 'all' | 'train-valid' | 'test';

export interface ConversationCorpus {
  readonly id: ConversationCorpusId;
  readonly name: string;
  /** Who made it and where it was published, as its licence asks to credit it. */
  readonly credit: string;
  readonly licence: string;
  readonly url: string;
  /** The folder under ../shared/data. */
  readonly dir: string;
  readonly files: readonly { readonly name: string; readonly role: FileRole }[];
  read(text: string, file: string): CorpusFile;
  /** The utterance as a person would type it (DailyDialog spaces its punctuation out); the split always hashes the text as read. */
  readonly tidy: (text: string) => string;
}

/**
 * DailyDialog's utterances are tokenized ("I ’ ll bring it over , sir ."): put back together as
 * typed ("I'll bring it over, sir."), so they read naturally in the chat and look like what a
 * visitor types to the encoders.
 */
export function untokenizeDailyDialog(text: string): string {
  return text
    .replace(/(\p{L}) [’'‘] (\p{L})/gu, "$1'$2")
    .replace(/'(Ve|Ll|Re|S|T|D|M)\b/g, (_, suffix: string) => `'${suffix.toLowerCase()}`)
    .replace(/ ([.,?!;:%)”。])/g, '$1')
    .replace(/([($£“]) /g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

export const CONVERSATION_CORPORA: Readonly<Record<ConversationCorpusId, ConversationCorpus>> = {
  dailydialog: {
    id: 'dailydialog',
    name: 'DailyDialog',
    credit: 'Li, Su, Shen, Li, Cao and Niu, "DailyDialog: A Manually Labelled Multi-turn Dialogue Dataset", IJCNLP 2017',
    licence: 'CC BY-NC-SA 4.0',
    url: 'http://yanran.li/dailydialog',
    dir: 'dailydialog',
    files: [{ name: 'dialogues_text.txt', role: 'all' }],
    read: (text, file) => DATASET_FORMATS.dailydialog.read(text, file),
    tidy: untokenizeDailyDialog,
  },
  'topical-chat': {
    id: 'topical-chat',
    name: 'Topical-Chat',
    credit:
      'Gopalakrishnan, Hedayatnia, Chen, Gottardi, Kwatra, Venkatesh, Gabriel and Hakkani-Tür, "Topical-Chat: Towards Knowledge-Grounded Open-Domain Conversations", Interspeech 2019 (Amazon)',
    licence: 'CDLA-Sharing-1.0',
    url: 'https://github.com/alexa/Topical-Chat',
    dir: 'topical-chat',
    // The training file is not public in that repository, so the two validation files are the train part.
    files: [
      { name: 'valid_freq.json', role: 'train-valid' },
      { name: 'valid_rare.json', role: 'train-valid' },
      { name: 'test_freq.json', role: 'test' },
    ],
    read: (text, file) => DATASET_FORMATS['topical-chat'].read(text, file),
    tidy: (text) => text.replace(/\s+/g, ' ').trim(),
  },
};

/** DailyDialog's test part: a fifth of the dialogues by hash (the part `bench -- select` has always reported). */
const DAILYDIALOG_TEST_FRACTION = 0.2;
/** The valid part: a tenth of what is not test, by hash, in every corpus. */
const VALID_FRACTION = 0.1;

/** Whether a key falls in the held-out part: a fixed function of its text, so the split never depends on file order. */
export function heldOut(key: string, fraction: number, salt: string): boolean {
  return parseInt(hashText(`${salt}\n${key}`).slice(0, 8), 16) / 2 ** 32 < fraction;
}

/**
 * The one split rule, by conversation: a conversation's part follows from its text (so a conversation
 * that occurs twice lands twice in the same part) and from the file it came from. DailyDialog: test is
 * a fifth by hash; Topical-Chat: test is test_freq. Valid is a tenth of the rest by hash; train is what remains.
 */
export function conversationPart(corpus: ConversationCorpusId, file: string, conversation: Conversation): ConversationPart {
  const entry = CONVERSATION_CORPORA[corpus];
  const role = entry.files.find((f) => f.name === file)?.role ?? 'all';
  const key = conversation.turns.join('\n');
  if (role === 'test') return 'test';
  if (corpus === 'dailydialog' && heldOut(key, DAILYDIALOG_TEST_FRACTION, 'dailydialog/test')) return 'test';
  return heldOut(key, VALID_FRACTION, `${corpus}/valid`) ? 'valid' : 'train';
}
