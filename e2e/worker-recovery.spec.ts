import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { PNG } from 'pngjs';
import { openPoolDialog, openPresenter, openReady, sendText, modelReady } from './helpers';

/**
 * The fault this spec injects: the model worker's error event, as the browser fires it when the
 * worker's code throws or runs out of memory. The test keeps a handle on each model worker the page
 * starts (wrapping the Worker constructor before the page's scripts run); nothing of this is in the app.
 */
async function keepWorkerHandles(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Original = window.Worker;
    const started: Worker[] = [];
    (globalThis as { modelWorkers?: Worker[] }).modelWorkers = started;
    window.Worker = class extends Original {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        if (options?.name === 'mmdialog-models') started.push(this);
      }
    };
  });
}

async function crashModelWorker(page: Page, reason: string): Promise<void> {
  await page.evaluate((message) => {
    const workers = (globalThis as { modelWorkers?: Worker[] }).modelWorkers ?? [];
    workers.at(-1)?.dispatchEvent(new ErrorEvent('error', { message }));
  }, reason);
}

const workersStarted = (page: Page) => page.evaluate(() => (globalThis as { modelWorkers?: Worker[] }).modelWorkers?.length ?? 0);

test.describe('the model worker stops', () => {
  test('is restarted with the same pack, keeps the conversation on screen and in storage, and answers again', async ({ page }) => {
    await keepWorkerHandles(page);
    await openReady(page);
    await sendText(page, 'I love hiking in the mountains');
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await expect(replies).toHaveCount(1);
    const firstReply = await replies.first().innerText();
    await crashModelWorker(page, 'test crash');
    await expect(page.getByRole('status').filter({ hasText: 'The model worker stopped and was restarted; your conversation is kept.' })).toBeVisible();
    await modelReady(page);
    expect(await workersStarted(page)).toBe(2);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('I love hiking in the mountains');
    await expect(replies.first()).toHaveText(firstReply);
    await sendText(page, 'what about the beach?');
    await expect(replies).toHaveCount(2);
    await expect(page.getByRole('alert')).toHaveCount(0);
    // Still there after a reload: the conversation was never only in the crashed worker.
    await page.reload();
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText(['I love hiking in the mountains', 'what about the beach?']);
  });

  test('a worker killed without any event (no error, no answer) is found by its missing heartbeat and restarted, and the conversation stays', async ({
    page,
  }) => {
    await keepWorkerHandles(page);
    await openReady(page);
    await sendText(page, 'I love hiking in the mountains');
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await expect(replies).toHaveCount(1);
    // terminate() stops the worker silently: the page hears nothing more from it.
    await page.evaluate(() => (globalThis as { modelWorkers?: Worker[] }).modelWorkers?.at(-1)?.terminate());
    // A busy worker is allowed a minute of silence (heartbeat.ts); an idle one three beats.
    await expect(page.getByRole('status').filter({ hasText: 'The model worker stopped and was restarted; your conversation is kept.' })).toBeVisible({
      timeout: 90_000,
    });
    expect(await workersStarted(page)).toBe(2);
    await modelReady(page);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('I love hiking in the mountains');
    await sendText(page, 'what about the beach?');
    await expect(replies).toHaveCount(2);
  });

  test('a third crash within a minute is not restarted: the page says what to do, and the conversation stays', async ({ page }) => {
    await keepWorkerHandles(page);
    await openReady(page);
    await sendText(page, 'hello there');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    for (let crash = 1; crash <= 2; crash++) {
      await crashModelWorker(page, `crash ${crash}`);
      await expect.poll(() => workersStarted(page)).toBe(crash + 1);
    }
    await crashModelWorker(page, 'crash 3');
    await expect(
      page.getByText(
        /The model worker stopped again \(crash 3\): 3 times within a minute, so it is not restarted again\. Your conversation is kept\. Reload the page/,
      ),
    ).toBeVisible();
    expect(await workersStarted(page)).toBe(3);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('hello there');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    // A turn typed now is not told to wait for a Ready that will not come: it is told to reload, and stays in the box.
    await sendText(page, 'are you there?');
    await expect(page.getByRole('alert').filter({ hasText: 'No reply can be made now: The model worker stopped again (crash 3)' })).toContainText(
      'Reload the page',
    );
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('are you there?');
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(1);
  });
});

/** A small distinct PNG per index, for a folder large enough to be still embedding when Cancel is pressed. */
function tinyPng(i: number): Buffer {
  const png = new PNG({ width: 16, height: 16 });
  for (let p = 0; p < 256; p++) png.data.set([(i * 37) % 256, (i * 91) % 256, (i * 13 + p) % 256, 255], p * 4);
  return PNG.sync.write(png);
}

