import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClipTokenizer } from '../../engine/clip/tokenizer';
import { boothFilterReason } from '../../engine/conversations/boothFilter';
import { CONVERSATION_CORPORA, type ConversationPart } from '../../engine/conversations/corpora';
import { formatCount } from '../../engine/datasets/validation';
import { LexicalIndex, corpusStatsOfTokens, tokenize } from '../../engine/ranking/lexical';
import { textKey } from '../../engine/pool/textKey';
import { topKOfScores } from '../../engine/retrieval/vectors';
import { seededShuffle } from '../../engine/selection/protocols';
import { ProgressLine } from '../tools/progressLine';
import { parseCommandLine, runCommand } from '../tools/cliArgs';
import { SHARED_DATA_DIR, readCorpora } from './conversationFiles';

/**
 * npm run chat:data -- [--data ../shared/data] [--out models/.cache/chat]
 * The conversational encoder's training data: every train and valid conversation of the real
 * corpora (splitCorpus; never a test one) as context → response pairs, each text tokenized by
 * the CLIP tokenizer the worker runs (models/clip-tokenizer), so training sees the ids the page will
 * feed. Train pairs are in corpus order (the trainer shuffles); valid pairs are shuffled with a fixed
 * seed per corpus, as 1-of-100 batches are cut. A text the tokenizer cannot read (boothFilter's
 * 'unreadable') is skipped and counted: as a response its pair goes, as a context turn the turn goes.
 */
const USAGE = 'npm run chat:data -- [--data ../shared/data] [--out models/.cache/chat]';
/** Turns of context kept per pair; the trainer uses the latest of them (its --context-turns). */
export const EXPORTED_CONTEXT_TURNS = 10;
/** Tokens kept per turn (its start); CLIP's own limit is 77 for a whole text. */
export const MAX_TURN_TOKENS = 64;
const VALID_SHUFFLE_SEED = 7;

/** BM25 neighbours kept per train response: hard negatives the trainer draws from. */
const NEIGHBOURS_PER_RESPONSE = 8;
/** Words in more than this share of the responses are left out of a neighbour query: they match nearly everything and decide nothing. */
const COMMON_WORD_SHARE = 0.01;

/**
 * For each train response, the other train responses most like it by BM25 (their own document
 * frequencies; a response of the same text key is not its own neighbour): texts that share its words
 * without being what was answered, which the trainer shows the encoder as hard negatives (issue 37: a
 * paraphrase of the right answer, or of the context, must not win on likeness alone). The query keeps
 * only the response's rarer words, so a query touches short postings and 50,000 of them take seconds.
 */
function responseNeighbours(texts: readonly string[], responses: readonly number[]): Record<number, number[]> {
  const docs = responses.map((r) => texts[r]!);
  const tokens = docs.map(tokenize);
  const stats = corpusStatsOfTokens(tokens);
  const index = LexicalIndex.build('bm25', docs, stats, {}, tokens);
  const common = COMMON_WORD_SHARE * docs.length;
  const keys = docs.map(textKey);
  const out: Record<number, number[]> = {};
  const progress = new ProgressLine();
  responses.forEach((response, i) => {
    const rare = tokens[i]!.filter((t) => (stats.df.get(t) ?? 0) <= common);
    if (rare.length === 0) return;
    const near = topKOfScores(index.score(rare.join(' ')), NEIGHBOURS_PER_RESPONSE + 4)
      .filter((n) => n.score > 0 && keys[n.index] !== keys[i])
      .slice(0, NEIGHBOURS_PER_RESPONSE)
      .map((n) => responses[n.index]!);
    if (near.length > 0) out[response] = near;
    if (i % 2000 === 0 || i === responses.length - 1)
      progress.update(`BM25 neighbours of the train responses ${formatCount(i + 1)}/${formatCount(responses.length)}`, i + 1, responses.length);
  });
  progress.end();
  return out;
}

