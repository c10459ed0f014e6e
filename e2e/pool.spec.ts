import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { PNG } from 'pngjs';
import { pathsAndSizesFingerprint } from '../src/engine/datasets/datasetFingerprint';
import { ASSETS, openPresenter, sendText, modelReady } from './helpers';

const POOL = join(import.meta.dirname, '..', 'public', 'pool');
const demoTexts = (JSON.parse(readFileSync(join(POOL, 'texts.json'), 'utf8')) as { texts: { text: string }[] }).texts.map((t) => t.text);
const demoImages = (JSON.parse(readFileSync(join(POOL, 'media.json'), 'utf8')) as { items: unknown[] }).items.length;
const demoTextSources = (JSON.parse(readFileSync(join(POOL, 'texts.json'), 'utf8')) as { texts: { source?: string }[] }).texts.map((t) => t.source);

function folder(files: Record<string, string | Buffer>): string {
  const root = join(mkdtempSync(join(tmpdir(), 'mmdialog-e2e-')), 'my-trip');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** A small distinct PNG per index (colour from the index), for folders of many images. */
function tinyPng(i: number): Buffer {
  const png = new PNG({ width: 16, height: 16 });
  for (let p = 0; p < 256; p++) png.data.set([(i * 37) % 256, (i * 91) % 256, (i * 13 + p) % 256, 255], p * 4);
  return PNG.sync.write(png);
}

const conversations = JSON.stringify([
  {
    conversation_id: 7,
    conversation: [
      { turn: [{ __TEXT__: 'we made it to the meadow!' }, { __MEDIA__: 'meadow' }] },
      { turn: [{ __TEXT__: 'so green, love it' }] },
      { turn: [{ __MEDIA__: 'sky' }] },
    ],
  },
]);

async function openPool(page: import('@playwright/test').Page) {
  await page.getByRole('button', { name: 'Pool and datasets' }).click();
  await expect(page.getByRole('dialog', { name: 'Candidate pool' })).toBeVisible();
}

test('the demo pool is there out of the box: replies come from it and Credits lists every image with its licence', async ({ page }) => {
  await openPresenter(page);
  await expect(page.getByTestId('pool-line')).toHaveText(`Pool: Demo pool (${demoImages} images, ${demoTexts.length} texts)`);
  await sendText(page, 'we went hiking in the mountains today');
  const reply = page.getByTestId('reply-text').last();
  await expect(reply).not.toBeEmpty();
  // The page shows a pool text's emoji shortcodes as emoji (":sun:" as ☀️): compared without either.
  const withoutEmoji = (text: string) =>
    text
      .replace(/:[a-z0-9_+-]+:|\p{Extended_Pictographic}|\uFE0F|\u200D/gu, '')
      .replace(/\s+/g, ' ')
      .trim();
  expect(demoTexts.map(withoutEmoji)).toContain(withoutEmoji(await reply.innerText()));

  await page.getByRole('button', { name: 'Credits' }).click();
  // The texts by source: the people's conversations with their credit and licence, and the project's own.
  await expect(page.getByTestId('text-credits-count')).toHaveText(demoTexts.length.toLocaleString('en'));
  const textCredits = page.getByTestId('text-credits').getByRole('listitem');
  const count = (source: string) => demoTextSources.filter((s) => s === source).length.toLocaleString('en');
  await expect(textCredits.filter({ hasText: 'DailyDialog' })).toContainText(`${count('dailydialog')} from DailyDialog (Li, Su, Shen, Li, Cao and Niu`);
  await expect(textCredits.filter({ hasText: 'DailyDialog' }).getByTestId('text-credit-licence')).toHaveText('CC BY-NC-SA 4.0');
  await expect(textCredits.filter({ hasText: 'Topical-Chat' })).toContainText(`${count('topical-chat')} from Topical-Chat`);
  await expect(textCredits.filter({ hasText: 'Topical-Chat' }).getByTestId('text-credit-licence')).toHaveText('CDLA-Sharing-1.0');
  await expect(textCredits.filter({ hasText: 'Topical-Chat' }).getByRole('link', { name: 'Topical-Chat' })).toHaveAttribute(
    'href',
    'https://github.com/alexa/Topical-Chat',
  );
  await expect(textCredits.filter({ hasText: 'written for this project' })).toBeVisible();
  await expect(page.getByTestId('credits-count')).toHaveText(String(demoImages));
  await expect(page.getByTestId('licence-breakdown')).toContainText('MIT');
  await page.getByRole('searchbox', { name: 'Search credits' }).fill('Colosseum');
  const item = page.getByRole('list', { name: 'Image credits' }).getByRole('listitem').first();
  await expect(item).toContainText('Urse Ovidiu');
  await expect(item.getByTestId('credit-licence')).toHaveText('Public domain');
  await expect(item.getByRole('img')).toHaveAttribute('alt', /Colosseum/);
});

test('a folder in MMDialog format loads, becomes the pool, and is still there after a reload', async ({ page }) => {
  const dir = folder({
    'train/conversations.json': conversations,
    'utterances.txt': 'what a view\nmiss that place already\n\nwhat a view\nshow me more pictures!\n',
    'meadow.jpg': readFileSync(join(ASSETS, 'meadow.jpg')),
    'sky.png': readFileSync(join(ASSETS, 'sky.png')),
    'notes.pdf': 'not a dataset file',
  });
  await openPresenter(page);
  await openPool(page);
  await page.getByTestId('dataset-folder-input').setInputFiles(dir);
  await expect(page.getByRole('status').filter({ hasText: 'Loaded "my-trip"' })).toContainText(
    'Loaded "my-trip": 2 images, 3 texts, 1 dialogues (1 files left out, see Pool)',
  );
  await expect(page.getByText('1 files of “my-trip” were left out')).toBeVisible();
  await page.getByRole('radio', { name: 'my-trip' }).check();
  await expect(page.getByTestId('pool-summary')).toContainText(
    'Replies come from my-trip: 2 images and 3 texts (embeddings: 0 precomputed, 5 cached, 0 computed now)',
  );
  await page.getByRole('button', { name: 'Close' }).click();
  await sendText(page, 'hello');
  await expect(page.getByTestId('reply-text').last()).toHaveText(/^(what a view|miss that place already|show me more pictures!)$/);

  await page.reload();
  await modelReady(page);
  await expect(page.getByTestId('pool-line')).toHaveText('Pool: my-trip (2 images, 3 texts)');
});

test('a zip with conversations.json and its images loads the same way', async ({ page }) => {
  const zip = zipSync({
    'holiday/conversations.json': new TextEncoder().encode(conversations),
    'holiday/meadow.jpg': new Uint8Array(readFileSync(join(ASSETS, 'meadow.jpg'))),
    'holiday/sky.png': new Uint8Array(readFileSync(join(ASSETS, 'sky.png'))),
  });
  await openPresenter(page);
  await openPool(page);
  await page.getByTestId('dataset-zip-input').setInputFiles({ name: 'holiday.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  // Without an utterance file, the texts of the dialogues are the text pool.
  await expect(page.getByRole('status').filter({ hasText: 'Loaded "holiday"' })).toContainText('Loaded "holiday": 2 images, 2 texts, 1 dialogues.');
  await page.getByRole('radio', { name: 'holiday' }).check();
  await expect(page.getByTestId('pool-summary')).toContainText('Replies come from holiday: 2 images and 2 texts');
});

test('a corrected copy of a dataset (a typo fixed, same names and sizes) loads beside the first; the same files under other names are found as loaded', async ({
  page,
}) => {
  const sky = new Uint8Array(readFileSync(join(ASSETS, 'sky.png')));
  const zip = (top: string, files: Record<string, Uint8Array>) => ({
    name: `${top}.zip`,
    mimeType: 'application/zip',
    buffer: Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([path, bytes]) => [`${top}/${path}`, bytes])))),
  });
  const line = (text: string) => new TextEncoder().encode(text);
  await openPresenter(page);
  await openPool(page);
  const input = page.getByTestId('dataset-zip-input');
  await input.setInputFiles(zip('trip', { 'lines.txt': line('hte view from the top\n'), 'sky.png': sky }));
  await expect(page.getByRole('status').filter({ hasText: 'Loaded "trip"' })).toContainText('Loaded "trip": 1 images, 1 texts, 0 dialogues.');
  // The fix has the same length, so the files have the same names and sizes: only their content tells them apart.
  await input.setInputFiles(zip('trip', { 'lines.txt': line('the view from the top\n'), 'sky.png': sky }));
  const second = page.getByRole('status').filter({ hasText: 'Loaded "trip (2)"' });
  await expect(second).toContainText('Loaded "trip (2)": 1 images, 1 texts, 0 dialogues. Its files differ from those of "trip" (loaded ');
  await expect(second).toContainText('which is kept as it was; delete that one if this one replaces it.');
  await expect(page.getByTestId('stored-dataset')).toHaveCount(2);
  await page.getByRole('radio', { name: 'trip (2)', exact: true }).check();
  await expect(page.getByTestId('pool-summary')).toContainText('Replies come from trip (2): 1 images and 1 texts');
  // The corrected files again, in another zip and under other names: the same content, so already loaded.
  await input.setInputFiles(zip('summit', { 'said.txt': line('the view from the top\n'), 'photo.png': sky }));
  const refused = page.getByRole('alert').filter({ hasText: 'could not be loaded' });
  await expect(refused).toContainText('These files are already loaded, as "trip (2)" (');
  await expect(refused).toContainText(': "summit" holds the same content under another name.');
  await expect(page.getByTestId('stored-dataset')).toHaveCount(2);
});

