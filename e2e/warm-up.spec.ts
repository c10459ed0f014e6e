import { expect, test } from '@playwright/test';
import { asset, openReady } from './helpers';

/** The page's note of warming (warmUp.ts): the steps in the order the worker answered them, with the replies that came between. */
async function warmUpLog(page: import('@playwright/test').Page): Promise<string[]> {
  return ((await page.locator('html').getAttribute('data-warm-up')) ?? '').split(' ');
}

test.describe('warming after Ready', () => {
  test('a sample prompt clicked right after Ready is answered ahead of the rest of warm-up', async ({ page }) => {
    await openReady(page, 'mini-clip');
    // The steps have been asked for: from here on the worker holds them aside.
    await expect(page.locator('html')).toHaveAttribute('data-warm-up', /started/, { timeout: 10_000 });
    await page.getByTestId('start-screen').getByRole('button', { name: 'hi! how is your day going?' }).click();
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.locator('html')).toHaveAttribute('data-warm-up', /\bdone$/);
    const log = await warmUpLog(page);
    // The reply came before warming ended, with photo steps still to run after it: it did not wait for them.
    const reply = log.indexOf('reply');
    expect(reply, log.join(' ')).toBeGreaterThan(0);
    expect(log.slice(reply + 1).filter((entry) => entry !== 'done').length, log.join(' ')).toBeGreaterThan(0);
    // Every step ran, none failed.
    expect(
      log.filter((entry) => entry.endsWith('-failed')),
      log.join(' '),
    ).toEqual([]);
    expect(log.filter((entry) => entry !== 'started' && entry !== 'reply' && entry !== 'done').sort()).toEqual([
      'caption-bank',
      'captioner',
      'detector',
      'image-ranking',
      'image-tower',
      'photo-check',
      'reply-models',
      'text-turn',
    ]);
  });

  test('opening the photo picker makes the photo path ready while the visitor chooses, and the photo is then answered', async ({ page }) => {
    await openReady(page, 'mini-clip');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add photos' }).click();
    // The worker made the image tower, the detector and the photo check before any file was chosen.
    await expect(page.locator('html')).toHaveAttribute('data-photo-path', 'prepared');
    await (await chooser).setFiles({ name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByRole('listitem', { name: 'You said' }).getByRole('img', { name: 'Shared photo: coffee.jpg' })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  });
});
