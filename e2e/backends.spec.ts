import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium, expect, test } from '@playwright/test';
import { BASE_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } from './chromium';
import '../src/app/diagnostics';
import { ASSETS, TEST_PACK_DIR, openReady } from './helpers';

interface Reference {
  texts: { text: string; text_embeds: number[] }[];
  images: { file: string; image_embeds: number[] }[];
}
const reference = JSON.parse(readFileSync(join(TEST_PACK_DIR, 'fixture', 'reference.json'), 'utf8')) as Reference;
const imageFiles = [...reference.images.map((i) => join(TEST_PACK_DIR, i.file)), join(ASSETS, 'meadow.jpg')];

async function embeddingsIn(page: Page): Promise<{ texts: number[][]; images: number[][] }> {
  const images = imageFiles.map((f) => Array.from(readFileSync(f)));
  return page.evaluate(async ({ texts, images }) => {
    const api = window.mmdialog!;
    return {
      texts: await api.encodeTexts(texts),
      images: await api.encodeImages(images.map((bytes) => new Blob([new Uint8Array(bytes)]))),
    };
  }, { texts: reference.texts.map((t) => t.text), images });
}

function maxAbsDiff(a: number[][], b: number[][]): number {
  let m = 0;
  a.forEach((row, i) => row.forEach((v, j) => (m = Math.max(m, Math.abs(v - b[i]![j]!)))));
  return m;
}

test.describe('backends', () => {
  let webgpuBrowser: Browser;
  test.beforeAll(async () => {
    webgpuBrowser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...WEBGPU_ARGS] });
  });
  test.afterAll(async () => {
    await webgpuBrowser.close();
  });

  test('WebGPU (SwiftShader) and WASM show different backends and agree on embeddings within 1e-3', async ({ page: wasmPage }) => {
    await openReady(wasmPage);
    await expect(wasmPage.getByTestId('backend')).toHaveText('WASM');
    await expect(wasmPage.getByRole('region', { name: 'Model status' })).toContainText('this browser offers no WebGPU adapter');

    const gpuPage = await (await webgpuBrowser.newContext()).newPage();
    await openReady(gpuPage);
    await expect(gpuPage.getByTestId('backend')).toHaveText('WEBGPU');

    const wasm = await embeddingsIn(wasmPage);
    const gpu = await embeddingsIn(gpuPage);
    expect(wasm.texts).toHaveLength(reference.texts.length);
    expect(gpu.images).toHaveLength(imageFiles.length);
    expect(maxAbsDiff(gpu.texts, wasm.texts)).toBeLessThan(1e-3);
    expect(maxAbsDiff(gpu.images, wasm.images)).toBeLessThan(1e-3);
    // Both also match the PyTorch reference the pack script computed.
    expect(maxAbsDiff(wasm.texts, reference.texts.map((t) => t.text_embeds))).toBeLessThan(1e-4);
    expect(maxAbsDiff(gpu.texts, reference.texts.map((t) => t.text_embeds))).toBeLessThan(1e-3);
    expect(maxAbsDiff(wasm.images.slice(0, reference.images.length), reference.images.map((i) => i.image_embeds))).toBeLessThan(1e-4);
  });

  test('choosing "WASM only" in settings moves a WebGPU browser to WASM and keeps the conversation', async () => {
    const page = await (await webgpuBrowser.newContext()).newPage();
    await openReady(page);
    await expect(page.getByTestId('backend')).toHaveText('WEBGPU');
    await page.getByRole('textbox', { name: 'Message' }).fill('hello from the GPU');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    await page.getByText('Settings').click();
    await page.getByLabel('Run on WASM only (skip WebGPU)').check();
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await expect(page.getByTestId('model-phase')).toContainText('Ready');
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('hello from the GPU');
    await page.reload();
    await expect(page.getByTestId('backend')).toHaveText('WASM');
    await expect(page.getByRole('region', { name: 'Model status' })).toContainText('WASM chosen in settings');
  });
});