test('a dataset stored before content fingerprints still loads; the same files again are found by content, and a corrected copy gets in', async ({ page }) => {
  const sky = new Uint8Array(readFileSync(join(ASSETS, 'sky.png')));
  const trip = (text: string) => ({
    name: 'trip.zip',
    mimeType: 'application/zip',
    buffer: Buffer.from(zipSync({ 'trip/lines.txt': new TextEncoder().encode(text), 'trip/sky.png': sky })),
  });
  await openPresenter(page);
  await openPool(page);
  await page.getByTestId('dataset-zip-input').setInputFiles(trip('hte view from the top\n'));
  await expect(page.getByTestId('dataset-status')).toHaveText('ready');
  // What the earlier version stored: a fingerprint of the paths (inside the zip's folder) and sizes.
  const legacy = pathsAndSizesFingerprint([
    { path: 'lines.txt', blob: new Blob(['hte view from the top\n']) },
    { path: 'sky.png', blob: new Blob([sky]) },
  ]);
  const manifest = (fingerprint: string | null) =>
    page.evaluate(async (fingerprint) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) =>
        Object.assign(indexedDB.open('mmdialog-datasets'), {
          onsuccess(this: IDBRequest<IDBDatabase>) {
            resolve(this.result);
          },
          onerror: reject,
        }),
      );
      const items = db.transaction('items', 'readwrite').objectStore('items');
      const keys = (
        await new Promise<IDBValidKey[]>((resolve) =>
          Object.assign(items.getAllKeys(), {
            onsuccess(this: IDBRequest<IDBValidKey[]>) {
              resolve(this.result);
            },
          }),
        )
      ).filter((k) => typeof k === 'string' && k.startsWith('dataset:'));
      const stored = await new Promise<{ fingerprint?: string }>((resolve) =>
        Object.assign(items.get(keys[0]!), {
          onsuccess(this: IDBRequest) {
            resolve(this.result as { fingerprint?: string });
          },
        }),
      );
      if (fingerprint !== null) await new Promise((resolve) => Object.assign(items.put({ ...stored, fingerprint }, keys[0]), { onsuccess: resolve }));
      db.close();
      return stored.fingerprint;
    }, fingerprint);
  expect(await manifest(legacy)).toMatch(/^sha256:[0-9a-f]{64}$/);
  await page.reload();
  await modelReady(page);
  await openPool(page);
  await page.getByRole('radio', { name: 'trip', exact: true }).check();
  await expect(page.getByTestId('pool-summary')).toContainText('Replies come from trip: 1 images and 1 texts');
  await page.getByTestId('dataset-zip-input').setInputFiles(trip('hte view from the top\n'));
  await expect(page.getByRole('alert').filter({ hasText: 'could not be loaded' })).toContainText('These files are already loaded, as "trip" (');
  expect(await manifest(null)).toMatch(/^sha256:[0-9a-f]{64}$/); // found by content, it took the new fingerprint
  await page.getByTestId('dataset-zip-input').setInputFiles(trip('the view from the top\n'));
  await expect(page.getByRole('status').filter({ hasText: 'Loaded "trip (2)"' })).toContainText('Loaded "trip (2)": 1 images, 1 texts');
  await expect(page.getByTestId('stored-dataset')).toHaveCount(2);
});

