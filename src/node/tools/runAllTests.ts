import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { parseCommandLine, runCommand } from './cliArgs';

/**
 * `npm test`: type checks (`tsc -b`), lint (ESLint: the import rules and typescript-eslint's type-checked rules), the
 * dead-code check (knip), the format check (Prettier), unit tests (Vitest, Node), the model parity
 * tests (the shipped ONNX models against what PyTorch scored: most of the unit time, so a stage of
 * their own with limits sized for a loaded machine), then the production build and the end-to-end
 * tests (Playwright, Debian's Chromium). Stops at the first failing stage, exits non-zero, prints
 * each stage's time, and ends with one line counting every test: "N passed, N failed".
 */
// Outside test-results/, which Playwright empties when it starts.
const REPORT_DIR = 'test-reports';
const UNIT_REPORT = `${REPORT_DIR}/unit.json`;
const PARITY_REPORT = `${REPORT_DIR}/parity.json`;
/** The model parity files: each runs shipped models over a split or a fixed slice of one (minutes on a busy 2-core machine). */
const PARITY_FILES = [
  'src/node/data/clevrModels.test.ts',
  'src/node/bench/replyParity.test.ts',
  'src/engine/__tests__/objectDetectorParity.test.ts',
  'src/node/data/avsdModels.test.ts',
];
const E2E_REPORT = `${REPORT_DIR}/e2e.json`;

// No options: a stray word (say, a spec name) would otherwise be ignored while everything runs.
await runCommand('test', () => parseCommandLine(process.argv.slice(2), {}, 'npm test   (for one file: npx vitest run FILE, or npx playwright test SPEC)'));

const failedStages: string[] = [];
const stageTimes: [string, number][] = [];

function run(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): boolean {
  console.log(`\n=== ${title}: ${command} ${args.join(' ')}`);
  const start = performance.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  stageTimes.push([title, (performance.now() - start) / 1000]);
  if (result.status !== 0) failedStages.push(title);
  return result.status === 0;
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

function unitCounts(report: string): Counts | null {
  if (!existsSync(report)) return null;
  const r = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    testResults: { status: string; assertionResults: unknown[] }[];
  };
  // A test file that fails before any of its tests runs (an import or setup error) counts as one failure.
  const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  return { passed: r.numPassedTests, failed: r.numFailedTests + brokenFiles, skipped: r.numPendingTests + r.numTodoTests };
}

function e2eCounts(): Counts | null {
  if (!existsSync(E2E_REPORT)) return null;
  const r = JSON.parse(readFileSync(E2E_REPORT, 'utf8')) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
  return { passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected, skipped: r.stats.skipped };
}

rmSync(REPORT_DIR, { recursive: true, force: true });
mkdirSync(REPORT_DIR, { recursive: true });

const npx = (bin: string) => `node_modules/.bin/${bin}`;
let ok =
  run('Type check', 'npm', ['run', '--silent', 'typecheck']) &&
  // The import rules of docs/architecture.md and typescript-eslint's type-checked rules (eslint.config.js).
  run('Lint', npx('eslint'), ['--max-warnings=0']) &&
  // Files, exports and dependencies that nothing uses (knip.jsonc).
  run('Dead code', npx('knip'), ['--no-progress']) &&
  // One layout for the code (.prettierrc.json); `npx prettier --write .` applies it.
  run('Format check', npx('prettier'), ['--check', '.']) &&
  run('Unit tests', npx('vitest'), [
    'run',
    ...PARITY_FILES.flatMap((f) => ['--exclude', f]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile=${UNIT_REPORT}`,
  ]) &&
  // Limits for a loaded machine: a model loaded in a hook, or a whole split, takes minutes there.
  run('Model parity tests', npx('vitest'), [
    'run',
    ...PARITY_FILES,
    '--testTimeout=600000',
    '--hookTimeout=300000',
    '--reporter=default',
    '--reporter=json',
    `--outputFile=${PARITY_REPORT}`,
  ]) &&
  run('Chromium', npx('tsx'), ['src/node/tools/checkChromium.ts']) &&
  run('Production build', npx('vite'), ['build']) &&
  // Playwright writes its JSON report to E2E_REPORT (see playwright.config.ts).
  run('End-to-end tests', npx('playwright'), ['test']);

const stages = [
  ['unit', unitCounts(UNIT_REPORT)],
  ['model parity', unitCounts(PARITY_REPORT)],
  ['e2e', e2eCounts()],
] as const;
const total = { passed: 0, failed: 0, skipped: 0 };
for (const [name, counts] of stages) {
  if (!counts) {
    console.log(`${name}: did not run`);
    continue;
  }
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
if (total.skipped > 0) {
  console.log('Skipped tests are not allowed in this project.');
  ok = false;
}
if (!stages.every(([, c]) => c !== null)) ok = false;
const failedStage = failedStages[0];
if (failedStage !== undefined) console.log(`Stopped: the stage "${failedStage}" failed, so the stages after it did not run.`);
console.log(
  `\nStage times: ${stageTimes.map(([title, s]) => `${title} ${s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(0)} s`}`).join(', ')}; in all ${(stageTimes.reduce((a, [, s]) => a + s, 0) / 60).toFixed(1)} min.`,
);
console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(ok && total.failed === 0 ? 0 : 1);