function main(): void {
  const values = parseCommandLine(
    process.argv.slice(2),
    { data: { type: 'string', default: SHARED_DATA_DIR }, out: { type: 'string', default: join('models', '.cache', 'chat') } },
    USAGE,
  );
  const tokenizerJson = readFileSync(join('models', 'clip-tokenizer', 'tokenizer.json'), 'utf8');
  const tokenizerConfig = readFileSync(join('models', 'clip-tokenizer', 'tokenizer_config.json'), 'utf8');
  const tokenizer = new ClipTokenizer(JSON.parse(tokenizerJson), JSON.parse(tokenizerConfig), MAX_TURN_TOKENS + 2);
  const textIndex = new Map<string, number>();
  const tokens: number[][] = [];
  const texts: string[] = [];
  const unreadable = { responses: 0, contextTurns: 0 };
  const indexOf = (text: string): number | null => {
    let i = textIndex.get(text);
    if (i !== undefined) return i;
    if (boothFilterReason(text) === 'unreadable') return null;
    i = texts.length;
    textIndex.set(text, i);
    texts.push(text);
    tokens.push(tokenizer.encode(text).slice(1, -1)); // without start and end of text: the trainer adds its own markers
    return i;
  };
  const pairs: Record<Exclude<ConversationPart, 'test'>, { corpus: string; conversation: string; context: number[]; response: number }[]> = {
    train: [],
    valid: [],
  };
  const counts: Record<string, Record<string, number>> = {};
  for (const { corpus, conversations, skipped } of readCorpora(values.data)) {
    const c = (counts[corpus] = {
      trainConversations: 0,
      validConversations: 0,
      testConversations: 0,
      trainPairs: 0,
      validPairs: 0,
      skippedEmptyTurns: skipped.emptyTurns,
      skippedOneTurn: skipped.oneTurn,
    });
    const validPairs: (typeof pairs)['valid'] = [];
    for (const conversation of conversations) {
      c[`${conversation.part}Conversations`]++;
      if (conversation.part === 'test') continue;
      const ids = conversation.tidyTurns.map((t) => indexOf(t));
      ids.forEach((response, r) => {
        if (r === 0) return;
        if (response === null) return void unreadable.responses++;
        const before = ids.slice(Math.max(0, r - EXPORTED_CONTEXT_TURNS), r);
        unreadable.contextTurns += before.filter((i) => i === null).length;
        const context = before.filter((i): i is number => i !== null);
        if (context.length === 0) return;
        const pair = { corpus, conversation: conversation.id, context, response };
        if (conversation.part === 'train') pairs.train.push(pair);
        else validPairs.push(pair);
      });
    }
    pairs.valid.push(...seededShuffle(validPairs, VALID_SHUFFLE_SEED));
    c.trainPairs = pairs.train.filter((p) => p.corpus === corpus).length;
    c.validPairs = validPairs.length;
  }
  const neighbours = responseNeighbours(texts, [...new Set(pairs.train.map((p) => p.response))]);
  mkdirSync(values.out, { recursive: true });
  const out = {
    version: 2,
    tokenizer: tokenizer.fingerprint,
    maxTurnTokens: MAX_TURN_TOKENS,
    contextTurns: EXPORTED_CONTEXT_TURNS,
    corpora: Object.fromEntries(Object.keys(counts).map((id) => [id, CONVERSATION_CORPORA[id as keyof typeof CONVERSATION_CORPORA].name])),
    counts,
    unreadable,
    texts,
    tokens,
    train: pairs.train,
    valid: pairs.valid,
    neighbours,
  };
  writeFileSync(join(values.out, 'pairs.json'), JSON.stringify(out));
  for (const [corpus, c] of Object.entries(counts)) {
    console.log(
      `${corpus}: conversations train ${formatCount(c.trainConversations!)} / valid ${formatCount(c.validConversations!)} / test ${formatCount(c.testConversations!)} (test not read further); pairs train ${formatCount(c.trainPairs!)} / valid ${formatCount(c.validPairs!)}; skipped ${c.skippedEmptyTurns} empty utterances, ${c.skippedOneTurn} one-turn conversations`,
    );
  }
  console.log(`${formatCount(Object.keys(neighbours).length)} train responses with BM25 neighbours (hard negatives);`);
  console.log(
    `${formatCount(texts.length)} distinct texts tokenized; unreadable: ${unreadable.responses} responses, ${unreadable.contextTurns} context turns skipped → ${join(values.out, 'pairs.json')}`,
  );
}

await runCommand('chat:data', main);
