import { DATASET_FORMATS } from '../datasets/datasetFormats';
import { hashText } from '../pool/contentHash';
import { textKey } from '../pool/textKey';
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

/** A conversation of a corpus as the split has it: the file it came from and its part. */
interface SplitConversation {
  readonly conversation: Conversation;
  readonly file: string;
  readonly part: ConversationPart;
}

export interface CorpusSplit {
  /** Every conversation kept, in the order read, with its part. */
  readonly conversations: SplitConversation[];
  /** Conversations left out because another one has the same normalised text (textKey of every turn, as typed). */
  readonly copiesRemoved: number;
  /** Conversations kept whose part followed another one of their group (a copy's or a variant's), not their own text. */
  readonly partsJoined: number;
}

/** Openings shorter than this (in words, both turns together) are too common ("Hi." "Hello.") to say two conversations are variants. */
const VARIANT_OPENING_WORDS = 8;

/**
 * The one split of a corpus, with its repeats dealt with before it is cut (DailyDialog holds hundreds of
 * dialogues twice, some re-typed, some with a turn changed):
 *  - conversations whose normalised text is the same (every turn's textKey, as typed) are one: the one
 *    kept is the copy in a test file if there is one, else the one whose text sorts first, so the choice
 *    never depends on file order; the others are removed and counted;
 *  - conversations that open with the same two turns (normalised, at least VARIANT_OPENING_WORDS words)
 *    are variants of one dialogue: they stay, but in one part, so no test dialogue is a re-typing of a
 *    train one;
 *  - a group's part is conversationPart of its member whose text sorts first, or test when one of them
 *    comes from a test file; a conversation with no copy and no variant keeps the part it always had.
 */
export function splitCorpus(corpus: ConversationCorpusId, files: readonly { file: string; conversations: readonly Conversation[] }[]): CorpusSplit {
  const entry = CONVERSATION_CORPORA[corpus];
  const all = files.flatMap(({ file, conversations }) =>
    conversations.map((conversation) => ({ conversation, file, raw: conversation.turns.join('\n'), tidy: conversation.turns.map(entry.tidy) })),
  );
  const isTestFile = (file: string) => entry.files.find((f) => f.name === file)?.role === 'test';
  // Union-find over conversations: joined by the same normalised text, or the same opening.
  const parent = all.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const firstWith = new Map<string, number>();
  const join = (key: string, i: number) => {
    const j = firstWith.get(key);
    if (j === undefined) firstWith.set(key, i);
    else parent[find(i)] = find(j);
  };
  const normalised = all.map((c) => c.tidy.map(textKey).join('\n'));
  all.forEach((c, i) => {
    join(`all\u0001${normalised[i]}`, i);
    const opening = c.tidy.slice(0, 2).map(textKey).join(' ');
    if (opening.split(' ').length >= VARIANT_OPENING_WORDS) join(`opening\u0001${opening}`, i);
  });
  // Within a group: the copy kept of each normalised text, and the member whose text sorts first decides the part.
  const keptOf = new Map<string, number>();
  const better = (i: number, j: number) => (isTestFile(all[i]!.file) !== isTestFile(all[j]!.file) ? isTestFile(all[i]!.file) : all[i]!.raw < all[j]!.raw);
  const leader = new Map<number, number>();
  const groupsWithTestFile = new Set<number>();
  all.forEach((c, i) => {
    if (isTestFile(c.file)) groupsWithTestFile.add(find(i));
    const k = keptOf.get(normalised[i]!);
    if (k === undefined || better(i, k)) keptOf.set(normalised[i]!, i);
    const root = find(i);
    const l = leader.get(root);
    if (l === undefined || c.raw < all[l]!.raw) leader.set(root, i);
  });
  let partsJoined = 0;
  const conversations: SplitConversation[] = [];
  all.forEach((c, i) => {
    if (keptOf.get(normalised[i]!) !== i) return;
    const lead = all[leader.get(find(i))!]!;
    // A group with a conversation of a test file (Topical-Chat's test_freq) is test, all of it: none of it is trained on.
    const part = groupsWithTestFile.has(find(i)) ? 'test' : conversationPart(corpus, lead.file, lead.conversation);
    if (part !== conversationPart(corpus, c.file, c.conversation)) partsJoined++;
    conversations.push({ conversation: c.conversation, file: c.file, part });
  });
  return { conversations, copiesRemoved: all.length - conversations.length, partsJoined };
}
