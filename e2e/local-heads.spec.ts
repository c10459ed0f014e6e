import { expect, test } from '@playwright/test';
import { headsTrained, openReady, sendText, modelReady } from './helpers';

/**
 * A pack without Python heads (the tests' tiny CLIP) replies zero-shot; Settings trains clip-map
 * and the intent head in the worker while the chat goes on, the status area says so, replies then
 * use them, and the next visit reads them from this browser's cache.
 */
test('clip-map and the intent head trained in the browser, while the chat answers, and cached for the next visit', async ({ page }) => {
  test.setTimeout(300_000);
  await openReady(page, 'test-tiny-clip', '&view=presenter');
  const line = page.getByTestId('heads-line');
  await expect(line).toHaveAttribute('data-state', 'zero-shot');
  await expect(line).toHaveText('Intent and ranking: zero-shot (majority intent, CLIP similarity).');
  await page.getByText('Settings', { exact: true }).click();
  await page.getByRole('button', { name: 'Train clip-map and the intent head in this browser' }).click();
  await expect(line).toHaveAttribute('data-state', 'training');
  // The chat answers during training (zero-shot).
  await sendText(page, 'I love hiking in the mountains');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });
  await headsTrained(page);
  await expect(line).toHaveText(
    /^Intent and clip-map: trained in this browser \(valid intent accuracy \d+\.\d%, clip-map text R@1 \d+\.\d%\) · DE\+\+: zero-shot \(needs the Python heads\)\.$/,
  );
  await expect(page.getByTestId('methods-note')).toContainText('clip-map and the intent head were trained in this browser in');
  await expect(page.getByRole('combobox', { name: 'Response method' }).getByRole('option', { name: 'clip-map', exact: true })).toHaveCount(1);
  await sendText(page, 'show me a picture of your dog');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(2, { timeout: 60_000 });
  await page.reload();
  await modelReady(page);
  await expect(line).toHaveText(/^Intent and clip-map: trained in this browser \(cached\)/, { timeout: 30_000 });
});

test('Cancel training stops it quietly: replies stay zero-shot, and training can be started again', async ({ page }) => {
  await openReady(page, 'test-tiny-clip', '&view=presenter');
  const line = page.getByTestId('heads-line');
  await page.getByText('Settings', { exact: true }).click();
  await page.getByRole('button', { name: 'Train clip-map and the intent head in this browser' }).click();
  await expect(line).toHaveAttribute('data-state', 'training');
  await page.getByRole('button', { name: 'Cancel training' }).click();
  await expect(line).toHaveText(
    'Training clip-map and the intent head was stopped, as asked; replies stay zero-shot. Train them again from Settings whenever you like.',
  );
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Train clip-map and the intent head in this browser' })).toBeVisible();
  await sendText(page, 'I love hiking in the mountains');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
});
