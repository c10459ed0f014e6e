import { expect, test } from '@playwright/test';
import { axeViolations, seriousViolations } from './axe';
import { asset, choosePhotos, openPresenter, openReady, sendText, modelReady } from './helpers';

/** axe-core on each main view; serious and critical violations (contrast, names, alt text, ...) fail the test. */
test.describe('accessibility (axe-core)', () => {
  test('chat, inspector and settings have no serious violations', async ({ page }) => {
    await openPresenter(page);
    expect(await seriousViolations(page), 'start view').toEqual([]);
    await sendText(page, 'I love hiking in the mountains');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    expect(await seriousViolations(page), 'chat with a reply').toEqual([]);
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    await expect(page.getByTestId('inspector-step').first()).toBeVisible();
    expect(await seriousViolations(page), 'inspector open').toEqual([]);
    await page.getByRole('button', { name: 'Close inspector' }).click();
    await page.getByText('Settings', { exact: true }).click();
    await expect(page.getByRole('combobox', { name: 'Response method' })).toBeVisible();
    expect(await seriousViolations(page), 'settings open').toEqual([]);
    await page.getByRole('button', { name: 'Pool and datasets' }).click();
    await expect(page.getByRole('dialog', { name: 'Candidate pool' })).toBeVisible();
    expect(await seriousViolations(page), 'pool dialog').toEqual([]);
  });

  test('a shared photo with its boxes in the inspector, and an unavailable detector, have no serious violations', async ({ page }) => {
    await openReady(page);
    await choosePhotos(page, { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await sendText(page, 'my morning coffee');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    await expect(page.getByTestId('detection-box').first()).toBeVisible();
    expect(await seriousViolations(page), 'inspector with a photo and its boxes').toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await seriousViolations(page), 'the same on a phone').toEqual([]);

    await page.route('**/models/detector/onnx/model.onnx', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    // The detector's line is the presenter's: on a phone the visitor view leaves it out.
    await page.goto('/?pack=test-tiny-clip&view=presenter');
    await modelReady(page);
    await page.getByTestId('detector-status').locator('summary').click();
    await expect(page.getByTestId('detector-reason')).toBeVisible();
    expect(await seriousViolations(page), 'detector unavailable, with its reason open').toEqual([]);
  });

  test('kiosk with its countdown, and the inspector as a sheet on a phone, have no serious violations', async ({ page }) => {
    await page.goto('/?pack=test-tiny-clip&kiosk=1&idle=20');
    await modelReady(page);
    await sendText(page, 'hello there');
    await expect(page.getByRole('timer')).toBeVisible();
    expect(await seriousViolations(page), 'kiosk countdown').toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    await expect(page.getByTestId('inspector-step').first()).toBeVisible();
    expect(await seriousViolations(page), 'inspector sheet on a phone').toEqual([]);
  });

  test('keyboard only: send a message, open and close the inspector, with a visible focus ring on the way', async ({ page }) => {
    await openPresenter(page);
    const focusRing = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return {
          name: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName,
          outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
        };
      });
    // Tab until the message box has focus; every stop on the way shows where the focus is.
    const seen: string[] = [];
    for (let i = 0; i < 30 && !(await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
      const ring = await focusRing();
      seen.push(ring.name);
      expect(ring.outline, `focus ring on ${ring.name}`).toBe(true);
    }
    expect(seen).toEqual(expect.arrayContaining(['Inspector i', 'New conversation']));
    await page.keyboard.type('hello from the keyboard');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('i');
    await expect(page.getByRole('complementary', { name: /Inspector/ })).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Close inspector' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('complementary', { name: /Inspector/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Inspector', exact: true })).toBeFocused();
  });

  test('the checker finds a violation when there is one', async ({ page }) => {
    // The check must be able to fail: an unlabelled image and light-grey text are reported.
    await openReady(page);
    await page.evaluate(() => {
      const p = document.createElement('p');
      p.textContent = 'faint';
      p.style.color = '#ddd';
      document.querySelector('main')!.append(p, Object.assign(document.createElement('img'), { src: '/favicon.svg' }));
    });
    const ids = (await axeViolations(page)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['color-contrast', 'image-alt']));
  });
});
