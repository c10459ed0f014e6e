import { type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, conversation, hugePng, openReady, sendText } from './helpers';

/** Starts every bad-input test from a conversation with one exchange in it. */
async function withOneExchange(page: Page): Promise<string[]> {
  await openReady(page);
  await sendText(page, 'hello there');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  return conversation(page);
}

test.describe('bad input', () => {
  test('a file that is not an image is refused with a message naming it', async ({ page }) => {
    const before = await withOneExchange(page);
    await choosePhotos(page, { name: 'notes.txt', mimeType: 'text/plain', buffer: asset('notes.txt') });
    await expect(page.getByRole('alert')).toContainText('"notes.txt" is not an image this app can read. Add a JPEG, PNG, WebP, GIF or BMP file.');
    await expect(page.getByRole('list', { name: 'Photos to send' })).toHaveCount(0);
    expect(await conversation(page)).toEqual(before);
  });

  test('a corrupt JPEG is refused as damaged', async ({ page }) => {
    const before = await withOneExchange(page);
    await choosePhotos(page, { name: 'broken.jpg', mimeType: 'image/jpeg', buffer: asset('broken.jpg') });
    await expect(page.getByRole('alert')).toContainText('"broken.jpg" could not be decoded: the file looks damaged or incomplete.');
    await expect(page.getByRole('list', { name: 'Photos to send' })).toHaveCount(0);
    expect(await conversation(page)).toEqual(before);
  });

  test('a 12000 x 12000 image is refused before decoding, with the limit', async ({ page }) => {
    const before = await withOneExchange(page);
    await choosePhotos(page, { name: 'huge.png', mimeType: 'image/png', buffer: hugePng() });
    await expect(page.getByRole('alert')).toContainText('"huge.png" is 12000 × 12000 pixels (144.0 megapixels), over the limit of 40 megapixels');
    expect(await conversation(page)).toEqual(before);
    // The page still works afterwards.
    await sendText(page, 'still here?');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(2);
  });

  test('an empty message is not sent and says why', async ({ page }) => {
    const before = await withOneExchange(page);
    await page.getByRole('textbox', { name: 'Message' }).fill('   \n  ');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('alert')).toContainText('The message is empty. Type something or add a photo, then send.');
    expect(await conversation(page)).toEqual(before);
  });

  test('a good photo still goes through after a bad one, and the bad one is not kept', async ({ page }) => {
    await openReady(page);
    await choosePhotos(page, [
      { name: 'notes.txt', mimeType: 'text/plain', buffer: asset('notes.txt') },
      { name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') },
    ]);
    await expect(page.getByRole('alert')).toContainText('notes.txt');
    await expect(page.getByRole('list', { name: 'Photos to send' }).getByRole('img')).toHaveCount(1);
  });
});

test.describe('broken model pack', () => {
  test('a missing model file gives a clear error in the status area, not a blank page', async ({ page }) => {
    await page.route('**/models/test-tiny-clip/onnx/vision_model.onnx', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.goto('/?pack=test-tiny-clip');
    const status = page.getByRole('region', { name: 'Model status' });
    await expect(status.getByRole('alert')).toContainText('onnx/vision_model.onnx is missing (HTTP 404), so the model pack cannot be loaded.');
    await expect(page.getByTestId('model-phase')).toHaveText('Not loaded');
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
    await sendText(page, 'hello?');
    await expect(
      page.getByRole('alert').filter({ hasText: 'No reply can be made now: /models/test-tiny-clip/onnx/vision_model.onnx is missing (HTTP 404)' }),
    ).toContainText('Your message is still in the box.');
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('hello?');
  });

  test('a damaged /models/index.json is named, with the field that is wrong, in the status area', async ({ page }) => {
    await page.route('**/models/index.json', async (route) => {
      const index = (await (await route.fetch()).json()) as { packs: { files: { bytes: unknown }[] }[] };
      index.packs[0]!.files[0]!.bytes = 'lots';
      await route.fulfill({ json: index });
    });
    await page.goto('/?pack=test-tiny-clip');
    await expect(page.getByRole('region', { name: 'Model status' }).getByRole('alert')).toContainText(
      '/models/index.json: packs[0].files[0].bytes is "lots"; it must be a whole number of bytes, 0 or more. The build writes this file from models/',
    );
    await expect(page.getByTestId('model-phase')).toHaveText('Not loaded');
  });

  test('a corrupt model file is reported as damaged', async ({ page }) => {
    await page.route('**/models/test-tiny-clip/onnx/text_model.onnx', (route) =>
      route.fulfill({ status: 200, body: 'this is not an onnx model', contentType: 'application/octet-stream' }),
    );
    await page.goto('/?pack=test-tiny-clip');
    await expect(page.getByRole('region', { name: 'Model status' }).getByRole('alert')).toContainText(
      'onnx/text_model.onnx could not be loaded as an ONNX model',
    );
  });
});
