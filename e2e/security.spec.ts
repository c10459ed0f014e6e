import { type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, openReady, sendText, modelReady } from './helpers';

// Issue 16, "Security": what the probe found, reproduced.
const replies = (page: Page) => page.getByRole('listitem', { name: 'The system replied' });

/** A real 1×1 GIF with a script appended: it passes an image check, and a browser told it is HTML runs the script. */
const GIF_WITH_SCRIPT = Buffer.concat([
  Buffer.from('474946383961010001000000002c00000000010001000002024401003b', 'hex'),
  Buffer.from('<script>document.title = "pwned"; window.pwned = true;</script>'),
]);

/** Every CSP violation the page reports, collected from the start. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as { cspViolations?: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (globalThis as { cspViolations?: string[] }).cspViolations ?? []);
}

test('a "photo" that claims to be HTML is stored and opened as the image its bytes prove, so its script never runs', async ({ page, context }) => {
  await openReady(page);
  await choosePhotos(page, { name: 'x.html', mimeType: 'text/html', buffer: GIF_WITH_SCRIPT });
  await sendText(page, 'what is this?');
  await expect(replies(page)).toHaveCount(1);
  const photo = page.getByRole('listitem', { name: 'You said' }).getByRole('img', { name: /^Shared photo/ });
  const src = await photo.getAttribute('src');
  expect(src).toMatch(/^blob:/);
  expect(await page.evaluate(async (url) => (await fetch(url)).headers.get('content-type'), src!)).toBe('image/gif');
  // "Open image in new tab": the browser shows an image; the appended script does not run.
  const tab = await context.newPage();
  await tab.goto(src!);
  expect(await tab.evaluate(() => (globalThis as { pwned?: boolean }).pwned ?? false)).toBe(false);
  expect(await tab.title()).not.toBe('pwned');
  // After a reload the stored copy is served the same way.
  await page.reload();
  const stored = await page
    .getByRole('listitem', { name: 'You said' })
    .getByRole('img', { name: /^Shared photo/ })
    .getAttribute('src');
  expect(await page.evaluate(async (url) => (await fetch(url)).headers.get('content-type'), stored!)).toBe('image/gif');
});

test('the page carries a strict Content-Security-Policy: header and meta tag, injected script is blocked, and normal use violates nothing', async ({
  page,
}) => {
  const violations = await watchViolations(page);
  const response = await page.goto('/?pack=test-tiny-clip');
  const header = response!.headers()['content-security-policy'] ?? '';
  for (const directive of ["script-src 'self' 'wasm-unsafe-eval'", "worker-src 'self' blob:", "object-src 'none'", "frame-ancestors 'none'"])
    expect(header).toContain(directive);
  expect(header).not.toContain("'unsafe-eval'");
  expect(header).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(meta).toContain("script-src 'self' 'wasm-unsafe-eval'");
  await modelReady(page);

  // A chat turn with a photo: the model, the detector and the pool all run under the policy.
  await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
  await sendText(page, 'look at this');
  await expect(replies(page)).toHaveCount(1);
  expect(await violations()).toEqual([]);

  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.injected = true;';
    document.body.append(script);
    return (globalThis as { injected?: boolean }).injected ?? false;
  });
  expect(ran).toBe(false);
  // Blocked twice: once by the header's policy and once by the meta tag's, each enforced on its own.
  await expect.poll(violations).toEqual(['script-src-elem inline', 'script-src-elem inline']);
});

test('without a click, the page makes no request to another origin', async ({ page }) => {
  const foreign: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('http://localhost:') && !url.startsWith('blob:') && !url.startsWith('data:')) foreign.push(url);
  });
  await openReady(page);
  await choosePhotos(page, { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
  await sendText(page, 'a meadow in spring');
  await expect(replies(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Inspector', exact: true }).click();
  await page.reload();
  await modelReady(page);
  expect(foreign).toEqual([]);
});
