import { describe, expect, it } from 'vitest';
import { provenImage } from './provenImage';

const GIF = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0];

describe('provenImage', () => {
  it('serves a GIF that claimed to be HTML as image/gif, with every byte kept', async () => {
    const claimed = new Blob([new Uint8Array(GIF), '<script>alert(1)</script>'], { type: 'text/html' });
    const proven = await provenImage(claimed);
    expect(proven?.type).toBe('image/gif');
    expect(proven?.size).toBe(claimed.size);
  });
  it('keeps a Blob already typed right, and refuses bytes that are no image', async () => {
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])], { type: 'image/png' });
    expect(await provenImage(png)).toBe(png);
    expect(await provenImage(new Blob(['<html><script>alert(1)</script></html>'], { type: 'image/png' }))).toBeUndefined();
    expect(await provenImage(undefined)).toBeUndefined();
  });
});
