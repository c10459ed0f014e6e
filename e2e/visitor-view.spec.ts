import { type Locator, type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, sendText, storeConversation, modelReady } from './helpers';

async function open(page: Page, query: string): Promise<void> {
  await page.goto(`/?pack=test-tiny-clip&${query}`);
  await modelReady(page);
}

const said = (page: Page) => page.getByRole('listitem', { name: 'You said' });
const replies = (page: Page) => page.getByRole('listitem', { name: 'The system replied' });

/** Sends each turn once the reply to the one before has come. */
async function chat(page: Page, turns: string[]): Promise<void> {
  const before = await replies(page).count();
  for (const [i, turn] of turns.entries()) {
    await sendText(page, turn);
    await expect(replies(page)).toHaveCount(before + i + 1);
  }
  await expect(page.getByText('Thinking…')).toHaveCount(0);
}

/** Whether every bubble lies whole inside the conversation's visible area (not just in the window), once its images have loaded. */
async function expectAllInChatArea(page: Page, items: Locator, count: number): Promise<void> {
  await expect(items).toHaveCount(count);
  const images = page.getByRole('list', { name: 'Conversation' }).getByRole('img');
  await expect
    .poll(() => images.evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)))
    .toBe(true);
  const area = await page.getByRole('list', { name: 'Conversation' }).evaluate((list) => {
    const r = list.getBoundingClientRect();
    return { top: r.top + list.clientTop, bottom: r.top + list.clientTop + list.clientHeight };
  });
  for (let i = 0; i < count; i++) {
    const box = (await items.nth(i).boundingBox())!;
    const name = `${await items.nth(i).getAttribute('aria-label')} (${i + 1} of ${count})`;
    expect(box.y, `${name} starts above the chat area`).toBeGreaterThanOrEqual(area.top - 0.5);
    expect(box.y + box.height, `${name} ends below the chat area`).toBeLessThanOrEqual(area.bottom + 0.5);
  }
}

test.describe('visitor view', () => {
  test('kiosk at 1280x720: three whole exchanges on screen, a shared photo and an image reply among them, no developer line, no backend, no answer button', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await open(page, 'kiosk=1&idle=600');
    // Whether a reply carries an image is the trained heads' choice, so the first exchange is one
    // a visitor had earlier, stored where the app keeps it: a reply with text and a tall pool photo.
    await storeConversation(page, 'kiosk', [
      { id: 'm1', role: 'user', createdAt: 1, elements: [{ kind: 'text', text: 'look at this cute cat' }] },
      {
        id: 'm2',
        role: 'assistant',
        createdAt: 2,
        elements: [
          { kind: 'text', text: 'aww, and here is a koala' },
          { kind: 'poolImage', key: 'ph-world-animals-koala', alt: 'Photo: Koala.', url: '/pool/media/ph-world-animals-koala.webp', poolId: 'demo' },
        ],
      },
    ]);
    await page.reload();
    await modelReady(page);
    await expect(replies(page).getByTestId('reply-image')).toHaveCount(1);
    await choosePhotos(page, { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await chat(page, ['my morning coffee', 'do you like pizza?']);
    await expect(said(page)).toHaveText(['look at this cute cat', /my morning coffee$/, 'do you like pizza?']);
    await expect(said(page).nth(1).getByRole('img')).toHaveCount(1);
    const bubbles = page
      .getByRole('list', { name: 'Conversation' })
      .getByRole('listitem')
      .filter({ has: page.locator('p, img') });
    await expectAllInChatArea(page, bubbles, 6);
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    await expect(page.getByText('not MM-Relevance')).toHaveCount(0);
    await expect(page.getByTestId('backend')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'What would you have answered?' })).toHaveCount(0);
    await expect(page.getByTestId('shortcuts')).toHaveCount(0);
    // The Inspector still takes the last reply apart, backend included.
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    await expect(page.getByTestId('inspector-backend')).toContainText('WASM');
  });

  test('the plain address at 1280x720 is the visitor view: three whole exchanges on screen and no developer line', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto('/');
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'visitor');
    await modelReady(page);
    await chat(page, ['I love hiking in the mountains', 'we had pizza by the sea', 'do you like dogs?']);
    const bubbles = page
      .getByRole('list', { name: 'Conversation' })
      .getByRole('listitem')
      .filter({ has: page.locator('p, img') });
    await expectAllInChatArea(page, bubbles, 6);
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    await expect(page.getByText('ms on WASM')).toHaveCount(0);
    await expect(page.getByTestId('backend')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'What would you have answered?' })).toHaveCount(0);
  });

  test('on a phone the header is one row, the message box has most of the width, and the rest is in its menu', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open(page, '');
    const box = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!;
    expect(box.width, 'the message box is squeezed beside its buttons').toBeGreaterThanOrEqual(0.6 * 390);
    await expect(page.getByRole('button', { name: 'Add photos or video' })).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport();
    const header = page.getByRole('banner');
    const rows = await header.evaluate(
      (el) => new Set(Array.from(el.children, (c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2))).size,
    );
    expect(rows).toBe(1);
    expect((await header.boundingBox())!.width).toBeLessThanOrEqual(390);
    await expect(page.getByRole('button', { name: 'New conversation' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Menu' }).click();
    const menu = page.getByRole('group', { name: 'Menu' });
    for (const name of ['Replay a reference dialogue', 'Undo last turn', 'New conversation', 'Credits', 'Pool and datasets']) {
      await expect(menu.getByRole('button', { name })).toBeVisible();
    }
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Menu' })).toBeFocused();

    await chat(page, ['hello from a phone']);
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    await expect(page.getByTestId('backend')).toHaveCount(0);
  });
});

