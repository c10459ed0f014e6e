import { expect, test } from '@playwright/test';
import { axeViolations, seriousViolations } from './axe';
import { openReady, sendText } from './helpers';

/** axe-core on each main view; serious and critical violations (contrast, names, alt text, ...) fail the test. */
test.describe('accessibility (axe-core)', () => {
  test('chat, inspector and settings have no serious violations', async ({ page }) => {
    await openReady(page);
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

  test('kiosk with its countdown, and the inspector as a sheet on a phone, have no serious violations', async ({ page }) => {
    await page.goto('/?pack=test-tiny-clip&kiosk=1&idle=20');
    await expect(page.getByTestId('model-phase')).toContainText('Ready', { timeout: 150_000 });
    await sendText(page, 'hello there');
    await expect(page.getByRole('timer')).toBeVisible();
    expect(await seriousViolations(page), 'kiosk countdown').toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    await expect(page.getByTestId('inspector-step').first()).toBeVisible();
    expect(await seriousViolations(page), 'inspector sheet on a phone').toEqual([]);
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