test('Cancel stops a dataset being embedded, quietly, keeps nothing of it, and nothing resumes after a reload', async ({ page }) => {
  const root = join(mkdtempSync(join(tmpdir(), 'mmdialog-e2e-')), 'big-trip');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'lines.txt'), 'one\ntwo\nthree\n');
  for (let i = 0; i < 600; i++) writeFileSync(join(root, `img-${String(i).padStart(4, '0')}.png`), tinyPng(i));
  await openPresenter(page);
  await openPoolDialog(page);
  await page.getByTestId('dataset-folder-input').setInputFiles(root);
  await expect(page.getByTestId('pool-progress')).toContainText(/Embedding images.*\d+ of 600/);
  await page.getByRole('dialog', { name: 'Candidate pool' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Loading "big-trip" stopped, as asked. Nothing of it is kept: load it again to use it.' }),
  ).toBeVisible();
  await expect(page.getByTestId('pool-progress')).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByTestId('dataset-status')).toHaveCount(0);
  // The chat answers as before.
  await page.keyboard.press('Escape');
  await sendText(page, 'hello');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  // Nothing was left to finish loading by itself.
  await page.reload();
  await modelReady(page);
  await openPoolDialog(page);
  await expect(page.getByTestId('dataset-status')).toHaveCount(0);
  await expect(page.getByTestId('pool-progress')).toHaveCount(0);
});

test('Cancel while the files are still being copied stops at once and keeps nothing', async ({ page }) => {
  const root = join(mkdtempSync(join(tmpdir(), 'mmdialog-e2e-')), 'early-trip');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'lines.txt'), 'one\ntwo\nthree\n');
  for (let i = 0; i < 1500; i++) writeFileSync(join(root, `img-${String(i).padStart(4, '0')}.png`), tinyPng(i));
  await openPresenter(page);
  await openPoolDialog(page);
  await page.getByTestId('dataset-folder-input').setInputFiles(root);
  await expect(page.getByTestId('pool-progress')).toContainText(/Handing over files|Copying images/);
  await page.getByRole('dialog', { name: 'Candidate pool' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Loading "early-trip" stopped, as asked. Nothing of it is kept' })).toBeVisible();
  await expect(page.getByTestId('pool-progress')).toHaveCount(0);
  await expect(page.getByTestId('dataset-status')).toHaveCount(0);
});

test.describe('memory', () => {
  test('a pack too large for the memory the device reports is refused before loading, with the smaller pack offered', async ({ page }) => {
    // A device that reports a quarter of a GB (navigator.deviceMemory's smallest value).
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => 0.25 }));
    await page.goto('/?pack=test-tiny-clip');
    const status = page.getByRole('region', { name: 'Model status' });
    await expect(status.getByRole('alert')).toContainText(
      /^test-tiny-clip \(random weights\) needs about 0\.\d GB of memory, more than this device can give a browser tab \(it reports 0\.25 GB in all\), so it was not loaded: loading it could crash the tab\. Choose .+ in Settings, or use a device with more memory\.$/,
    );
    await expect(page.getByTestId('model-phase')).toHaveText('Not loaded');
    await expect(page.getByRole('button', { name: /^Use / })).toBeVisible();
  });

  test('after the whole tab crashed, the next load says so, offers the default pack, and the conversation is kept', async ({ page }) => {
    // A crashed tab runs nothing more, so its page never clears its mark. Playwright cannot drive a
    // crashed page (CDP Page.crash leaves it dead to the test), so the test stands in for the crash by
    // keeping this page from clearing its mark as it is left, then reloads.
    await openReady(page);
    await sendText(page, 'I love hiking in the mountains');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.evaluate(() => {
      const remove = Object.getOwnPropertyDescriptor(Storage.prototype, 'removeItem')!.value as (this: Storage, key: string) => void;
      Storage.prototype.removeItem = function (key: string) {
        if (key !== 'mmdialog-page-open') remove.call(this, key);
      };
    });
    await page.reload();
    await expect(
      page.getByRole('alert').filter({ hasText: 'The last visit in this tab ended in a crash while test-tiny-clip (random weights) was in use' }),
    ).toContainText('Your conversation is kept.');
    await expect(page.getByRole('button', { name: /^Use / })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('I love hiking in the mountains');
    // A page left normally leaves no mark: the next reload says nothing of a crash.
    await modelReady(page);
    await page.reload();
    await modelReady(page);
    await expect(page.getByText('ended in a crash')).toHaveCount(0);
  });
});
