import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ConversationCorpusId,
  type ConversationPart,
  CONVERSATION_CORPORA,
  CONVERSATION_CORPUS_IDS,
  splitCorpus,
} from '../../engine/conversations/corpora';
import { type Conversation, type SkippedCounts, addSkipped, noneSkipped } from '../../engine/conversations/corpus';
import { decodeUtf8Strict } from '../../engine/datasets/validation';

/** Where the reference data sits: beside the project (see ../shared/data/README.md). */
export const SHARED_DATA_DIR = join('..', 'shared', 'data');

interface PartedConversation extends Conversation {
  readonly corpus: ConversationCorpusId;
  readonly part: ConversationPart;
  /** The conversation's turns as a person would type them (the corpus's tidy). */
  readonly tidyTurns: readonly string[];
}

export interface CorpusConversations {
  corpus: ConversationCorpusId;
  conversations: PartedConversation[];
  skipped: SkippedCounts;
  /** Conversations left out as copies of another (splitCorpus). */
  copiesRemoved: number;
}

/** A corpus's files from the data folder, read, tidied, deduplicated and split by the one rule (splitCorpus). */
export function readCorpus(corpus: ConversationCorpusId, dataDir = SHARED_DATA_DIR): CorpusConversations {
  const entry = CONVERSATION_CORPORA[corpus];
  const skipped = noneSkipped();
  const files = entry.files.map((file) => {
    const path = join(dataDir, entry.dir, file.name);
    if (!existsSync(path)) throw new Error(`There is no ${path}: ${entry.name} is read from ${join(dataDir, entry.dir)} (see ../shared/data/README.md).`);
    const read = entry.read(decodeUtf8Strict(new Uint8Array(readFileSync(path)), path), path);
    addSkipped(skipped, read.skipped);
    return { file: file.name, conversations: read.conversations };
  });
  const split = splitCorpus(corpus, files);
  const conversations = split.conversations.map(({ conversation, part }) => ({ ...conversation, corpus, part, tidyTurns: conversation.turns.map(entry.tidy) }));
  return { corpus, conversations, skipped, copiesRemoved: split.copiesRemoved };
}

export function readCorpora(dataDir = SHARED_DATA_DIR): CorpusConversations[] {
  return CONVERSATION_CORPUS_IDS.map((id) => readCorpus(id, dataDir));
}
