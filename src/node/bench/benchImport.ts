import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { percentile } from '../../engine/stats';
import { integerOption, parseCommandLine } from '../tools/cliArgs';

export const IMPORT_USAGE = 'npm run bench -- import [--images 10000] [--pack mini-clip] [--cancel] [--runs 5] [--busy]';

/**
 * npm run bench -- import [--images 10000] [--pack mini-clip] [--cancel] [--runs 5] [--busy]
 * Loads a generated folder of N photos (96x72 JPEG, distinct content) into the production build in
 * Chromium, as a person choosing a folder would, and prints how long copying and embedding took and
 * how long the page's main thread was ever blocked (Long Tasks API) while it ran. With --cancel it
 * presses Cancel instead, once while the files are copied and once while they are embedded, on
 * --runs fresh pages, and prints how long each took from the click to the page saying it stopped
 * (issue 39's target: 2 s). --busy runs `sha256sum /dev/zero` beside it.
 */
export async function importBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      images: { type: 'string', default: '10000' },
      pack: { type: 'string', default: 'mini-clip' },
      cancel: { type: 'boolean', default: false },
      runs: { type: 'string', default: '5' },
      busy: { type: 'boolean', default: false },
    },
    IMPORT_USAGE,
  );
  const count = integerOption(values.images, 'images', IMPORT_USAGE);
  const runs = integerOption(values.runs, 'runs', IMPORT_USAGE, 1);
  const packId = values.pack;
  // Generated once per size and kept in the temp folder: encoding 10,000 JPEGs in JavaScript takes minutes.
  const root = join(tmpdir(), `mmdialog-import-${count}`);
  const dir = join(root, 'big-folder');
  const width = 96,
    height = 72;
  const ready = existsSync(join(dir, 'utterances.txt'));
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count && !ready; i++) {
    const data = Buffer.alloc(width * height * 4);
    for (let p = 0; p < width * height; p++) {
      const x = p % width,
        y = Math.floor(p / width);
      data.set([(x * 3 + i * 7) % 256, (y * 3 + i * 13) % 256, (x + y + i) % 256, 255], p * 4);
    }
    writeFileSync(join(dir, `photo-${String(i).padStart(5, '0')}.jpg`), jpeg.encode({ data, width, height }, 80).data);
  }
  writeFileSync(join(dir, 'utterances.txt'), Array.from({ length: 200 }, (_, i) => `utterance number ${i}`).join('\n'));

  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../tools/chromium');
  const server = await preview({ preview: { port: 4174, strictPort: true } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  const busy = values.busy ? spawn('sha256sum', ['/dev/zero'], { stdio: 'ignore' }) : null;
  try {
    if (values.cancel) {
      await timeCancels(browser, packId, dir, runs, count, busy !== null);
      return;
    }
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { longTasks: [number, number][]; filesSeenAt: number };
      w.longTasks = [];
      w.filesSeenAt = Infinity;
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push([e.startTime, e.duration]))).observe({
        type: 'longtask',
        buffered: true,
      });
      // When the page first sees the chosen files: before it, the browser (here driven by Playwright) fills the file input.
      document.addEventListener('change', () => (w.filesSeenAt = Math.min(w.filesSeenAt, performance.now())), true);
    });
    await page.goto(`http://localhost:4174/?pack=${packId}&view=presenter`);
    await page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
    await page.evaluate(() => ((window as unknown as { longTasks: unknown[] }).longTasks.length = 0));
    await page.getByRole('button', { name: 'Pool and datasets' }).click();
    const start = Date.now();
    await page.getByTestId('dataset-folder-input').setInputFiles(dir);
    const progress = page.getByTestId('pool-progress');
    await progress.filter({ hasText: 'Embedding' }).waitFor({ timeout: 600_000 });
    const copied = Date.now();
    // Typing while the import runs: the composer must keep up (it is on the main thread).
    const typed = Date.now();
    await page.getByRole('textbox', { name: 'Message' }).fill('still responsive?');
    const typingMs = Date.now() - typed;
    await page.getByRole('status').filter({ hasText: 'Loaded "big-folder"' }).waitFor({ timeout: 3_600_000 });
    const done = Date.now();
    const { longTasks, filesSeenAt } = await page.evaluate(() => {
      const w = window as unknown as { longTasks: [number, number][]; filesSeenAt: number };
      return { longTasks: w.longTasks, filesSeenAt: w.filesSeenAt };
    });
    // Only the part of each long task after the page received the files is the app's own doing.
    const own = longTasks.map(([start, duration]) => start + duration - Math.max(start, filesSeenAt)).filter((ms) => ms > 50);
    const before = longTasks.filter(([start]) => start < filesSeenAt).reduce((s, [start, d]) => s + Math.min(d, filesSeenAt - start), 0);
    console.log(
      `Chromium ${browser.version()} · pack ${packId} · backend ${await page.getByTestId('backend').innerText()} · ${count} JPEG images ${width}x${height}`,
    );
    console.log(`copy into IndexedDB      ${((copied - start) / 1000).toFixed(1)} s`);
    console.log(`embed (texts + images)   ${((done - copied) / 1000).toFixed(1)} s   (${(count / ((done - copied) / 1000)).toFixed(0)} images/s)`);
    console.log(`total                    ${((done - start) / 1000).toFixed(1)} s`);
    console.log(
      `main thread after the page received the files: ${own.length} long tasks (>50 ms), longest ${Math.max(0, ...own).toFixed(0)} ms; filling the composer mid-import took ${typingMs} ms`,
    );
    console.log(`(before that, the browser spent ${before.toFixed(0)} ms of main-thread time filling the file input with ${count + 1} files)`);
  } finally {
    busy?.kill();
    await browser.close();
    await server.close();
  }
}

/** Cancel pressed while the folder is copied, then while it is embedded: click to "stopped, as asked", on `runs` fresh pages. */
async function timeCancels(
  browser: import('@playwright/test').Browser,
  packId: string,
  dir: string,
  runs: number,
  count: number,
  busy: boolean,
): Promise<void> {
  const phases = { copying: /Handing over files|Copying images/, embedding: /Embedding/ } as const;
  const times: Record<keyof typeof phases, number[]> = { copying: [], embedding: [] };
  console.log(
    `${busy ? 'beside one busy process (sha256sum /dev/zero)' : 'nothing else started'} · load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let run = 0; run < runs; run++) {
    for (const phase of Object.keys(phases) as (keyof typeof phases)[]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://localhost:4174/?pack=${packId}&view=presenter`);
      await page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
      await page.getByRole('button', { name: 'Pool and datasets' }).click();
      await page.getByTestId('dataset-folder-input').setInputFiles(dir);
      await page.getByTestId('pool-progress').filter({ hasText: phases[phase] }).waitFor({ timeout: 600_000 });
      const clicked = Date.now();
      await page.getByRole('dialog', { name: 'Candidate pool' }).getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('status').filter({ hasText: 'stopped, as asked' }).waitFor({ timeout: 600_000 });
      times[phase].push(Date.now() - clicked);
      await context.close();
    }
  }
  console.log(`Chromium ${browser.version()} · pack ${packId} · ${count} JPEG images · ${runs} runs`);
  for (const phase of Object.keys(phases) as (keyof typeof phases)[]) {
    const each = times[phase];
    console.log(
      `Cancel while ${phase.padEnd(9)} to "stopped": median ${percentile(each, 50).toFixed(0)} ms, most ${Math.max(...each).toFixed(0)} ms   each: ${each.join(', ')}`,
    );
  }
}