test('a malformed dataset is refused with a message that names the file, record and field, and nothing stored is lost', async ({ page }) => {
  const good = folder({ 'utterances.txt': 'first line\nsecond line\n', 'sky.png': readFileSync(join(ASSETS, 'sky.png')) });
  const bad = folder({
    'test/conversations.json': JSON.stringify([{ conversation_id: 3, conversation: [{ turn: [{ __MEDIA__: 'missing-photo' }] }] }]),
    'sky.png': readFileSync(join(ASSETS, 'sky.png')),
  });
  await openPresenter(page);
  await openPool(page);
  await page.getByTestId('dataset-folder-input').setInputFiles(good);
  await expect(page.getByTestId('stored-dataset')).toHaveCount(1);
  await expect(page.getByTestId('dataset-status')).toHaveText('ready');
  await page.getByTestId('dataset-folder-input').setInputFiles(bad);
  await expect(page.getByRole('alert').filter({ hasText: 'could not be loaded' })).toContainText('test/conversations.json, record 0 (conversation_id 3)');
  await expect(page.getByRole('alert').filter({ hasText: 'could not be loaded' })).toContainText('missing-photo');
  await expect(page.getByTestId('stored-dataset')).toHaveCount(1);
  await expect(page.getByTestId('pool-summary')).toContainText('Demo pool');
});

test('a reload in the middle of embedding a large folder resumes from what was stored', async ({ page }) => {
  const files: Record<string, Buffer | string> = { 'lines.txt': 'one\ntwo\nthree\n' };
  for (let i = 0; i < 600; i++) files[`img-${String(i).padStart(4, '0')}.png`] = tinyPng(i);
  const dir = folder(files);
  await openPresenter(page);
  await openPool(page);
  await page.getByTestId('dataset-folder-input').setInputFiles(dir);
  const progress = page.getByTestId('pool-progress');
  await expect(progress).toContainText(/Embedding images.*\d+ of 600/);
  await page.reload();
  await modelReady(page);
  await expect(page.getByRole('status').filter({ hasText: 'Finished loading "my-trip"' })).toBeVisible({ timeout: 120_000 });
  await openPool(page);
  await expect(page.getByTestId('dataset-status')).toHaveText('ready');
  await page.getByRole('radio', { name: 'my-trip' }).check();
  // Every row was stored by one of the two runs, so choosing the pool computes nothing.
  await expect(page.getByTestId('pool-summary')).toContainText('my-trip: 600 images and 3 texts (embeddings: 0 precomputed, 603 cached, 0 computed now)');
});
