import { type Conversation, type CorpusFile, keepConversation, noneSkipped } from '../conversations/corpus';
import { describeJson, invalid, isPlainObject, ownValue, parseJsonDocument, quoteForMessage } from './validation';

const FORMAT = 'A Topical-Chat file is one JSON object keyed by conversation id, each {"content": [{"message": "...", "agent": "agent_1"}, ...]}.';

/**
 * Reads a Topical-Chat conversations file (Gopalakrishnan et al. 2019; alexa/Topical-Chat
 * `conversations/*.json`). Messages in a row from the same agent are one turn (joined by a space),
 * so turns alternate. An empty message is skipped and counted, and so is a conversation left with
 * one turn; a file that is not shaped like Topical-Chat is refused, naming the conversation and field.
 */
export function parseTopicalChat(text: string, file: string): CorpusFile {
  const json = parseJsonDocument(text, file);
  if (!isPlainObject(json)) invalid(`${file} is ${describeJson(json)}, not an object. ${FORMAT}`);
  const conversations: Conversation[] = [];
  const skipped = noneSkipped();
  for (const id of Object.keys(json)) {
    const where = `${file}, conversation ${quoteForMessage(id)}`;
    const record = ownValue(json, id);
    if (!isPlainObject(record)) invalid(`${where} is ${describeJson(record)}, not an object. ${FORMAT}`);
    const content = ownValue(record, 'content');
    if (!Array.isArray(content)) invalid(`${where}: "content" is ${describeJson(content)}, not an array. ${FORMAT}`);
    const turns: string[] = [];
    let lastAgent: unknown = undefined;
    content.forEach((entry: unknown, i) => {
      if (!isPlainObject(entry)) invalid(`${where}, message ${i + 1} is ${describeJson(entry)}, not an object. ${FORMAT}`);
      const message = ownValue(entry, 'message');
      if (typeof message !== 'string') invalid(`${where}, message ${i + 1}: "message" is ${describeJson(message)}, not a string. ${FORMAT}`);
      const agent = ownValue(entry, 'agent');
      if (message.trim() === '') {
        skipped.emptyTurns++;
        return;
      }
      if (turns.length > 0 && agent === lastAgent) turns[turns.length - 1] += ` ${message.trim()}`;
      else turns.push(message);
      lastAgent = agent;
    });
    keepConversation(id, turns, skipped, conversations);
  }
  if (conversations.length === 0 && Object.keys(json).length === 0) invalid(`${file} holds no conversation. ${FORMAT}`);
  return { conversations, skipped };
}
