import { type Page, expect, test } from '@playwright/test';
import { openPresenter, openReady, sendText, modelReady } from './helpers';

async function openKiosk(page: Page, idleSeconds: number): Promise<void> {
  await page.goto(`/?pack=test-tiny-clip&kiosk=1&idle=${idleSeconds}`);
  await modelReady(page);
}

/**
 * Stops the page's clock (installed before the page loaded, so the idle timer's Date.now and
 * setTimeout are the fake ones) a second from now: from then on the test moves time with runFor, and
 * a slow machine cannot run the countdown down between two checks. The second is room for the page's
 * time, which still flows, to not pass the pause before it is asked for.
 */
async function pauseClock(page: Page): Promise<void> {
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
}

test.describe('inspector', () => {
  test('shows the last reply: intent probabilities, top-10 candidates, timings, backend and pack', async ({ page }) => {
    await openReady(page);
    await expect(page.getByRole('complementary', { name: /Inspector/ })).toHaveCount(0);
    await sendText(page, 'I love hiking in the mountains');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);

    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    await expect(inspector).toBeVisible();
    await expect(page.getByRole('button', { name: 'Inspector', exact: true })).toHaveAttribute('aria-expanded', 'true');

    const steps = inspector.getByTestId('inspector-step');
    const stepCount = await steps.count();
    expect(stepCount).toBeGreaterThanOrEqual(1);
    let candidatesShown = 0;
    for (let i = 0; i < stepCount; i++) {
      const step = steps.nth(i);
      // Three intent probabilities that sum to 1, the chosen one marked and named in the heading.
      const probabilities = step.getByTestId('intent-probability');
      await expect(probabilities).toHaveCount(3);
      const values = (await step.getByTestId('probability-value').allInnerTexts()).map(Number);
      expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
      const chosen = step.locator('[data-testid="intent-probability"][data-chosen="true"]');
      await expect(chosen).toHaveCount(1);
      const intent = await chosen.getAttribute('data-intent');
      await expect(chosen).toContainText('(chosen)');
      // Up to 10 candidates with scores, best first; none at the stop step.
      const scores = (await step.getByTestId('candidate-score').allInnerTexts()).map(Number);
      if (intent === 'stop') expect(scores).toEqual([]);
      else {
        expect(scores.length).toBeGreaterThanOrEqual(1);
        expect(scores.length).toBeLessThanOrEqual(10);
        expect(scores.every(Number.isFinite)).toBe(true);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      }
      candidatesShown += scores.length;
    }
    expect(candidatesShown).toBeGreaterThanOrEqual(1);
    // The first candidate of the first step is the reply's first element.
    const replyText = await page.getByTestId('reply-text').first().innerText();
    await expect(steps.first().getByTestId('candidate').first()).toContainText(replyText);

    const timings = inspector.getByTestId('timing');
    await expect(timings).toHaveCount(7);
    await expect(timings).toContainText([
      /Decode photos\s*\d+\.\d ms/,
      /Detect objects\s*\d+\.\d ms/,
      /Encode \(CLIP\)\s*\d+\.\d ms/,
      /Caption photos/,
      /Intent/,
      /Rank/,
      /Total\s*\d+\.\d ms/,
    ]);
    await expect(inspector.getByTestId('inspector-backend')).toContainText('WASM');
    await expect(inspector.getByTestId('inspector-pack')).toHaveText('test-tiny-clip (random weights)');
    await expect(inspector.getByTestId('inspector-method')).toHaveText('CLIP similarity');
    await expect(inspector.getByTestId('inspector-intent-model')).toHaveText('majority (no trained heads)');
  });

  test('opens and closes from the keyboard: i outside the message box, Escape, and focus comes back', async ({ page }) => {
    await openPresenter(page);
    const box = page.getByRole('textbox', { name: 'Message' });
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    // In the message box, i is a letter.
    await box.press('i');
    await expect(box).toHaveValue('i');
    await expect(inspector).toHaveCount(0);
    await page.getByRole('button', { name: 'New conversation' }).focus();
    await page.keyboard.press('i');
    await expect(inspector).toBeVisible();
    await expect(inspector).toContainText('Send a message: the inspector then shows');
    await expect(page.getByRole('heading', { name: /Inspector/ })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(inspector).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Inspector', exact: true })).toBeFocused();
    await page.keyboard.press('i');
    await expect(inspector).toBeVisible();
    await page.keyboard.press('i');
    await expect(inspector).toHaveCount(0);
  });

  test('is a side panel on a wide screen and a sheet over the chat on a phone', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openReady(page);
    await sendText(page, 'hello');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    const main = (await page.getByRole('main').boundingBox())!;
    let panel = (await inspector.boundingBox())!;
    expect(panel.x).toBeGreaterThanOrEqual(main.x + main.width); // beside the chat, not over it
    expect(panel.y + panel.height).toBeLessThanOrEqual(720);
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport();

    await page.setViewportSize({ width: 390, height: 844 });
    panel = (await inspector.boundingBox())!;
    expect(panel.width).toBe(390);
    expect(Math.round(panel.y + panel.height)).toBe(844); // anchored at the bottom
    await page.getByRole('button', { name: 'Close inspector' }).click();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport();
  });
});

