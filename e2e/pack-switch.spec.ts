import { expect, test } from '@playwright/test';
import { modelReady } from './helpers';

declare global {
  interface Window {
    /** Every Ready the status showed, with what the heads line said then: "Ready in 2.31 s|python". */
    readiesShown: string[];
  }
}

test('choosing another pack while one loads cancels that load: the page shows Ready only for the pack chosen', async ({ page, context }) => {
  // The first pack's text tower is held until the other pack is chosen, so the choice comes in the middle of its load.
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let heldOnce = false;
  await context.route('**/models/test-tiny-clip/onnx/text_model*.onnx', async (route) => {
    heldOnce = true;
    await held;
    await route.continue();
  });
  await page.addInitScript(() => {
    window.readiesShown = [];
    new MutationObserver(() => {
      const phase = document.querySelector('[data-testid="model-phase"]')?.textContent ?? '';
      if (!phase.includes('Ready')) return;
      const shown = `${phase}|${document.querySelector('[data-testid="heads-line"]')?.getAttribute('data-state') ?? 'none'}`;
      if (window.readiesShown.at(-1) !== shown) window.readiesShown.push(shown);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.goto('/?pack=test-tiny-clip&view=presenter');
  await expect(page.getByTestId('model-phase')).toHaveText('Loading…');
  await expect.poll(() => heldOnce).toBe(true);
  await page.getByText('Settings', { exact: true }).click();
  await page.getByRole('combobox', { name: 'Model pack' }).selectOption('mini-clip');
  release();
  await modelReady(page);
  await expect(page.getByTestId('heads-line')).toHaveAttribute('data-state', 'python');
  // Only mini-clip's load reached Ready (its trained heads): the test pack's, cancelled, never showed as Ready.
  const readies = await page.evaluate(() => window.readiesShown);
  expect(readies.length).toBeGreaterThan(0);
  expect(readies.filter((r) => !r.endsWith('|python'))).toEqual([]);
  expect(new Set(readies.map((r) => r.split('|')[0])).size).toBe(1);
});
