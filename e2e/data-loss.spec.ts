import { type Page, expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { PNG } from 'pngjs';
import { asset, choosePhotos, exportConversationAs, openPoolDialog, openPresenter, openReady, sendText, storeConversation, modelReady } from './helpers';

// Issue 16, "Data loss": each finding of the probe, reproduced as the probe did it.
const you = (page: Page) => page.getByRole('listitem', { name: 'You said' });
const replies = (page: Page) => page.getByRole('listitem', { name: 'The system replied' });
const notice = (page: Page, text: string | RegExp) => page.getByRole('status').or(page.getByRole('alert')).filter({ hasText: text });

async function exchange(page: Page, text: string, repliesAfter: number): Promise<void> {
  await sendText(page, text);
  await expect(replies(page)).toHaveCount(repliesAfter);
}

/** Whether every photo in the conversation has loaded real pixels (a missing Blob shows a grey placeholder). */
const photosLoaded = (page: Page) =>
  page
    .getByRole('list', { name: 'Conversation' })
    .getByRole('img')
    .evaluateAll((imgs) => imgs.length > 0 && imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));

test.describe('two tabs', () => {
  test('sending in turn from two tabs keeps every turn: each tab shows both, and a reload too', async ({ page: a, context }) => {
    await openReady(a);
    const b = await context.newPage();
    await openReady(b);
    await exchange(a, 'one from A', 1);
    await expect(you(b)).toHaveText(['one from A']);
    await exchange(b, 'two from B', 2);
    await exchange(a, 'three from A', 3);
    await exchange(b, 'four from B', 4);
    const all = ['one from A', 'two from B', 'three from A', 'four from B'];
    await expect(you(a)).toHaveText(all);
    await a.reload();
    await expect(you(a)).toHaveText(all);
    await expect(replies(a)).toHaveCount(4);
    await b.reload();
    await expect(you(b)).toHaveText(all);
  });

  test("a new conversation in one tab shows in the other; its Undo brings back the other tab's photo, and nothing cleared comes back by itself", async ({
    page: a,
    context,
  }) => {
    await openPresenter(a);
    const b = await context.newPage();
    await openPresenter(b);
    await choosePhotos(b, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
    await exchange(b, 'look at this meadow', 1);
    await expect(you(a)).toHaveText([/look at this meadow$/]);

    await a.getByRole('button', { name: 'New conversation' }).click();
    await expect(you(a)).toHaveCount(0);
    await expect(you(b)).toHaveCount(0);
    await expect(notice(b, 'Another tab of this page started a new conversation')).toBeVisible();

    // Undo in A: the photo turn is back in both tabs, with its photo's pixels.
    await a.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect(you(a)).toHaveText([/look at this meadow$/]);
    await expect(you(b)).toHaveText([/look at this meadow$/]);
    await expect.poll(() => photosLoaded(b)).toBe(true);

    // A clears again and B goes on: B's new turn is kept, the cleared conversation does not come back.
    await a.getByRole('button', { name: 'New conversation' }).click();
    await expect(you(b)).toHaveCount(0);
    await exchange(b, 'a fresh start', 1);
    await b.reload();
    await expect(you(b)).toHaveText(['a fresh start']);
    await a.reload();
    await expect(you(a)).toHaveText(['a fresh start']);
  });
});

test('a kiosk link over a saved conversation keeps it: idle is at least 10 s, and the reset clears only the kiosk conversation', async ({ page }) => {
  // The page's own clock, so the test moves the kiosk's idle time itself (a busy machine cannot run it down between checks).
  await page.clock.install();
  await openReady(page);
  await exchange(page, 'my own conversation', 1);
  await page.goto('/?pack=test-tiny-clip&kiosk=1&idle=1');
  await modelReady(page);
  // Kiosk mode has its own conversation; the page's is put aside, not erased.
  await expect(you(page)).toHaveCount(0);
  await exchange(page, 'a visitor at the stand', 1);
  // Paused a second ahead, so the page's flowing time cannot pass the pause before it is asked for.
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
  // A key starts the idle time over: ?idle=1 asked for 1 s, and it is 10 s.
  await page.getByRole('textbox', { name: 'Message' }).press('Shift');
  const countdown = page.getByRole('timer');
  await expect(countdown).toHaveText(/^Resetting in 10 s/);
  await page.clock.runFor(9_000);
  await expect(countdown).toHaveText(/^Resetting in 1 s/);
  await expect(you(page)).toHaveCount(1);
  await page.clock.runFor(1_000);
  await expect(you(page)).toHaveCount(0);
  await page.clock.resume();
  await page.goto('/?pack=test-tiny-clip');
  await expect(you(page)).toHaveText(['my own conversation']);
  await expect(replies(page)).toHaveCount(1);
});

test('a full disk keeps the turn on screen, says what to delete, and Retry saves it', async ({ page }) => {
  // Writes to the conversation store fail as they do when the disk is full, until the test lifts it.
  await page.addInitScript(() => {
    // The original method, called below with each store as `this`.
    const put = Reflect.get(IDBObjectStore.prototype, 'put');
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if ((globalThis as { diskFull?: boolean }).diskFull && this.name === 'conversation') throw new DOMException('Quota exceeded', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await openReady(page);
  await page.evaluate(() => ((globalThis as { diskFull?: boolean }).diskFull = true));
  await exchange(page, 'will this be kept?', 1);
  const failure = notice(
    page,
    /on screen but not saved yet: the browser's storage for this page is full\. It needs about \d+ kB more\. This page uses .* of the .* the browser allows it\./,
  );
  await expect(failure).toBeVisible();
  await expect(failure).toContainText('then press Retry');
  await expect(you(page)).toHaveText(['will this be kept?']);

  await page.evaluate(() => ((globalThis as { diskFull?: boolean }).diskFull = false));
  await failure.getByRole('button', { name: 'Retry' }).click();
  await expect(notice(page, 'Saved: every turn on screen is stored again.')).toBeVisible();
  await page.reload();
  await expect(you(page)).toHaveText(['will this be kept?']);
  await expect(replies(page)).toHaveCount(1);
});

test('a turn whose save failed survives a reload before Retry: this tab keeps it in session storage until it is saved', async ({ page }) => {
  // The disk stays full across reloads (the flag lives in this tab's session storage) until the test lifts it.
  await page.addInitScript(() => {
    // The original method, called below with each store as `this`.
    const put = Reflect.get(IDBObjectStore.prototype, 'put');
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (sessionStorage.getItem('test-disk-full') === '1' && this.name === 'conversation') throw new DOMException('Quota exceeded', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await openReady(page);
  await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
  await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
  await page.evaluate(() => sessionStorage.setItem('test-disk-full', '1'));
  await exchange(page, 'will this be kept?', 1);
  await expect(notice(page, 'on screen but not saved yet')).toContainText(
    'Until then this tab keeps them in its session storage, so a reload does not lose them.',
  );

  // Leaving the page now asks first (closing the tab would lose what only its session storage holds); the reload is let through.
  const asked: string[] = [];
  page.once('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
  await expect(notice(page, 'could not be saved before the page was reloaded are back on screen: this tab kept them in its session storage')).toBeVisible();
  await expect(you(page)).toHaveText([/will this be kept\?$/]);
  await expect(replies(page)).toHaveCount(1);
  await expect.poll(() => photosLoaded(page)).toBe(true);
  // Still full: saving again fails and offers Retry, which works once there is room.
  const failure = notice(page, 'on screen but not saved yet');
  await expect(failure).toBeVisible();
  await page.evaluate(() => sessionStorage.removeItem('test-disk-full'));
  await failure.getByRole('button', { name: 'Retry' }).click();
  await expect(notice(page, 'Saved: every turn on screen is stored again.')).toBeVisible();
  await expect.poll(() => page.evaluate(() => sessionStorage.getItem('mmdialog-unsaved-turns'))).toBeNull();

  // Stored now: a reload reads it from IndexedDB, with nothing left in session storage, and asks nothing.
  page.once('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
  await expect(you(page)).toHaveText([/will this be kept\?$/]);
  await expect(replies(page)).toHaveCount(1);
  await expect.poll(() => photosLoaded(page)).toBe(true);
  await expect(notice(page, 'back on screen')).toHaveCount(0);
});

test.describe('the app reads its own exports', () => {
  test('a text-only chat exported as MMDialog JSON loads back as a dataset', async ({ page }) => {
    await openPresenter(page);
    await exchange(page, 'we went to the lake', 1);
    await exchange(page, 'the water was cold', 2);
    const exported = await exportConversationAs(page, 'MMDialog JSON');
    await openPoolDialog(page);
    await page.getByTestId('dataset-zip-input').setInputFiles(exported.path);
    await expect(page.getByRole('status').filter({ hasText: 'Loaded "' })).toContainText(
      /Loaded "conversation-\d{8}-\d{6}-mmdialog": 0 images, 4 texts, 1 dialogues\./,
    );
  });

  test('a chat of 110 exchanges (220 turns, over the 200-turn limit of a dialogue) exports as two parts that load back', async ({ page }) => {
    await openPresenter(page);
    const messages = Array.from({ length: 220 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 === 0 ? 'user' : 'assistant',
      createdAt: 1_700_000_000_000 + i,
      elements: [{ kind: 'text', text: `message number ${i}` }],
    }));
    await storeConversation(page, 'main', messages);
    await page.reload();
    // The page shows the latest 60 messages; the export holds all 220.
    await expect(you(page)).toHaveCount(30);
    await expect(page.getByRole('button', { name: 'Show 60 earlier messages (160 not shown)' })).toBeVisible();
    const exported = await exportConversationAs(page, 'MMDialog JSON');
    await openPoolDialog(page);
    await page.getByTestId('dataset-zip-input').setInputFiles(exported.path);
    await expect(page.getByRole('status').filter({ hasText: 'Loaded "' })).toContainText('0 images, 220 texts, 2 dialogues.');
  });
});

/** A small distinct PNG per index, for datasets of many images. */
function tinyPng(i: number): Buffer {
  const png = new PNG({ width: 16, height: 16 });
  for (let p = 0; p < 256; p++) png.data.set([(i * 37) % 256, (i * 91) % 256, (i * 13 + p) % 256, 255], p * 4);
  return PNG.sync.write(png);
}

const zipFile = (name: string, files: Record<string, Uint8Array>) => ({ name, mimeType: 'application/zip', buffer: Buffer.from(zipSync(files)) });
const text = (s: string) => new TextEncoder().encode(s);
const loaded = (page: Page) => page.getByRole('status').filter({ hasText: 'Loaded "' });
const refused = (page: Page) => page.getByRole('alert').filter({ hasText: 'could not be loaded' }).last();

test.describe('datasets', () => {
  test('a truncated JPEG in a zip is left out and named; the rest finishes and stays ready after a reload', async ({ page }) => {
    const meadow = asset('meadow.jpg');
    await openPresenter(page);
    await openPoolDialog(page);
    await page.getByTestId('dataset-zip-input').setInputFiles(
      zipFile('trip.zip', {
        'trip/lines.txt': text('what a view\nso green\n'),
        'trip/sky.png': new Uint8Array(asset('sky.png')),
        'trip/cut.jpg': new Uint8Array(meadow.subarray(0, Math.floor(meadow.length * 0.4))),
      }),
    );
    await expect(loaded(page)).toContainText('Loaded "trip": 1 images, 2 texts, 0 dialogues (1 files left out, see Pool).');
    await page.getByText('1 files of “trip” were left out').click();
    await expect(page.getByText('cut: it could not be decoded, so the file is damaged or incomplete; it was left out.')).toBeVisible();
    await expect(page.getByTestId('dataset-status')).toHaveText('ready');
    await page.reload();
    await modelReady(page);
    await openPoolDialog(page);
    await expect(page.getByTestId('dataset-status')).toHaveText('ready');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('deleting a dataset while it embeds stops the import; it does not come back after a reload', async ({ page }) => {
    const files: Record<string, Uint8Array> = { 'big/lines.txt': text('one\ntwo\n') };
    // Enough images that the import is still embedding when Delete is clicked, even on a loaded machine.
    for (let i = 0; i < 2000; i++) files[`big/img-${String(i).padStart(4, '0')}.png`] = new Uint8Array(tinyPng(i));
    await openPresenter(page);
    await openPoolDialog(page);
    await page.getByTestId('dataset-zip-input').setInputFiles(zipFile('big.zip', files));
    await expect(page.getByTestId('pool-progress')).toContainText(/Embedding images.*\d+ of 2000/);
    // A reload lists the dataset as "embedding (continues automatically)" while it resumes: delete it then.
    await page.reload();
    await modelReady(page);
    await openPoolDialog(page);
    await expect(page.getByTestId('pool-progress')).toBeVisible();
    await page.getByRole('button', { name: 'Delete big' }).click();
    await expect(page.getByTestId('stored-dataset')).toHaveCount(0);
    await expect(
      page.getByRole('status').filter({ hasText: '"big" was deleted while it loaded, so loading it stopped and nothing of it is kept.' }),
    ).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('stored-dataset')).toHaveCount(0);
    await page.reload();
    await modelReady(page);
    await openPoolDialog(page);
    await expect(page.getByTestId('stored-dataset')).toHaveCount(0);
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('the same zip twice, a zip inside a zip, and a zip bomb each get a true sentence and leave no broken entry', async ({ page }) => {
    await openPresenter(page);
    await openPoolDialog(page);
    const trip = zipFile('trip.zip', { 'trip/lines.txt': text('what a view\n'), 'trip/sky.png': new Uint8Array(asset('sky.png')) });
    await page.getByTestId('dataset-zip-input').setInputFiles(trip);
    await expect(loaded(page)).toContainText('Loaded "trip": 1 images, 1 texts');
    await page.getByTestId('dataset-zip-input').setInputFiles(trip);
    await expect(refused(page)).toContainText('These files are already loaded, as "trip"');
    await expect(page.getByTestId('stored-dataset')).toHaveCount(1);

    const inner = zipSync({ 'sky.png': new Uint8Array(asset('sky.png')) });
    await page.getByTestId('dataset-zip-input').setInputFiles(zipFile('nested.zip', { 'nested/inner.zip': inner }));
    await expect(refused(page)).toContainText(
      'Nothing in nested.zip can be loaded: it holds only other zips (nested/inner.zip), and zips inside a zip are not opened.',
    );

    // A "zip bomb": 50 small entries that declare 49 MB each once unpacked (2.4 GB in all).
    const bombFiles: Record<string, Uint8Array> = {};
    for (let i = 0; i < 50; i++) bombFiles[`bomb/img-${i}.png`] = new Uint8Array(tinyPng(i));
    const bomb = Buffer.from(zipSync(bombFiles, { level: 0 }));
    for (let at = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4))
      bomb.writeUInt32LE(49 * 1024 * 1024, at + 24);
    await page.getByTestId('dataset-zip-input').setInputFiles({ name: 'bomb.zip', mimeType: 'application/zip', buffer: bomb });
    await expect(refused(page)).toContainText(
      /bomb\.zip would unpack to more than 2 GB from 0\.\d MB, more than this tab can hold \(or it is a "zip bomb"\), so it was not opened\./,
    );
    await expect(page.getByTestId('stored-dataset')).toHaveCount(1);
    await expect(page.getByTestId('dataset-status')).toHaveText('ready');
  });
});
