import type { BrowserContext, Page } from '@playwright/test';

/** One moment the page itself noted, on its own clock (`performance.now()`, from the document's navigation start). */
export type PageMark = { kind: 'act'; what: string; t: number } | { kind: 'reply'; n: number; t: number } | { kind: 'ready'; t: number };

/**
 * Installed before any of the page's scripts: notes each visitor action (a click on a button, Enter in a
 * text box, a file set in a file box), each reply as it reaches the screen (the animation frame after its list item is added),
 * and the first "Ready" of the status.
 *
 * Why in the page: Playwright's `waitFor` polls at 0, 20, 50, 100, 100 ms and then every 500 ms, so a
 * reply that lands 300 ms after the click was read as about 800 ms. Timed from the harness, the turn
 * figures were mostly Playwright's polling. A string, not a function: tsx would add its own helpers to
 * a function's source, which the page does not have.
 */
const PAGE_CLOCK_SCRIPT = `(() => {
  const marks = (globalThis.__pageClock = []);
  const now = () => performance.now();
  const onScreen = (mark) => requestAnimationFrame(() => marks.push({ ...mark, t: now() }));
  addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    if (button) marks.push({ kind: 'act', what: 'click ' + (button.getAttribute('aria-label') || button.textContent || '').trim().slice(0, 40), t: now() });
  }, true);
  addEventListener('keydown', (event) => {
    const box = event.target;
    if (event.key === 'Enter' && !event.shiftKey && (box instanceof HTMLTextAreaElement || box instanceof HTMLInputElement)) marks.push({ kind: 'act', what: 'Enter in ' + (box.getAttribute('aria-label') || box.id), t: now() });
  }, true);
  addEventListener('change', (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.type === 'file') marks.push({ kind: 'act', what: 'file set #' + input.id, t: now() });
  }, true);
  let replies = 0;
  let ready = false;
  new MutationObserver(() => {
    if (!ready) {
      const phase = document.querySelector('[data-testid="model-phase"]');
      if (phase && (phase.textContent || '').includes('Ready')) {
        ready = true;
        onScreen({ kind: 'ready' });
      }
    }
    const count = document.querySelectorAll('li[aria-label="The system replied"]').length;
    for (let n = replies; n < count; n++) onScreen({ kind: 'reply', n });
    replies = Math.max(replies, count);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})()`;

/** Notes actions, replies and Ready in every page of the context from now on. */
export async function installPageClock(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: PAGE_CLOCK_SCRIPT });
}

/**
 * The page's marks, once it has noted `until` (a reply's number, or Ready): the mark is made in the
 * animation frame after the DOM change that Playwright waited for, so reading at once could miss it.
 */
export async function readPageClock(page: Page, until?: { reply: number } | 'ready'): Promise<PageMark[]> {
  if (until !== undefined)
    await page.waitForFunction(
      (wanted) =>
        ((globalThis as unknown as { __pageClock?: PageMark[] }).__pageClock ?? []).some((m) =>
          wanted === 'ready' ? m.kind === 'ready' : m.kind === 'reply' && m.n === wanted.reply,
        ),
      until,
      { timeout: 10_000 },
    );
  return page.evaluate(() => (globalThis as unknown as { __pageClock?: PageMark[] }).__pageClock ?? []);
}

/** Milliseconds from the document's navigation start to "Ready" on screen, or null when it was not noted. */
export function readyAt(marks: readonly PageMark[]): number | null {
  const ready = marks.find((m) => m.kind === 'ready');
  return ready ? ready.t : null;
}

/**
 * From the first action noted at or after `fromMark` (the mark count before the bench acted) to reply
 * `reply` on screen. A photo sent with Send counts from the file being set, so its check is included.
 */
export function turnLatency(marks: readonly PageMark[], fromMark: number, reply: number): number {
  const act = marks.slice(fromMark).find((m) => m.kind === 'act');
  const shown = marks.find((m) => m.kind === 'reply' && m.n === reply);
  if (!act) throw new Error(`The page noted no click or file after mark ${fromMark}, so the turn cannot be timed.`);
  if (!shown) throw new Error(`The page noted no reply ${reply + 1} on screen.`);
  if (shown.t < act.t) throw new Error(`Reply ${reply + 1} was on screen before the action that should have asked for it (${act.what}).`);
  return shown.t - act.t;
}
