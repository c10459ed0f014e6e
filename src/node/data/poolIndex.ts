import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTextTable, serializeTextTable } from '../../engine/datasets/textTable';
import { LexicalIndex, corpusStatsOfCounts, corpusStatsOfTokens, lexicalCounts, tokenize } from '../../engine/ranking/lexical';
import { parseLexicalCounts, serializeLexicalCounts } from '../../engine/ranking/lexicalIndexFile';
import { computeTextMarks, parseTextMarks, rowsOfKey, serializeTextMarks } from '../../engine/response/textMarks';
import { textKey } from '../../engine/pool/textKey';
import { parseCommandLine, runCommand } from '../tools/cliArgs';
import { loadPoolCatalogue } from './poolFiles';
import { writeCacheFiles } from '../tools/textEmbeddingCache';

/**
 * npm run pool:index [-- --pool public/pool]
 * The BM25 counts of the pool's texts (every term, its document frequency, its postings), written to
 * <pool>/lexical.json/.bin, so the page reads them instead of counting 65k texts before its first
 * reply; the texts' keys and photo-rule marks, to <pool>/text-marks.json/.bin (textMarks.ts); and the
 * texts themselves as a table the page reads without parsing 64k JSON records, to
 * <pool>/text-table.json/.bin (textTable.ts). The same for every pack. Rerun after the pool's texts
 * change (pool:human); the page checks each file against its texts (the table against its own hash)
 * and works without it, saying so, when it does not fit.
 */
const USAGE = 'npm run pool:index [-- --pool public/pool]';
export const LEXICAL_INDEX_FILE = 'lexical';
export const TEXT_MARKS_FILE = 'text-marks';
export const TEXT_TABLE_FILE = 'text-table';

async function main(): Promise<void> {
  const values = parseCommandLine(process.argv.slice(2), { pool: { type: 'string', default: join('public', 'pool') } }, USAGE);
  const started = performance.now();
  const { texts: catalogue, textSources } = loadPoolCatalogue(values.pool);
  const texts = catalogue.map((t) => t.text);

  // The texts as the page reads them, read back as the page reads them and compared with texts.json's.
  const table = serializeTextTable(catalogue, textSources);
  const tableBase = join(values.pool, TEXT_TABLE_FILE);
  writeCacheFiles(tableBase, table.bytes, table.meta);
  const readTable = parseTextTable(
    JSON.parse(readFileSync(`${tableBase}.json`, 'utf8')),
    new Uint8Array(readFileSync(`${tableBase}.bin`)),
    `${tableBase}.json`,
  );
  if (JSON.stringify(readTable) !== JSON.stringify(catalogue)) throw new Error(`${tableBase}.json/.bin read back differ from texts.json.`);
  console.log(
    `wrote ${tableBase}.json/.bin: ${texts.length} texts (${(table.bytes.byteLength / 1e6).toFixed(2)} MB); read back, the same records as texts.json`,
  );

  const tokens = texts.map(tokenize);
  const counts = lexicalCounts(tokens, corpusStatsOfTokens(tokens));
  const file = serializeLexicalCounts(texts, counts);
  const base = join(values.pool, LEXICAL_INDEX_FILE);
  writeCacheFiles(base, file.bytes, file.meta);
  console.log(
    `wrote ${base}.json/.bin: ${texts.length} texts, ${counts.terms.length} terms, ${counts.docs.length} postings (${(file.bytes.byteLength / 1e6).toFixed(2)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  // The page's own reading of the file, and its scores against an index counted here.
  const read = parseLexicalCounts(JSON.parse(readFileSync(`${base}.json`, 'utf8')), new Uint8Array(readFileSync(`${base}.bin`)), `${base}.json`, texts);
  const shipped = LexicalIndex.fromCounts('bm25', read, corpusStatsOfCounts(read));
  const counted = LexicalIndex.build('bm25', texts);
  let differing = 0;
  const queries = texts.filter((_, i) => i % 97 === 0);
  for (const query of queries) {
    const a = shipped.score(query);
    const b = counted.score(query);
    if (a.some((v, i) => v !== b[i])) differing++;
  }
  if (differing > 0) throw new Error(`The index read back scores ${differing} of ${queries.length} queries differently from one counted here.`);
  console.log(`read back as the page reads it: the same BM25 scores, bit for bit, for ${queries.length} of the pool's texts as queries`);

  // The texts' keys and photo-rule marks (textMarks.ts), read back as the page reads them and checked against the keys themselves.
  const marksStarted = performance.now();
  const marks = serializeTextMarks(texts, computeTextMarks(texts));
  const marksBase = join(values.pool, TEXT_MARKS_FILE);
  writeCacheFiles(marksBase, marks.bytes, marks.meta);
  const readMarks = parseTextMarks(
    JSON.parse(readFileSync(`${marksBase}.json`, 'utf8')),
    new Uint8Array(readFileSync(`${marksBase}.bin`)),
    `${marksBase}.json`,
    texts,
  );
  const byKey = new Map<string, number[]>();
  texts.forEach((t, r) => byKey.set(textKey(t), [...(byKey.get(textKey(t)) ?? []), r]));
  const wrong = [...byKey].filter(([key, rows]) => rowsOfKey(readMarks, texts, key).join() !== rows.join()).length;
  if (wrong > 0) throw new Error(`The text marks read back find other rows than the keys themselves for ${wrong} keys.`);
  console.log(
    `wrote ${marksBase}.json/.bin: ${texts.length} texts' keys and photo marks (${readMarks.photoAsks.size} ask for photos, ${readMarks.photoTalk.size} speak of one) in ${((performance.now() - marksStarted) / 1000).toFixed(1)} s; read back, every one of ${byKey.size} keys finds its rows`,
  );
}

await runCommand('pool:index', main);
