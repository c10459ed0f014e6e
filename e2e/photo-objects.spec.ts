import { type Locator, type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, openPresenter, openReady, sendText, modelReady } from './helpers';

// coffee.jpg (e2e/assets/SOURCES.md): a CC0 photo of a cup of coffee, not from COCO. In Node the
// detector finds one cup in it, score 0.58, box x 170 to 416, y 16 to 268 of 600 x 400 px.
const COFFEE = { name: 'coffee.jpg', mimeType: 'image/jpeg', buffer: asset('coffee.jpg') };
const CUP_BOX = { x1: 170 / 600, y1: 16 / 400, x2: 416 / 600, y2: 268 / 400 };

async function shareCoffee(page: Page, text: string): Promise<void> {
  await choosePhotos(page, COFFEE);
  await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
  await sendText(page, text);
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
}

async function openInspector(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Inspector', exact: true }).click();
  const inspector = page.getByRole('complementary', { name: /Inspector/ });
  await expect(inspector).toBeVisible();
  return inspector;
}

/**
 * The detector's line shares a row with others (on a phone the pool's counts make room for it): the
 * status area is no taller than it was before the line, with the counts shown and no detector line.
 */
async function expectNoTallerOnAPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await modelReady(page);
  const status = page.getByRole('region', { name: 'Model status' });
  const now = (await status.boundingBox())!.height;
  const before = await status.evaluate((el: HTMLElement) => {
    const line = el.querySelector<HTMLElement>('[data-testid="detector-status"]')!;
    const counts = el.querySelector<HTMLElement>('[data-testid="pool-counts"]')!;
    line.style.display = 'none';
    counts.style.display = 'inline';
    const height = el.getBoundingClientRect().height;
    line.style.display = '';
    counts.style.display = '';
    return height;
  });
  expect(now, 'the detector line makes the status area taller').toBeLessThanOrEqual(before);
}

test.describe('every shared photo goes through the object detector', () => {
  test('a photo of a cup is captioned from the cup the detector finds, and the Inspector draws its box', async ({ page }) => {
    // The presenter view: the detector's line stays in the status area on a phone too.
    await openReady(page, 'test-tiny-clip', '&view=presenter');
    const status = page.getByTestId('detector-status');
    await expect(status).toHaveText(/^Detector: ready/);
    await expect(status).toHaveAttribute('title', /^Object detector ready \(WASM, fp32\)/);

    await shareCoffee(page, 'my morning coffee');
    const caption = page.getByTestId('photo-caption');
    await expect(caption).toHaveText('A cup.');
    await expect(page.getByRole('listitem', { name: 'You said' }).getByRole('img', { name: 'Shared photo: A cup.' })).toBeVisible();

    const inspector = await openInspector(page);
    const photo = inspector.getByTestId('inspector-photo');
    await expect(photo).toHaveCount(1);
    await expect(photo.getByTestId('inspector-caption')).toHaveText('A cup.');
    // For screen readers (and presenters): the detections as text.
    await expect(inspector.getByRole('list', { name: 'Objects found in photo 1' }).getByRole('listitem').first()).toHaveText(
      /^cup, score 0\.5\d, at x 1[67]\d to 41\d, y 1\d to 26\d px$/,
    );
    // Drawn: a box labelled "cup 0.5x" over the cup, placed in the photo's own coordinates at its shown size.
    const box = photo.locator('[data-testid="detection-box"][data-label="cup"]');
    await expect(box).toHaveCount(1);
    await expect(box).toHaveText(/^cup 0\.5\d$/);
    const shown = await photo.getByRole('img', { name: 'Your photo 1: A cup.' }).boundingBox();
    const drawn = await box.boundingBox();
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(0.03);
    near((drawn!.x - shown!.x) / shown!.width, CUP_BOX.x1);
    near((drawn!.y - shown!.y) / shown!.height, CUP_BOX.y1);
    near((drawn!.x + drawn!.width - shown!.x) / shown!.width, CUP_BOX.x2);
    near((drawn!.y + drawn!.height - shown!.y) / shown!.height, CUP_BOX.y2);
    await expect(inspector.locator('[data-timing="detectMs"]')).toHaveText(/Detect objects\s*\d+\.\d ms/);

    // Kept with the conversation: after a reload the caption and the box are still there.
    await page.reload();
    await expect(page.getByTestId('photo-caption')).toHaveText('A cup.');
    const again = await openInspector(page);
    await expect(again.locator('[data-testid="detection-box"][data-label="cup"]')).toHaveCount(1);
    await expectNoTallerOnAPhone(page);
  });

  test('a photo with nothing the detector is sure of says so, in the caption and in the Inspector', async ({ page }) => {
    await openReady(page);
    await choosePhotos(page, { name: 'sky.png', mimeType: 'image/png', buffer: asset('sky.png') });
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await expect(page.getByTestId('photo-caption')).toHaveText("I can't tell what is in this photo.");
    const inspector = await openInspector(page);
    // sky.png is a synthetic gradient: a kite at 0.39 at most, below what a caption names.
    const photo = inspector.getByTestId('inspector-photo');
    await expect(photo.getByTestId('detection-box').or(photo.getByTestId('no-detections')).first()).toBeVisible();
    if ((await photo.getByTestId('detection-box').count()) > 0) await expect(photo).toContainText('so the caption does not name them');
    else await expect(photo.getByTestId('no-detections')).toHaveText('No objects found with confidence.');
  });
});

