import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERSATION_CORPORA, splitCorpus } from '../../engine/conversations/corpora';
import { decodeUtf8Strict, formatCount } from '../../engine/datasets/validation';
import { formatPolyaiJsonl } from '../../engine/datasets/polyai';
import { shuffledConversationExamples } from '../../engine/selection/protocols';
import { parseCommandLine, runCommand } from '../tools/cliArgs';
import { SELECT_CACHE_DIR } from '../tools/textEmbeddingCache';

/**
 * npm run select:polyai -- [--data ../shared/data/dailydialog/dialogues_text.txt] [--out models/.cache/select/dailydialog]
 * Writes DailyDialog's test part as PolyAI JSON lines (test.jsonl) with the split and order the select
 * benchmark uses (utterances as typed, untokenizeDailyDialog), so "--format polyai --data test.jsonl"
 * ranks exactly the batches of "--format dailydialog". Only the test part, the one reported. The output goes under the git-ignored models/.cache/
 * unless --out says otherwise.
 */
const USAGE = 'npm run select:polyai -- [--data ../shared/data/dailydialog/dialogues_text.txt] [--out models/.cache/select/dailydialog]';

function main(): void {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      data: { type: 'string', default: join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt') },
      out: { type: 'string', default: join(SELECT_CACHE_DIR, 'dailydialog') },
    },
    USAGE,
  );
  const { data: dataPath, out: outDir } = values;
  if (!existsSync(dataPath)) throw new Error(`There is no ${dataPath}. Give DailyDialog's dialogues_text.txt with --data.`);
  const corpus = CONVERSATION_CORPORA.dailydialog;
  const { conversations } = corpus.read(decodeUtf8Strict(new Uint8Array(readFileSync(dataPath)), dataPath), dataPath);
  const split = splitCorpus('dailydialog', [{ file: 'dialogues_text.txt', conversations }]);
  const test = split.conversations.filter((c) => c.part === 'test').map((c) => c.conversation.turns.map(corpus.tidy));
  const examples = shuffledConversationExamples(test);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'test.jsonl'), formatPolyaiJsonl(examples));
  console.log(
    `${dataPath}: ${formatCount(conversations.length)} dialogues → ${join(outDir, 'test.jsonl')} (the test part: ${formatCount(test.length)} dialogues after ${formatCount(split.copiesRemoved)} copies were removed, ${formatCount(examples.length)} examples, as typed, shuffled)`,
  );
}

await runCommand('select:polyai', main);
