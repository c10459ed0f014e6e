import { type Browser, type Page, chromium, expect, test } from '@playwright/test';
import { escapeMarkdown } from '../src/engine/datasets/conversationExport';
import { parseConversations } from '../src/engine/datasets/mmdialog';
import { BASE_ARGS, CHROMIUM_PATH, TEST_ARGS } from '../src/node/tools/chromium';
import { asset, choosePhotos, exportConversationAs, openPoolDialog, openPresenter, openReady, sendText } from './helpers';

const you = (page: Page) => page.getByRole('listitem', { name: 'You said' });
const replies = (page: Page) => page.getByRole('listitem', { name: 'The system replied' });
const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const tray = (page: Page) => page.getByRole('list', { name: 'Photos to send' });

/** A turn with the meadow photo and a text, then a text-only turn, each answered. */
async function twoExchanges(page: Page): Promise<void> {
  await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
  await expect(tray(page).getByRole('img')).toHaveCount(1);
  await sendText(page, 'our picnic spot');
  await expect(replies(page)).toHaveCount(1);
  await sendText(page, 'and the weather was perfect');
  await expect(replies(page)).toHaveCount(2);
}

/** What a reply shows, in order: its texts, and its pool images by alt text. */
async function replyContents(page: Page, index: number): Promise<({ text: string } | { alt: string })[]> {
  return replies(page)
    .nth(index)
    .locator('[data-testid="reply-text"], [data-testid="reply-image"]')
    .evaluateAll((els) => els.map((el) => (el instanceof HTMLImageElement ? { alt: el.alt } : { text: (el as HTMLElement).innerText })));
}