test.describe('a video in the visitor view', () => {
  test('its length sits on its poster, and New conversation clears its "no sound track" notice', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await open(page, '');
    await choosePhotos(page, { name: 'silent.webm', mimeType: 'video/webm', buffer: asset('video/silent.webm') });
    const noSound = page.getByRole('status').filter({ hasText: 'silent.webm has no sound track' });
    await expect(noSound).toBeVisible({ timeout: 30_000 });
    await chat(page, ['what is in this video?']);
    const poster = page
      .getByTestId('shared-video')
      .getByRole('button', { name: /^Play:/ })
      .locator('img');
    await expect.poll(() => poster.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const picture = (await poster.boundingBox())!;
    const length = (await page.getByTestId('video-length').boundingBox())!;
    expect(length.x, 'the length starts left of the poster').toBeGreaterThanOrEqual(picture.x);
    expect(length.y, 'the length starts above the poster').toBeGreaterThanOrEqual(picture.y);
    expect(length.x + length.width, 'the length ends right of the poster').toBeLessThanOrEqual(picture.x + picture.width + 0.5);
    expect(length.y + length.height, 'the length ends below the poster').toBeLessThanOrEqual(picture.y + picture.height + 0.5);

    await expect(noSound).toBeVisible();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('group', { name: 'Menu' }).getByRole('button', { name: 'New conversation' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Started a new conversation.' })).toBeVisible();
    await expect(noSound).toHaveCount(0);
    await expect(said(page)).toHaveCount(0);
  });
});

test.describe('presenter view', () => {
  test('a ?view=presenter visit is remembered on this device, and Settings takes it back to the visitor view', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await open(page, 'view=presenter');
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'presenter');
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await page.goto('/?pack=test-tiny-clip');
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'presenter');
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await page.getByText('Settings', { exact: true }).click();
    await page.getByRole('combobox', { name: 'View' }).selectOption('visitor');
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'visitor');
    await expect(page.getByTestId('backend')).toHaveCount(0);
    await page.reload();
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'visitor');
    await open(page, 'view=presenter');
    await open(page, 'view=visitor');
    await page.goto('/?pack=test-tiny-clip');
    await expect(page.locator('[data-view]')).toHaveAttribute('data-view', 'visitor');
  });

  test('?view=presenter in kiosk mode shows the developer line and the answer button, not the backend explanation', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await open(page, 'kiosk=1&idle=600&view=presenter');
    await chat(page, ['I love hiking in the mountains']);
    await expect(replies(page).getByTestId('reply-meta')).toContainText(
      /^CLIP similarity · intent majority · CLIP cosine to your turn \d\.\d{3} \(not MM-Relevance\) · \d+ ms on WASM$/,
    );
    await expect(replies(page).getByRole('button', { name: 'What would you have answered?' })).toBeVisible();
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await expect(page.getByRole('region', { name: 'Model status' })).not.toContainText('WebGPU');
  });

  test('chosen in Settings on a phone, it is remembered after a reload', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open(page, '');
    await chat(page, ['we had pizza by the sea']);
    await expect(page.getByTestId('reply-meta')).toHaveCount(0);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('group', { name: 'Menu' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('combobox', { name: 'View' }).selectOption('presenter');
    await expect(replies(page).getByTestId('reply-meta')).toContainText('(not MM-Relevance)');
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await page.reload();
    await modelReady(page);
    await expect(replies(page).getByTestId('reply-meta')).toContainText('(not MM-Relevance)');
    await expect(replies(page).getByRole('button', { name: 'What would you have answered?' })).toBeVisible();
  });
});
