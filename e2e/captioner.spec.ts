import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { MODELS_DIR, choosePhotos, openReady, sendText } from './helpers';

// The tiny captioner fixture (models/scripts/captioner/make_tiny_captioner.py): random weights, so its
// captions are nonsense, but they are PyTorch's greedy decode, which the worker must reproduce exactly.
const FIXTURE = join(MODELS_DIR, 'hub-fixtures', 'Xenova', 'vit-gpt2-image-captioning');
const ID = 'vit-gpt2-image-captioning';
const reference = JSON.parse(readFileSync(join(FIXTURE, 'fixture', 'reference.json'), 'utf8')) as {
  images: Record<string, Record<'fp32' | 'q8', { token_ids: number[]; text: string }>>;
};

function packFiles(dir: string): { path: string; bytes: number }[] {
  const out: { path: string; bytes: number }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) {
        if (name !== 'fixture') walk(full);
      } else out.push({ path: relative(dir, full).split(sep).join('/'), bytes: statSync(full).size });
    }
  };
  walk(dir);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The fixture served as if it were a captioning pack in models/ (the download feature is not needed for this). */
async function serveCaptioner(page: Page, files = packFiles(FIXTURE)): Promise<void> {
  const context = page.context();
  await context.route('**/models/index.json', async (route) => {
    const index = (await (await route.fetch()).json()) as Record<string, unknown>;
    await route.fulfill({ json: { ...index, captioners: [{ id: ID, name: 'Tiny captioner (test fixture)', description: '', files }] } });
  });
  await context.route(`**/models/${ID}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname.split(`/models/${ID}/`)[1]!;
    if (!files.some((f) => f.path === path)) return route.fulfill({ status: 404, body: 'not found' });
    await route.fulfill({ body: readFileSync(join(FIXTURE, ...path.split('/'))), headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } });
  });
}

/** Every request the page, its worker or its service worker makes, to check that none leaves for a CDN. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.context().on('request', (request) => urls.push(request.url()));
  return urls;
}

test.describe('a captioning pack (transformers.js image-to-text) writes the captions of shared photos', () => {
  test("the worker reproduces PyTorch's greedy caption of the fixture, and the Inspector keeps the grounded caption", async ({ page }) => {
    const requests = recordRequests(page);
    await serveCaptioner(page);
    await openReady(page, 'test-tiny-clip', '&view=presenter');
    const status = page.getByTestId('captioner-status');
    await expect(status).toHaveAttribute('data-state', 'ready');
    await expect(status).toHaveText(/^Captioner: in use/);
    // On WASM with the _quantized files present the captioner runs q8, as transformers.js does by default.
    await expect(status).toHaveAttribute('title', new RegExp(`^Captioner in use \\(${ID}, WASM, q8\\)`));

    const expected = reference.images['sky.png']!.q8;
    await choosePhotos(page, { name: 'sky.png', mimeType: 'image/png', buffer: readFileSync(join(FIXTURE, 'fixture', 'sky.png')) });
    await sendText(page, 'look at this');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });
    await expect(page.getByTestId('photo-caption')).toHaveText(expected.text);

    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByRole('complementary', { name: /Inspector/ });
    await expect(inspector.getByTestId('inspector-caption')).toHaveText(expected.text);
    // The detector's sentence, for comparison: non-empty and not the model's.
    const grounded = inspector.getByTestId('inspector-grounded-caption');
    await expect(grounded).toHaveText(/\S/);
    expect(await grounded.textContent()).not.toBe(expected.text);

    // The worker's requests are seen too: it read the q8 files from the pack, and nothing else.
    expect(requests.filter((url) => url.includes(`/models/${ID}/onnx/`)).map((url) => url.split('/onnx/')[1])).toEqual([
      'encoder_model_quantized.onnx',
      'decoder_model_merged_quantized.onnx',
    ]);
    // Everything came from the app's own server: no CDN (transformers.js's default for the wasm), no hub.
    expect(requests.filter((url) => !url.startsWith('http://localhost:') && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
  });

  test('a captioning pack that cannot load leaves the grounded captions, and the status area says why', async ({ page }) => {
    await serveCaptioner(
      page,
      packFiles(FIXTURE).filter((f) => f.path !== 'tokenizer.json'),
    );
    await openReady(page, 'test-tiny-clip', '&view=presenter');
    const status = page.getByTestId('captioner-status');
    await expect(status).toHaveAttribute('data-state', 'unavailable');
    await expect(status).toHaveAttribute('title', /lacks tokenizer\.json.*Photos keep their grounded captions\.$/);
    await choosePhotos(page, { name: 'sky.png', mimeType: 'image/png', buffer: readFileSync(join(FIXTURE, 'fixture', 'sky.png')) });
    await sendText(page, 'look at this');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });
    await expect(page.getByTestId('photo-caption')).not.toHaveText(reference.images['sky.png']!.q8.text);
    await expect(page.getByTestId('photo-caption')).toHaveText(/\S/);
  });
});