test.describe('undo and new conversation', () => {
  test('undo removes the last exchange and puts its text and photo back; Undo takes it back; Ctrl+Z works outside the text box; it is stored', async ({
    page,
  }) => {
    await openPresenter(page);
    await sendText(page, 'we went to the lake');
    await expect(replies(page)).toHaveCount(1);
    await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
    await expect(tray(page).getByRole('img')).toHaveCount(1);
    await sendText(page, 'then to the meadow');
    await expect(replies(page)).toHaveCount(2);
    await expect(composer(page)).toHaveValue('');

    await page.getByRole('button', { name: 'Undo last turn' }).click();
    await expect(you(page)).toHaveCount(1);
    await expect(replies(page)).toHaveCount(1);
    await expect(you(page)).toHaveText('we went to the lake');
    await expect(composer(page)).toHaveValue('then to the meadow');
    await expect(tray(page).getByRole('img', { name: 'Photo to send: meadow.jpg' })).toBeVisible();
    const notice = page.getByRole('status').filter({ hasText: 'Removed your last turn and its reply.' });
    await expect(notice).toHaveText(/Removed your last turn and its reply\. Its text and photos are back in the message box\./);

    // Undo the undo: the exchange comes back, and the composer is empty again.
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect(replies(page)).toHaveCount(2);
    await expect(you(page).nth(1)).toContainText('then to the meadow');
    await expect(
      you(page)
        .nth(1)
        .getByRole('img', { name: /^Shared photo: / }),
    ).toBeVisible();
    await expect(composer(page)).toHaveValue('');
    await expect(tray(page)).toHaveCount(0);

    // Ctrl+Z in the text box undoes typing; outside it, it undoes the last turn.
    await composer(page).fill('draft');
    await composer(page).press('Control+z');
    await expect(replies(page)).toHaveCount(2);
    await composer(page).fill('');
    await page.getByRole('heading', { name: 'MMDialog in the browser' }).click();
    await page.keyboard.press('Control+z');
    await expect(replies(page)).toHaveCount(1);
    await expect(composer(page)).toHaveValue('then to the meadow');

    // What is stored is the shorter conversation.
    await page.reload();
    await expect(replies(page)).toHaveCount(1);
    await expect(you(page)).toHaveText('we went to the lake');
  });

  test('undo with a reply-less last turn (its reply failed) removes only that turn; with nothing left the button is disabled', async ({ page }) => {
    await openPresenter(page);
    // A stored conversation whose last turn got no reply, in the format of versions before per-message
    // records (the whole list under one key): loading it moves it over (conversationDb.ts).
    await page.evaluate(async () => {
      const messages = [
        { id: 'm1', role: 'user', createdAt: 1, elements: [{ kind: 'text', text: 'hello' }] },
        { id: 'm2', role: 'assistant', createdAt: 2, elements: [{ kind: 'text', text: 'hi there' }] },
        { id: 'm3', role: 'user', createdAt: 3, elements: [{ kind: 'text', text: 'are you there?' }] },
      ];
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('mmdialog');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error ?? new Error('IndexedDB did not open.'));
      });
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('conversation', 'readwrite');
        tx.objectStore('conversation').put(messages, 'messages');
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error ?? new Error('The IndexedDB write failed.'));
      });
      db.close();
    });
    await page.reload();
    await expect(you(page)).toHaveCount(2);
    await page.getByRole('button', { name: 'Undo last turn' }).click();
    await expect(you(page)).toHaveText(['hello']);
    await expect(replies(page).getByText('hi there', { exact: true })).toBeVisible();
    await expect(replies(page)).toHaveCount(1);
    await expect(composer(page)).toHaveValue('are you there?');
    await expect(page.getByRole('status').filter({ hasText: 'Removed your last turn. Its text is back in the message box.' })).toBeVisible();

    // The next undo puts its text before what is already in the box, so nothing is lost.
    await page.getByRole('button', { name: 'Undo last turn' }).click();
    await expect(you(page)).toHaveCount(0);
    await expect(composer(page)).toHaveValue('hello\nare you there?');
    await expect(page.getByRole('button', { name: 'Undo last turn' })).toBeDisabled();
    await page.getByRole('heading', { name: 'MMDialog in the browser' }).click();
    await page.keyboard.press('Control+z');
    await expect(page.getByRole('status').filter({ hasText: 'There is nothing to undo: the conversation is empty.' })).toBeVisible();
    await expect(composer(page)).toHaveValue('hello\nare you there?');
  });

  test('new conversation offers Undo, which brings the conversation back, photos included, and stores it again', async ({ page }) => {
    await openPresenter(page);
    await twoExchanges(page);
    const before = await page.getByRole('list', { name: 'Conversation' }).innerText();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(you(page)).toHaveCount(0);
    const notice = page.getByRole('status').filter({ hasText: 'Started a new conversation.' });
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect(replies(page)).toHaveCount(2);
    expect(await page.getByRole('list', { name: 'Conversation' }).innerText()).toBe(before);
    await page.reload();
    await expect(replies(page)).toHaveCount(2);
    const photo = you(page)
      .first()
      .getByRole('img', { name: /^Shared photo: / });
    await expect(photo).toBeVisible();
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(400);
  });
});

