import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../../engine/stats';
import { screenVisitorMessage } from '../../engine/safety/visitorScreen';
import { parseCommandLine } from '../tools/cliArgs';
import { SHARED_DATA_DIR, readCorpora } from '../data/conversationFiles';

export const SCREEN_USAGE = 'npm run bench -- screen [--data ../shared/data] [--runs 50]';

/**
 * The visitor screen (issue 39) as the page runs it: how long a long message takes to screen (target:
 * 10,000 characters in 5 ms or less), what it flags of the booth probe, and how often it would flag
 * what real people wrote: every turn of the test parts of DailyDialog and Topical-Chat, read as a
 * visitor's message (reported, never tuned on).
 */
export async function screenBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(argv, { data: { type: 'string', default: SHARED_DATA_DIR }, runs: { type: 'string', default: '50' } }, SCREEN_USAGE);
  const runs = Math.max(1, Number(values.runs));
  const long = {
    'emoji (10,000 UTF-16 units)': '😀'.repeat(5000),
    'mixed scripts (10,000 characters)': 'Привет мир 你好世界 مرحبا hello 123 '.repeat(400).slice(0, 10_000),
    'English words (10,000 characters)': 'the quick brown fox jumps over the lazy dog and '.repeat(250).slice(0, 10_000),
    'one flagged word at the end (10,000)': `${'nice weather today '.repeat(600)}send nudes`.slice(-10_000),
  };
  screenVisitorMessage(['warm the lists up']);
  for (const [label, text] of Object.entries(long)) {
    const ms: number[] = [];
    let category: string | null = null;
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      category = screenVisitorMessage([text]).category;
      ms.push(performance.now() - start);
    }
    console.log(
      `${label.padEnd(40)} median ${percentile(ms, 50).toFixed(2)} ms, p95 ${percentile(ms, 95).toFixed(2)} ms (n=${runs}) · ${category ?? 'not flagged'}`,
    );
  }
  const probe = JSON.parse(readFileSync(join('src', 'engine', '__tests__', 'fixtures', 'booth-probe-turns.json'), 'utf8')) as {
    conversations: { id: string; turns: { text: string }[] }[];
  };
  const turns = probe.conversations.flatMap((c) => c.turns.map((t) => ({ expected: c.id, text: t.text })));
  const right = turns.filter((t) => screenVisitorMessage([t.text]).category === t.expected).length;
  const flagged = turns.filter((t) => screenVisitorMessage([t.text]).category !== null).length;
  console.log(`booth probe: ${flagged}/${turns.length} flagged, ${right} in the expected category`);
  for (const { corpus, conversations } of readCorpora(values.data)) {
    const test = conversations.filter((c) => c.part === 'test').flatMap((c) => c.tidyTurns);
    const byCategory = new Map<string, number>();
    for (const text of test) {
      const category = screenVisitorMessage([text]).category;
      if (category) byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    }
    const total = [...byCategory.values()].reduce((a, b) => a + b, 0);
    console.log(
      `${corpus} test turns read as a visitor's: ${total} of ${test.length} flagged (${((100 * total) / test.length).toFixed(2)}%): ${[...byCategory]
        .sort((a, b) => b[1] - a[1])
        .map(([c, n]) => `${n} ${c}`)
        .join(', ')}`,
    );
  }
}
