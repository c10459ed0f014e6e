import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDailyDialog } from '../engine/datasets/dailyDialog';
import { decodeUtf8Strict, formatCount } from '../engine/datasets/validation';
import { formatPolyaiJsonl } from '../engine/datasets/polyai';
import { splitDailyDialog } from '../engine/selection/protocols';
import { parseCommandLine, runCommand } from './cliArgs';
import { SELECT_CACHE_DIR } from './textEmbeddingCache';

/**
 * npm run select:polyai -- [--data ../shared/data/dailydialog/dialogues_text.txt] [--out models/.cache/select/dailydialog]
 * Writes DailyDialog's test part as PolyAI JSON lines (test.jsonl) with the split and order the select
 * benchmark uses, so "--format polyai --data test.jsonl" ranks exactly the batches of "--format
 * dailydialog". Only the test part: DailyDialog is evaluation-only here (CC BY-NC-SA, and nothing is
 * trained on it), so no train file is written. The output goes under the git-ignored models/.cache/
 * unless --out says otherwise.
 */
const USAGE = 'npm run select:polyai -- [--data ../shared/data/dailydialog/dialogues_text.txt] [--out models/.cache/select/dailydialog]';

function main(): void {
  const values = parseCommandLine(process.argv.slice(2), {
    data: { type: 'string', default: join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt') },
    out: { type: 'string', default: join(SELECT_CACHE_DIR, 'dailydialog') },
  }, USAGE);
  const { data: dataPath, out: outDir } = values;
  if (!existsSync(dataPath)) throw new Error(`There is no ${dataPath}. Give DailyDialog's dialogues_text.txt with --data.`);
  const dialogues = parseDailyDialog(decodeUtf8Strict(new Uint8Array(readFileSync(dataPath)), dataPath), dataPath);
  const split = splitDailyDialog(dialogues);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'test.jsonl'), formatPolyaiJsonl(split.testExamples));
  console.log(`${dataPath}: ${formatCount(dialogues.length)} dialogues → ${join(outDir, 'test.jsonl')} (the test part: ${formatCount(split.test.length)} dialogues, ${formatCount(split.testExamples.length)} examples, shuffled)`);
}

await runCommand('select:polyai', main);
