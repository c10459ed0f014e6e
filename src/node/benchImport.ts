import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';

/**
 * npm run bench -- import [--images 10000] [--pack mini-clip]
 * Loads a generated folder of N photos (96x72 JPEG, distinct content) into the production build in
 * Chromium, as a person choosing a folder would, and prints how long copying and embedding took and
 * how long the page's main thread was ever blocked (Long Tasks API) while it ran.
 */
export async function importBench(args: string[]): Promise<void> {
  const option = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
  };
  const count = Number(option('images', '10000'));
  const packId = option('pack', 'mini-clip');
  const root = mkdtempSync(join(tmpdir(), 'mmdialog-import-'));
  const dir = join(root, 'big-folder');
  mkdirSync(dir);
  const width = 96, height = 72;
  for (let i = 0; i < count; i++) {
    const data = Buffer.alloc(width * height * 4);
    for (let p = 0; p < width * height; p++) {
      const x = p % width, y = Math.floor(p / width);
      data.set([(x * 3 + i * 7) % 256, (y * 3 + i * 13) % 256, (x + y + i) % 256, 255], p * 4);
    }
    writeFileSync(join(dir, `photo-${String(i).padStart(5, '0')}.jpg`), jpeg.encode({ data, width, height }, 80).data);
  }
  writeFileSync(join(dir, 'utterances.txt'), Array.from({ length: 200 }, (_, i) => `utterance number ${i}`).join('\n'));

  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../../e2e/chromium');
  const server = await preview({ preview: { port: 4174, strictPort: true } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  try {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`http://localhost:4174/?pack=${packId}`);
    await page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
    await page.evaluate(() => ((window as unknown as { longTasks: number[] }).longTasks.length = 0));
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
    const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    console.log(`Chromium ${browser.version()} · pack ${packId} · backend ${await page.getByTestId('backend').innerText()} · ${count} JPEG images ${width}x${height}`);
    console.log(`copy into IndexedDB      ${((copied - start) / 1000).toFixed(1)} s`);
    console.log(`embed (texts + images)   ${((done - copied) / 1000).toFixed(1)} s   (${(count / ((done - copied) / 1000)).toFixed(0)} images/s)`);
    console.log(`total                    ${((done - start) / 1000).toFixed(1)} s`);
    console.log(`main thread: ${longTasks.length} long tasks (>50 ms) during the import, longest ${Math.max(0, ...longTasks).toFixed(0)} ms; filling the composer took ${typingMs} ms`);
  } finally {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
