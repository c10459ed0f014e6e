import { expect, test } from '@playwright/test';
import { asset, choosePhotos, openPresenter, openReady, sendText } from './helpers';

test.describe('a conversation a stranger can start', () => {
  test('a photo attached and sent at once arrives with its text, in one turn', async ({ page }) => {
    await openReady(page);
    // Right after Ready the worker is still warming the photo path, so the check is typically still running.
    await choosePhotos(page, { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await sendText(page, 'my morning coffee');
    const mine = page.getByRole('listitem', { name: 'You said' });
    await expect(mine).toHaveCount(1);
    await expect(mine.getByRole('img')).toHaveCount(1);
    await expect(mine).toContainText('my morning coffee');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByRole('list', { name: 'Photos to send' })).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  });

  test('a photo that fails its check is reported, and its text is neither sent alone nor lost', async ({ page }) => {
    await openReady(page);
    // Sent while the photo is still being checked, as on a slow laptop: the worker is kept busy for a
    // moment (its requests run in order), and the photo goes in straight before Enter; a broken JPEG
    // alone fails its check in milliseconds.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('look at this');
    await page.evaluate(() => void window.mmdialog?.encodeTexts(Array.from({ length: 40_000 }, (_, i) => `keeping the worker busy ${i}`)));
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({ name: 'broken.jpg', mimeType: 'image/jpeg', buffer: asset('broken.jpg') });
    await box.press('Enter');
    await expect(page.getByText(/could not be added, so nothing was sent/)).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('look at this');
  });

  test('emoji shortcodes show as emoji in the chat, the dialogue picker and the replay', async ({ page }) => {
    await openPresenter(page);
    await sendText(page, 'so good :fire: :not_an_emoji:');
    // Shown as emoji; an unknown shortcode stays as typed.
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('so good 🔥 :not_an_emoji:');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);

    await page.getByRole('button', { name: 'Replay a reference dialogue' }).click();
    const chooser = page.getByRole('combobox', { name: 'Dialogue' });
    await expect(chooser.getByRole('option', { name: /^3783 ·/ })).toHaveText(/Merry Christmas!! 🎉/);
    // A dialogue that opens with a photo alone still has a title to tell it by.
    await expect(chooser.getByRole('option', { name: /^3751 ·/ })).toHaveText(/^3751 · 8 turns · 📷 … \S/);
    await chooser.selectOption('3783');
    await page.getByRole('combobox', { name: 'Speed' }).selectOption('fast');
    await page.getByRole('button', { name: 'Start replay' }).click();
    await expect(page.getByTestId('replay-context')).toHaveText(/Merry Christmas!! 🎉/);
    await expect(page.getByTestId('replay-context')).not.toContainText(':party_popper:');
  });

  test("the start screen shares a sample photo of the pool as the visitor's own, and a sample prompt gets a reply of a line and a picture", async ({
    page,
  }) => {
    await openPresenter(page, 'mini-clip');
    const start = page.getByTestId('start-screen');
    await start.getByRole('button', { name: 'Share the photo: horse' }).click();
    const mine = page.getByRole('listitem', { name: 'You said' });
    await expect(mine.getByRole('img')).toHaveCount(1);
    // It went through the detector and the grounded caption like any shared photo.
    await expect(mine.getByTestId('photo-caption')).toHaveText('A horse.');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByTestId('start-screen')).toHaveCount(0);

    // mini-clip's trained intent head answers a lone photo with text alone, so the image reply is checked
    // on the sample prompt that asks for a picture: a line that introduces it, then a beach from the pool.
    await page.getByRole('button', { name: /New conversation/ }).click();
    await page.getByTestId('start-screen').getByRole('button', { name: 'can you show me a beach?' }).click();
    const reply = page.getByRole('listitem', { name: 'The system replied' });
    await expect(reply).toHaveCount(1);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('can you show me a beach?');
    await expect(reply.getByRole('paragraph').first()).not.toBeEmpty();
    await expect(reply.getByTestId('reply-image')).not.toHaveCount(0);
  });
});
