import { accessSync, constants } from 'node:fs';
import { CHROMIUM_PATH } from './chromium';
import { parseCommandLine, runCommand } from './cliArgs';

await runCommand('checkChromium', () => parseCommandLine(process.argv.slice(2), {}, 'npx tsx src/node/tools/checkChromium.ts'));

/** Fails early, with the fix, when the browser the end-to-end tests drive is not installed. */
try {
  accessSync(CHROMIUM_PATH, constants.X_OK);
} catch {
  console.error(
    `Chromium was not found at ${CHROMIUM_PATH}; the end-to-end tests drive Debian's Chromium.\n` +
      'Install it with:  sudo apt-get install -y chromium   (or set CHROMIUM_PATH to another Chromium binary).\n' +
      'Do not run "npx playwright install": it downloads a browser, which this project avoids.',
  );
  process.exit(1);
}