test.describe('kiosk mode', () => {
  test('large type; after a short idle a countdown shows, then the conversation starts over', async ({ page }) => {
    await page.clock.install();
    await openKiosk(page, 60);
    await expect(page.locator('html')).toHaveCSS('font-size', '20px');
    // Nothing to reset on the start screen: no countdown before the visitor does something.
    await expect(page.getByRole('timer')).toHaveCount(0);
    await sendText(page, 'hello from the conference');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await pauseClock(page);
    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    // The countdown shows for the last 20 s of the minute.
    const countdown = page.getByRole('timer');
    await page.clock.runFor(39_000);
    await expect(countdown).toHaveCount(0);
    await page.clock.runFor(1_000);
    await expect(countdown).toHaveText('Resetting in 20 s — touch or type to keep chatting');
    await page.clock.runFor(19_000);
    await expect(countdown).toHaveText('Resetting in 1 s — touch or type to keep chatting');
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(1);
    await page.clock.runFor(1_000);
    // Reset: no conversation, the start text, panels closed, no countdown left.
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(0);
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(0);
    await expect(page.getByText('Say hello, or share a photo')).toBeVisible();
    await expect(page.getByRole('complementary', { name: /Inspector/ })).toHaveCount(0);
    await expect(countdown).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    // What was stored is gone too.
    await page.clock.resume();
    await page.reload();
    await expect(page.getByText('Say hello, or share a photo')).toBeVisible();
  });

  test('a visitor who keeps typing is not reset', async ({ page }) => {
    await page.clock.install();
    await openKiosk(page, 60);
    const box = page.getByRole('textbox', { name: 'Message' });
    const countdown = page.getByRole('timer');
    await sendText(page, 'still here');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await pauseClock(page);
    // Each key press starts the minute over, even in its last second: three minutes of typing keep the conversation.
    for (let i = 0; i < 3; i++) {
      await box.press('a');
      await expect(countdown).toHaveCount(0);
      await page.clock.runFor(59_000);
      await expect(countdown).toHaveText(/^Resetting in 1 s/);
    }
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(1);
    await expect(box).toHaveValue('aaa');
    // The visitor stops: one more second and it starts over.
    await page.clock.runFor(1_000);
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveCount(0);
    await expect(box).toHaveValue('');
  });

  test('settings and pool loading are hidden until Ctrl+Alt+S; Ctrl+Alt+K leaves kiosk mode', async ({ page }) => {
    await openKiosk(page, 120);
    const settings = page.getByText('Settings', { exact: true });
    await expect(settings).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Pool and datasets' })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Response method' })).toHaveCount(0);
    // Credits stay reachable in the menu, without the pool tab.
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('group', { name: 'Menu' }).getByRole('button', { name: 'Pool and datasets' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Credits' }).click();
    const dialog = page.getByRole('dialog', { name: 'Candidate pool' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('tab')).toHaveCount(0);
    await expect(dialog.getByRole('radio')).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.keyboard.press('Control+Alt+KeyS');
    await expect(page.getByRole('combobox', { name: 'Response method' })).toBeVisible();
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('button', { name: 'Pool and datasets' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Alt+KeyS');
    await expect(page.getByRole('combobox', { name: 'Response method' })).toHaveCount(0);
    await expect(settings).toHaveCount(0);

    // Out of kiosk mode the plain page is the visitor view: ordinary type, and Settings back in the menu.
    await page.keyboard.press('Control+Alt+KeyK');
    await expect(page.locator('html')).toHaveCSS('font-size', '16px');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('group', { name: 'Menu' }).getByRole('button', { name: 'Settings', exact: true })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Alt+KeyK');
    await expect(page.locator('html')).not.toHaveCSS('font-size', '16px');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('group', { name: 'Menu' }).getByRole('button', { name: 'Settings', exact: true })).toHaveCount(0);
  });
});
