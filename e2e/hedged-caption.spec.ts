import { expect, test } from '@playwright/test';
import { asset, choosePhotos, openReady, sendText } from './helpers';

// cat-cropped.png (e2e/assets/SOURCES.md): Chelsea the cat with the right 7% cropped off. The detector
// finds a cat at 0.471 (in Node and in Chromium alike: a PNG decodes to the same pixels everywhere),
// between the hedge bar (0.45) and the confident bar (0.5); mini-clip v2's zero-shot vote ranks cat
// 4th of 80, so it does not rule it out, and the caption is "Maybe a cat.".
const CAT = { name: 'cat-cropped.png', mimeType: 'image/png', buffer: asset('cat-cropped.png') };

test('a weak detection is captioned as a guess, shown as one, and explained in the Inspector', async ({ page }) => {
  await openReady(page, 'mini-clip', '&view=presenter');
  await choosePhotos(page, CAT);
  await sendText(page, 'look at her');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });

  const caption = page.getByTestId('photo-caption');
  await expect(caption).toHaveText('Maybe a cat.');
  await expect(caption).toHaveAttribute('data-hedged', 'true');
  await expect(caption).toHaveAttribute('title', 'A guess: the object detector is not sure');
  expect(await caption.evaluate((el) => getComputedStyle(el).fontStyle)).toBe('italic');

  await page.getByRole('button', { name: 'Inspector', exact: true }).click();
  const inspector = page.getByRole('complementary', { name: /Inspector/ });
  // The score is cut to two decimals, so what is shown never reads as reaching the 0.50 bar.
  await expect(inspector.getByTestId('detection').first()).toHaveText(/^cat, score 0\.4\d, /);
  await expect(inspector.getByTestId('caption-bar')).toHaveText(/only guesses \("Maybe …"\) at the strongest, which scores 0\.45 or more/);

  // A guess stays a guess after a reload.
  await page.reload();
  await expect(page.getByTestId('photo-caption')).toHaveAttribute('data-hedged', 'true', { timeout: 60_000 });
});
