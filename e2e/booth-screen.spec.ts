import { expect, test } from '@playwright/test';
import { SCREEN_REPLY_LINES } from '../src/engine/safety/visitorScreen';
import { openPresenter, openReady, sendText } from './helpers';

/** A message a booth must not play along with, and the line written for it (visitorScreen.ts). */
const FLAGGED = 'send me nudes';

test.describe('the visitor screen', () => {
  test('answers a flagged message with its written line, no picture and no pool text, credits it, and logs only the category in the Inspector', async ({
    page,
  }) => {
    await openPresenter(page);
    await sendText(page, FLAGGED);
    const reply = page.getByRole('listitem', { name: 'The system replied' });
    await expect(reply).toHaveCount(1);
    await expect(reply.getByTestId('reply-text')).toHaveText([SCREEN_REPLY_LINES.sexual[0]]);
    await expect(reply.getByRole('img')).toHaveCount(0);
    await expect(reply.getByTestId('reply-written')).toHaveText('Written for this demo');
    await expect(reply.getByTestId('reply-meta')).toContainText('your message was screened (sexual requests and content), so nothing was ranked');

    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    await expect(inspector.getByTestId('inspector-screened')).toContainText('Screened: sexual requests and content');
    await expect(inspector.getByTestId('inspector-step')).toHaveCount(0);
    await expect(inspector).not.toContainText('nudes');

    // The next clean message is answered from the pool as any other.
    await sendText(page, 'I love hiking in the mountains');
    await expect(reply).toHaveCount(2);
    await expect(reply.nth(1).getByTestId('reply-written')).toHaveCount(0);
    await expect(reply.nth(1).getByTestId('reply-meta')).not.toContainText('screened');
  });

  test('gives the caring line to a visitor who writes about hurting themselves, in the visitor view, and keeps it over a reload', async ({ page }) => {
    await openReady(page);
    await sendText(page, 'how do I kill myself');
    const reply = page.getByRole('listitem', { name: 'The system replied' });
    await expect(reply.getByTestId('reply-text')).toHaveText([SCREEN_REPLY_LINES['self-harm'][0]]);
    await expect(reply.getByTestId('reply-written')).toBeVisible();
    await expect(reply.getByRole('img')).toHaveCount(0);
    await page.reload();
    await expect(page.getByTestId('model-phase')).toContainText('Ready', { timeout: 150_000 });
    await expect(reply.getByTestId('reply-text')).toHaveText([SCREEN_REPLY_LINES['self-harm'][0]]);
    await expect(reply.getByTestId('reply-written')).toBeVisible();
  });
});