test.describe('export', () => {
  test('MMDialog JSON: the zip holds one valid record with its images, and the Pool and datasets dialog loads it', async ({ page }) => {
    await openPresenter(page);
    await twoExchanges(page);
    const { name, path, files } = await exportConversationAs(page, 'MMDialog JSON');
    expect(name).toMatch(/^conversation-\d{8}-\d{6}-mmdialog\.zip$/);
    const folder = name.replace(/\.zip$/, '');
    const decoder = new TextDecoder();
    const images = Object.keys(files).filter((p) => p.startsWith(`${folder}/images/`));
    const stems = new Set(images.map((p) => p.slice(p.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '')));
    expect(Object.keys(files).sort()).toEqual([`${folder}/conversations.json`, `${folder}/media.json`, ...images].sort());
    expect(Buffer.from(files[`${folder}/images/photo-1.jpg`]!).equals(asset('meadow.jpg'))).toBe(true);

    // The loader's own validator accepts it, with every media key backed by a file.
    const text = decoder.decode(files[`${folder}/conversations.json`]);
    const [record] = parseConversations(text, { hasMedia: (key) => stems.has(key) });
    expect(record!.turns).toHaveLength(4);
    const json = (JSON.parse(text) as { conversation: { turn: Record<string, string>[] }[] }[])[0]!;
    expect(json.conversation[0]!.turn).toEqual([{ __MEDIA__: 'photo-1' }, { __TEXT__: 'our picnic spot' }]);
    expect(json.conversation[2]!.turn).toEqual([{ __TEXT__: 'and the weather was perfect' }]);
    // The replies are in the record as the page shows them: texts, and pool images by their key (alt texts in media.json).
    const media = JSON.parse(decoder.decode(files[`${folder}/media.json`])) as { items: { key: string; alt: string }[] };
    const altOf = new Map(media.items.map((i) => [i.key, i.alt]));
    for (const [turn, reply] of [
      [1, 0],
      [3, 1],
    ] as const) {
      const recorded = json.conversation[turn]!.turn.map((e) => ('__TEXT__' in e ? { text: e['__TEXT__'] } : { alt: altOf.get(e['__MEDIA__']!) }));
      expect(recorded).toEqual(await replyContents(page, reply));
    }
    const mediaKeys = new Set(json.conversation.flatMap((t) => t.turn.flatMap((e) => ('__MEDIA__' in e ? [e['__MEDIA__']] : []))));
    expect([...mediaKeys].sort()).toEqual([...stems].sort());
    const distinctTexts = new Set(json.conversation.flatMap((t) => t.turn.flatMap((e) => ('__TEXT__' in e ? [e['__TEXT__']] : [])))).size;

    // The app loads its own export back.
    await openPoolDialog(page);
    await page.getByTestId('dataset-zip-input').setInputFiles(path);
    await expect(page.getByRole('status').filter({ hasText: `Loaded "${folder}"` })).toContainText(
      `Loaded "${folder}": ${stems.size} images, ${distinctTexts} texts, 1 dialogues. Choose it under Pool to reply from it.`,
    );
    await page.getByRole('radio', { name: folder }).check();
    await expect(page.getByTestId('pool-summary')).toContainText(`Replies come from ${folder}: ${stems.size} images and ${distinctTexts} texts`);
  });

  test('Markdown: a transcript with speakers, the reply method and the images as relative links beside it', async ({ page }) => {
    await openPresenter(page);
    await twoExchanges(page);
    const caption = await page.getByTestId('photo-caption').innerText();
    const { name, files } = await exportConversationAs(page, 'Markdown');
    expect(name).toMatch(/^conversation-\d{8}-\d{6}-markdown\.zip$/);
    const folder = name.replace(/\.zip$/, '');
    const md = new TextDecoder().decode(files[`${folder}/conversation.md`]);
    expect(md).toMatch(
      /^# Conversation\n\nExported from MMDialog in the browser on \d{4}-\d\d-\d\d \d\d:\d\d UTC · 2 turns by you · 2 replies · model pack .+ · pool Demo pool\n/,
    );
    expect(md.match(/^\*\*You\*\* · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/gm)).toHaveLength(2);
    expect(md.match(/^\*\*System\*\* · \d{4}-\d\d-\d\d \d\d:\d\d UTC · reply by CLIP similarity, intent majority$/gm)).toHaveLength(2);
    expect(md).toContain(`![Photo: ${caption}](images/photo-1.jpg)`);
    expect(md).toContain('\n\nour picnic spot\n\n');
    for (const reply of [0, 1]) {
      for (const element of await replyContents(page, reply)) {
        if ('text' in element) expect(md).toContain(`\n\n${escapeMarkdown(element.text)}\n`);
        else expect(md).toMatch(new RegExp(`!\\[${element.alt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]\\(images/[^)]+\\)`));
      }
    }
    // Every image the transcript links to is in the zip beside it.
    const links = [...md.matchAll(/!\[[^\]]*\]\((images\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(files[`${folder}/${link}`], link).toBeDefined();
    expect(Buffer.from(files[`${folder}/images/photo-1.jpg`]!).equals(asset('meadow.jpg'))).toBe(true);
  });

  test('with an empty conversation the export is disabled', async ({ page }) => {
    await openPresenter(page);
    await expect(page.getByRole('button', { name: 'Export' })).toBeDisabled();
  });
});

/** Records every camera stream the page opens, so a test can check that each was stopped. */
async function recordStreams(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const opened: MediaStream[] = [];
    (window as unknown as { __streams: MediaStream[] }).__streams = opened;
    const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints) => {
      const stream = await original(constraints);
      opened.push(stream);
      return stream;
    };
  });
}

