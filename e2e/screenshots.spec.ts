import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, openPresenter, openReady, sendText, modelReady } from './helpers';

/**
 * Screenshots of the main views at the three sizes the demo is shown at, saved for review in
 * e2e/screenshots/<view>-<size>.png (not compared: a person looks at them). Each shot also checks
 * that nothing spills sideways, that the whole message box is on screen and that the conversation
 * keeps room. The README's pictures of the visitor view come from here too: with DOCS_SCREENSHOTS=1
 * they are also written to docs/.
 */
const OUT = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');
const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
const SIZES = [
  { name: 'laptop', width: 1440, height: 900 },
  { name: 'projector', width: 1280, height: 720 },
  { name: 'phone', width: 390, height: 844 },
] as const;

test.beforeAll(() => mkdirSync(OUT, { recursive: true }));

async function shootAllSizes(page: Page, view: string, prepare?: () => Promise<void>): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await prepare?.();
    // The conversation ends in view after a resize, as it does after a reply.
    await page.getByRole('list', { name: 'Conversation' }).evaluate((list) => (list.scrollTop = list.scrollHeight));
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${view} at ${size.name} spills sideways`).toBeLessThanOrEqual(size.width);
    // The whole message box, and room for the conversation: an open Settings or a long status line gives way first.
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport({ ratio: 1 });
    const conversation = page.getByRole('list', { name: 'Conversation' });
    await expect
      .poll(async () => (await conversation.boundingBox())?.height ?? 0, { message: `${view} at ${size.name}: the conversation is squeezed` })
      .toBeGreaterThanOrEqual(150);
    await page.screenshot({ path: join(OUT, `${view}-${size.name}.png`) });
  }
  // Back to the laptop: on the phone the visitor view keeps Settings in its menu, and the next steps use the laptop layout.
  await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height });
}

/** Sends turns until the system replies with a pool image (the trained heads choose images for these). */
async function chatUntilImageReply(page: Page): Promise<void> {
  const turns = ['look at this cute cat', 'we saw a lion at the zoo today', 'my dog loves the beach'];
  for (const [i, text] of turns.entries()) {
    await sendText(page, text);
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(i + 1);
    if ((await page.getByTestId('reply-image').count()) > 0) return;
  }
  throw new Error('None of the turns got an image in the reply; pick turns the heads answer with images.');
}

test.describe('screenshots of the main views', () => {
  test('chat with an image reply, inspector, settings', async ({ page }) => {
    await openPresenter(page, 'mini-clip');
    await chatUntilImageReply(page);
    const image = page.getByTestId('reply-image').last();
    await expect(image).toHaveAttribute('alt', /\S/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await shootAllSizes(page, 'chat');

    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    await expect(inspector.getByTestId('inspector-step').first()).toBeVisible();
    // Image candidates show as thumbnails, each with alt text.
    const thumbnails = inspector.getByRole('img');
    await expect(thumbnails.first()).toBeVisible();
    for (const alt of await thumbnails.evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt') ?? ''))) expect(alt).toMatch(/\S/);
    await shootAllSizes(page, 'inspector');
    await inspector.getByRole('button', { name: 'Close inspector' }).click();

    await page.getByText('Settings', { exact: true }).click();
    await expect(page.getByRole('combobox', { name: 'Response method' })).toBeVisible();
    await shootAllSizes(page, 'settings');
  });

  test('a shared photo, captioned from the objects the detector found, and its boxes in the inspector', async ({ page }) => {
    await openPresenter(page, 'mini-clip');
    await choosePhotos(page, { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await sendText(page, 'my morning coffee');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByTestId('photo-caption')).toHaveText('A cup.');
    await shootAllSizes(page, 'chat-photo');
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    await expect(inspector.getByTestId('detection-box').first()).toBeVisible();
    await shootAllSizes(page, 'inspector-photo', async () => {
      await inspector.getByRole('heading', { name: 'Objects in your photos' }).scrollIntoViewIfNeeded();
    });
  });

  test('kiosk with its countdown', async ({ page }) => {
    await page.goto('/?pack=test-tiny-clip&kiosk=1&idle=20');
    await modelReady(page);
    await sendText(page, 'hello from the conference');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByRole('timer')).toBeVisible();
    await shootAllSizes(page, 'kiosk-countdown', async () => {
      await expect(page.getByRole('timer')).toBeVisible();
    });
  });

  test('the visitor view for the README: kiosk at 1280x720 and a phone, a shared photo and an emoji shortcode', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openReady(page, 'mini-clip', '&kiosk=1&idle=600');
    if (process.env['DOCS_SCREENSHOTS']) {
      // Without a colour emoji font 🔥 is an empty box, and the README would show that.
      const colour = await page.evaluate(() => {
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = '32px sans-serif';
        ctx.fillText('🔥', 0, 32);
        const px = ctx.getImageData(0, 0, 40, 40).data;
        for (let i = 0; i < px.length; i += 4) if (px[i]! > 150 && px[i]! - px[i + 2]! > 80) return true;
        return false;
      });
      expect(colour, 'this machine has no colour emoji font: sudo apt-get install fonts-noto-color-emoji').toBe(true);
    }
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await sendText(page, 'look at this cute cat');
    await expect(replies).toHaveCount(1);
    await choosePhotos(page, { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await sendText(page, 'my morning coffee');
    await expect(replies).toHaveCount(2);
    await sendText(page, 'lunch by the sea was so good :fire:');
    await expect(replies).toHaveCount(3);
    await expect(page.getByRole('listitem', { name: 'You said' }).last()).toHaveText('lunch by the sea was so good 🔥');
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    const shoot = async (name: string) => {
      const images = page.getByRole('list', { name: 'Conversation' }).getByRole('img');
      await expect
        .poll(() => images.evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)))
        .toBe(true);
      await page.getByRole('list', { name: 'Conversation' }).evaluate((list) => (list.scrollTop = list.scrollHeight));
      // The message box without the focus ring, as a visitor walking up sees it.
      await page.getByRole('textbox', { name: 'Message' }).blur();
      await page.screenshot({ path: join(OUT, `${name}.png`) });
      if (process.env['DOCS_SCREENSHOTS']) await page.screenshot({ path: join(DOCS, `${name}.png`) });
    };
    await shoot('visitor-view');

    // A phone gets the visitor view without kiosk mode; the conversation is still there after the reload.
    await page.setViewportSize({ width: 390, height: 844 });
    // Still kiosk mode: its conversation is its own (the page's outside kiosk mode is kept apart).
    await openReady(page, 'mini-clip', '&kiosk=1&idle=600');
    await expect(replies).toHaveCount(3);
    await expect(page.getByRole('button', { name: 'Menu' })).toBeVisible();
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    await shoot('visitor-view-phone');
  });
});
