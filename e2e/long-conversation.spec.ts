import { type CDPSession, type Page, expect, test } from '@playwright/test';
import { openPresenter, sendText, storeConversation, storedMessages, modelReady } from './helpers';

// Issue 28, finding 10: a 300-exchange soak kept growing (listeners 234 to 1,157, DOM nodes to 7,307).
const you = (page: Page) => page.getByRole('listitem', { name: 'You said' });

/**
 * DOM nodes and event listeners the page holds after a garbage collection, as Chromium counts them,
 * once `messages` are stored: a save in flight holds listeners of its own (up to 34 more were seen).
 */
async function weight(page: Page, cdp: CDPSession, messages: number): Promise<{ nodes: number; listeners: number }> {
  await expect.poll(async () => (await storedMessages(page)).length).toBe(messages);
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((m) => m.name === name)!.value;
  return { nodes: metric('Nodes'), listeners: metric('JSEventListeners') };
}

test('a long conversation stays light: the page holds the latest 60 messages, and more exchanges add no DOM nodes or listeners for the messages', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await openPresenter(page);
  // 200 exchanges of an earlier visit, then 12 more typed here.
  // Replies stored with their developer line, so they are drawn as heavy as the ones typed here.
  const reply = {
    method: 'clip-sim',
    intentModel: 'majority',
    relevance: 0.5,
    steps: [],
    timings: { decodeMs: 1, encodeMs: 2, captionMs: 3, intentMs: 0, rankMs: 1, totalMs: 7 },
    provider: 'wasm',
  };
  const earlier = Array.from({ length: 400 }, (_, i) => ({
    id: `m${String(i).padStart(3, '0')}`,
    role: i % 2 === 0 ? 'user' : 'assistant',
    createdAt: 1_700_000_000_000 + i,
    elements: [{ kind: 'text', text: `message number ${i}` }],
    ...(i % 2 === 1 ? { reply } : {}),
  }));
  await storeConversation(page, 'main', earlier);
  await page.reload();
  await modelReady(page);
  await expect(you(page)).toHaveCount(30);
  await expect(you(page).last()).toHaveText('message number 398');
  const exchange = async (i: number) => {
    await sendText(page, `one more turn, number ${i}`);
    await expect(you(page).last()).toHaveText(`one more turn, number ${i}`);
    await expect(page.getByText('Thinking…')).toHaveCount(0);
  };
  // Two exchanges first, for what the first reply of a page sets up once; then ten are measured.
  for (let i = 0; i < 2; i++) await exchange(i);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const before = await weight(page, cdp, 400 + 2 * 2);
  for (let i = 2; i < 12; i++) await exchange(i);
  await expect(you(page)).toHaveCount(30);
  const after = await weight(page, cdp, 400 + 2 * 12);
  // Before the window, each exchange added about 25 nodes and one listener or more in this view.
  expect(after.nodes - before.nodes).toBeLessThan(60);
  expect(after.listeners - before.listeners).toBeLessThanOrEqual(5);

  // Nothing is lost: the earlier messages come back 60 at a time.
  await page.getByRole('button', { name: 'Show 60 earlier messages (364 not shown)' }).click();
  await expect(you(page)).toHaveCount(60);
  await expect(you(page).first()).toHaveText('message number 304');
});