async function liveTracks(page: Page): Promise<number> {
  return page.evaluate(
    () => (window as unknown as { __streams: MediaStream[] }).__streams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === 'live').length,
  );
}

test.describe("camera, with Chromium's fake camera", () => {
  // Launch flags are per browser, so this test starts its own: a fake camera that needs no permission prompt.
  let browser: Browser;
  test.beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...BASE_ARGS, ...TEST_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    });
  });
  test.afterAll(async () => {
    await browser.close();
  });

  test('Take photo shows a live preview; Capture adds the photo to the message, it is sent and answered, and the camera is turned off', async ({ baseURL }) => {
    const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
    const page = await context.newPage();
    await recordStreams(page);
    await openReady(page);
    await page.getByRole('button', { name: 'Take photo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Take a photo' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Capture' })).toBeEnabled();
    expect(await liveTracks(page)).toBe(1);
    await dialog.getByRole('button', { name: 'Capture' }).click();
    await expect(dialog).toBeHidden();
    expect(await liveTracks(page)).toBe(0);
    const photo = tray(page).getByRole('img', { name: /^Photo to send: camera-\d{8}-\d{6}\.jpg$/ });
    await expect(photo).toBeVisible();
    // A full frame at the size the app asks for (Chromium's fake camera gives it exactly).
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([1280, 960]);
    await sendText(page, 'taken just now');
    await expect(you(page).getByRole('img', { name: /^Shared photo: / })).toBeVisible();
    await expect(replies(page)).toHaveCount(1);

    // Cancel and Escape also turn the camera off.
    await page.getByRole('button', { name: 'Take photo' }).click();
    await expect(dialog.getByRole('button', { name: 'Capture' })).toBeEnabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect(await liveTracks(page)).toBe(0);
    await page.getByRole('button', { name: 'Take photo' }).click();
    await expect(dialog.getByRole('button', { name: 'Capture' })).toBeEnabled();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    // Escape turns it off on the dialog's cancel event, before it hides; a browser that skips cancel (no
    // user activation left) closes it on the close event, a task after it hides, so this waits for it.
    await expect.poll(() => liveTracks(page)).toBe(0);
    await expect(tray(page)).toHaveCount(0);
    await context.close();
  });
});

test.describe('camera, when there is none or it cannot be used', () => {
  test('a device without a camera shows no Take photo button', async ({ page }) => {
    await page.addInitScript(() => {
      navigator.mediaDevices.enumerateDevices = async () => [];
    });
    await openReady(page);
    await expect(page.getByRole('button', { name: 'Add photos' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Take photo' })).toHaveCount(0);
  });

  for (const [errorName, message] of [
    ['NotAllowedError', 'The browser was not allowed to use the camera. Allow camera access for this page'],
    ['NotReadableError', 'The camera could not be started: another app or tab may be using it.'],
    ['NotFoundError', 'No camera was found. Connect one and choose Try again, or use Add photos.'],
  ] as const) {
    test(`the camera failing with ${errorName} is explained in the dialog, and nothing else changes`, async ({ page }) => {
      await page.addInitScript((name) => {
        navigator.mediaDevices.enumerateDevices = async () => [{ kind: 'videoinput', deviceId: 'cam', groupId: 'g', label: '', toJSON: () => ({}) }];
        navigator.mediaDevices.getUserMedia = async () => {
          throw new DOMException('refused in this test', name);
        };
      }, errorName);
      await openReady(page);
      await composer(page).fill('kept while the camera fails');
      await page.getByRole('button', { name: 'Take photo' }).click();
      const dialog = page.getByRole('dialog', { name: 'Take a photo' });
      await expect(dialog.getByRole('alert')).toContainText(message);
      await dialog.getByRole('button', { name: 'Try again' }).click();
      await expect(dialog.getByRole('alert')).toContainText(message);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      await expect(composer(page)).toHaveValue('kept while the camera fails');
      await expect(tray(page)).toHaveCount(0);
    });
  }
});
