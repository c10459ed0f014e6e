import { defineConfig } from '@playwright/test';
import { BASE_ARGS, CHROMIUM_PATH, TEST_ARGS } from './src/node/tools/chromium';

// E2E_PORT lets two checkouts run their e2e suites side by side.
const PORT = Number(process.env['E2E_PORT'] ?? 4173);

/**
 * Specs that load the real packs, a software GPU, a second browser or a whole scripted visit: one of
 * them at a time, beside at most one lighter spec. Every test has a browser context of its own (its
 * own IndexedDB, caches and service worker) and the servers a spec starts take a free port, so
 * running two files at once shares nothing but the cores.
 */
const ONE_AT_A_TIME = ['backends', 'pack-download', 'offline', 'video', 'visitor-turns', 'long-conversation', 'local-heads'].map(
  (name) => `**/${name}.spec.ts`,
);

export default defineConfig({
  testDir: 'e2e',
  forbidOnly: !!process.env['CI'],
  retries: process.env['CI'] ? 1 : 0,
  // Two files at a time: much of a test is the page waiting on its model worker or a poll, not a busy core.
  // E2E_WORKERS=1 runs one browser at a time again.
  workers: Number(process.env['E2E_WORKERS'] ?? 2),
  projects: [
    { name: 'one-at-a-time', testMatch: ONE_AT_A_TIME, workers: 1 },
    { name: 'two-at-a-time', testIgnore: ONE_AT_A_TIME },
  ],
  timeout: 180_000,
  expect: { timeout: 60_000 },
  reporter: [['list'], ['json', { outputFile: 'test-reports/e2e.json' }]],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...TEST_ARGS] },
    trace: 'retain-on-failure',
    // After Ready the service worker stores the offline copy: about 30 CPU-seconds in the background
    // of every test (measured on the test pack), taken from the page under test and the other spec.
    // offline.spec.ts allows it (test.use); contexts of browsers a spec launches itself block it too.
    serviceWorkers: 'block',
  },
  webServer: {
    command: `node node_modules/vite/bin/vite.js preview --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}`,
    reuseExistingServer: !process.env['CI'],
    timeout: 60_000,
  },
});
