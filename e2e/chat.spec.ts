import { expect, test } from '@playwright/test';
import { asset, choosePhotos, conversation, dropFiles, openPresenter, openReady, pasteFiles, sendText, modelReady } from './helpers';

test.describe('chat', () => {
  test('a text turn gets a reply computed by the model in the worker', async ({ page }) => {
    await openPresenter(page);
    await sendText(page, 'I love hiking in the mountains');
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await expect(replies).toHaveCount(1);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('I love hiking in the mountains');
    // The reply says how it was made: the method (this pack has no trained heads) and the cosine the worker computed.
    await expect(replies.getByTestId('reply-meta')).toContainText(
      /^CLIP similarity · intent majority · CLIP cosine to your turn \d\.\d{3} \(not MM-Relevance\)/,
    );
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  });

  test('Shift+Enter adds a new line instead of sending', async ({ page }) => {
    await openReady(page);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('first line');
    await box.press('Shift+Enter');
    await box.pressSequentially('second line');
    await expect(box).toHaveValue('first line\nsecond line');
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(0);
    await box.press('Enter');
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('first line\nsecond line');
  });

  test('a photo from the file picker shows a preview, can be removed, and gets a reply', async ({ page }) => {
    await openReady(page);
    await choosePhotos(page, [
      { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') },
      { name: 'sky.png', mimeType: 'image/png', buffer: asset('sky.png') },
    ]);
    const tray = page.getByRole('list', { name: 'Photos to send' });
    await expect(tray.getByRole('img')).toHaveCount(2);
    await page.getByRole('button', { name: 'Remove sky.png' }).click();
    await expect(tray.getByRole('img')).toHaveCount(1);
    await page.getByRole('button', { name: 'Send' }).click();
    const mine = page.getByRole('listitem', { name: 'You said' });
    await expect(mine.getByRole('img', { name: 'Shared photo: meadow.jpg' })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByRole('list', { name: 'Photos to send' })).toHaveCount(0);
  });

  test('photos dropped on the chat or pasted join the turn, with text', async ({ page }) => {
    await openReady(page);
    await dropFiles(page, [{ name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') }]);
    await pasteFiles(page, [{ name: 'sky.png', mimeType: 'image/png', buffer: asset('sky.png') }]);
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(2);
    await sendText(page, 'look at these');
    const mine = page.getByRole('listitem', { name: 'You said' });
    await expect(mine.getByRole('img')).toHaveCount(2);
    await expect(mine).toContainText('look at these');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  });

  test('the conversation survives a reload, photos included', async ({ page }) => {
    await openReady(page);
    await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await sendText(page, 'our picnic spot');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await sendText(page, 'and the weather was perfect');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(2);
    const before = await conversation(page);

    await page.reload();
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(2);
    expect(await conversation(page)).toEqual(before);
    // The photo got a caption from the object detector (meadow.jpg is synthetic: it says it can't tell); it is shown, kept, and is the photo's alt text.
    const caption = await page.getByTestId('photo-caption').innerText();
    expect(caption).toMatch(/^[A-Z].+\.$/);
    const photo = page.getByRole('img', { name: `Shared photo: ${caption}` });
    await expect(photo).toBeVisible();
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(400);
  });

  test('new conversation clears the chat and what is stored', async ({ page }) => {
    await openPresenter(page);
    await sendText(page, 'hello');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(0);
    // The notice comes once the new conversation is stored; a reload before that (two full runs did so
    // while the service worker was still installing) would read the old pointer back.
    await expect(page.getByRole('status').filter({ hasText: 'Started a new conversation.' })).toBeVisible();
    await page.reload();
    await expect(page.getByText('Say hello, or share a photo')).toBeVisible();
  });

  test('a pack named in the address that does not exist is reported, and the default loads', async ({ page }) => {
    await page.goto('/?pack=no-such-pack&view=presenter');
    await expect(page.getByRole('alert')).toContainText(
      'The address asks for the model pack "no-such-pack", which is not in models/. Using the default instead.',
    );
    await modelReady(page);
    await expect(page.getByTestId('pack-name')).toHaveText('mini-clip');
  });
});

test.describe('response methods', () => {
  test('the method chosen in Settings applies to the next reply, and a pack without heads says so', async ({ page }) => {
    await openPresenter(page);
    await page.getByText('Settings').click();
    await expect(page.getByTestId('methods-note')).toContainText(
      'This pack has no trained heads from Python: replies use the zero-shot methods and the majority intent until clip-map and the intent head are trained in this browser',
    );
    const select = page.getByRole('combobox', { name: 'Response method' });
    await expect(select.getByRole('option')).toHaveText(['Best available (clip-sim)', 'random', 'tfidf', 'bm25', 'clip-sim']);
    await sendText(page, 'we had pizza by the sea');
    await expect(page.getByTestId('reply-meta').last()).toContainText(/^CLIP similarity ·/);
    await select.selectOption('bm25');
    await sendText(page, 'and ice cream after that');
    await expect(page.getByTestId('reply-meta')).toHaveCount(2);
    await expect(page.getByTestId('reply-meta').last()).toContainText(/^BM25 · intent majority ·/);
  });

  test('a pack with trained heads and a conversational encoder offers the encoder, context match, the lookup and their hybrid, which it prefers, and the hybrid replies', async ({
    page,
  }) => {
    await openPresenter(page, 'mini-clip');
    await page.getByText('Settings', { exact: true }).click(); // the methods note names Settings too
    const select = page.getByRole('combobox', { name: 'Response method' });
    await expect(select.getByRole('option')).toHaveText([
      'Best available (hybrid)',
      'random',
      'tfidf',
      'bm25',
      'lookup',
      'clip-sim',
      'clip-map',
      'depp',
      'chat-encoder',
      'context-match',
      'hybrid',
    ]);
    await select.selectOption('context-match');
    await sendText(page, 'we had pizza by the sea');
    await expect(page.getByTestId('reply-meta').last()).toContainText(/^context match · intent trained ·/);
    await select.selectOption('hybrid');
    await sendText(page, 'and ice cream after that');
    await expect(page.getByTestId('reply-meta')).toHaveCount(2);
    await expect(page.getByTestId('reply-meta').last()).toContainText(
      /^hybrid \(BM25 \+ conversational encoder \+ context match \+ lexical context match \+ question-answer; images BM25 \+ DE\+\+\) · intent trained ·/,
    );
  });
});
