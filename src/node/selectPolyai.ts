import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDailyDialog } from '../engine/datasets/dailyDialog';
import { decodeUtf8Strict, formatCount } from '../engine/datasets/validation';
import { formatPolyaiJsonl } from '../engine/datasets/polyai';
import { errorMessage } from '../engine/errors';
import { splitDailyDialog } from '../engine/selection/protocols';
import { SELECT_CACHE_DIR } from './textEmbeddingCache';

/**
 * npm run select:polyai -- [--data ../shared/data/dailydialog/dialogues_text.txt] [--out models/.cache/select/dailydialog]
 * Writes DailyDialog as PolyAI JSON lines (train.jsonl, test.jsonl) with the split and test order the
 * select benchmark uses, so "--format polyai --data test.jsonl --train train.jsonl" ranks exactly the
 * batches of "--format dailydialog". DailyDialog is CC BY-NC-SA and evaluation-only here: the output
 * goes under the git-ignored models/.cache/ unless --out says otherwise.
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};

function main(): void {
  const dataPath = option('data', join('..', 'shared', 'data', 'dailydialog', 'dialogues_text.txt'));
  const outDir = option('out', join(SELECT_CACHE_DIR, 'dailydialog'));
  if (!existsSync(dataPath)) throw new Error(`There is no ${dataPath}. Give DailyDialog's dialogues_text.txt with --data.`);
  const dialogues = parseDailyDialog(decodeUtf8Strict(new Uint8Array(readFileSync(dataPath)), dataPath), dataPath);
  const split = splitDailyDialog(dialogues);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'train.jsonl'), formatPolyaiJsonl(split.trainExamples));
  writeFileSync(join(outDir, 'test.jsonl'), formatPolyaiJsonl(split.testExamples));
  console.log(`${dataPath}: ${formatCount(dialogues.length)} dialogues → ${join(outDir, 'train.jsonl')} (${formatCount(split.train.length)} dialogues, ${formatCount(split.trainExamples.length)} examples), ${join(outDir, 'test.jsonl')} (${formatCount(split.test.length)} dialogues, ${formatCount(split.testExamples.length)} examples, shuffled)`);
}

try {
  main();
} catch (error) {
  console.error(`select:polyai failed: ${errorMessage(error)}`);
  process.exit(1);
}
