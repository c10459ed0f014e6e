import { defineConfig } from '@playwright/test';
import { BASE_ARGS, CHROMIUM_PATH } from './src/node/chromium';

// E2E_PORT lets two checkouts run their e2e suites side by side.
const PORT = Number(process.env['E2E_PORT'] ?? 4173);

export default defineConfig({
  testDir: 'e2e',
  forbidOnly: !!process.env['CI'],
  retries: process.env['CI'] ? 1 : 0,
  // Two cores: one browser at a time keeps model loading predictable.
  workers: 1,
  timeout: 180_000,
  expect: { timeout: 60_000 },
  reporter: [['list'], ['json', { outputFile: 'test-reports/e2e.json' }]],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: BASE_ARGS },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `node node_modules/vite/bin/vite.js preview --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}`,
    reuseExistingServer: !process.env['CI'],
    timeout: 60_000,
  },
});