test.describe('broken object detector', () => {
  test('with its model file missing, chat still answers a photo turn and the status says the detector is unavailable', async ({ page }) => {
    await page.route('**/models/detector/onnx/model.onnx', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await openReady(page, 'test-tiny-clip', '&view=presenter');
    const status = page.getByTestId('detector-status');
    await expect(status).toHaveAttribute('data-state', 'unavailable');
    await expect(status.locator('summary')).toHaveText('Detector: unavailable');
    await expectNoTallerOnAPhone(page);
    // The whole sentence is one tap away: what happened and what to do.
    await status.locator('summary').click();
    await expect(page.getByTestId('detector-reason')).toHaveText(
      /\/models\/detector\/onnx\/model\.onnx is missing \(HTTP 404\), so photos are described by the image encoder alone\. Restore models\/detector \(npm run models:detector\) and reload\.$/,
    );

    await page.setViewportSize({ width: 1280, height: 720 });
    await shareCoffee(page, 'my morning coffee');
    // Described by the image encoder alone: a caption-bank sentence, still shown and used as alt text.
    const caption = await page.getByTestId('photo-caption').innerText();
    expect(caption).toMatch(/^[A-Z].+\.$/);
    await expect(page.getByRole('img', { name: `Shared photo: ${caption}` })).toBeVisible();
    const inspector = await openInspector(page);
    await expect(inspector.getByTestId('no-detections')).toHaveText(
      'The object detector was not available, so this photo was described by the image encoder alone.',
    );
    await expect(inspector.locator('[data-timing="detectMs"]')).toHaveText(/Detect objects\s*0\.0 ms/);
  });

  test('a damaged model file is reported as such, and text chat works', async ({ page }) => {
    await page.route('**/models/detector/onnx/model.onnx', (route) =>
      route.fulfill({ status: 200, body: 'this is not an onnx model', contentType: 'application/octet-stream' }),
    );
    await openPresenter(page);
    const status = page.getByTestId('detector-status');
    await expect(status).toHaveAttribute('data-state', 'unavailable');
    await expect(status).toHaveAttribute(
      'title',
      /^The object detector could not be loaded: .*onnx\/model\.onnx could not be loaded as an ONNX model .*Until it loads, photos are described by the image encoder alone\.$/,
    );
    await sendText(page, 'hello there');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  });
});
