import { describe, expect, it } from 'vitest';
import { checkPackMemory } from '../pack/packMemory';

const pack = (name: string, mb: number) => ({ name, files: [{ bytes: mb * 1e6 * 0.75 }, { bytes: mb * 1e6 * 0.25 }] });

describe('the memory a pack needs', () => {
  it('refuses a 600 MB pack on a device that reports 2 GB, naming the smaller pack, and loads it with 8 GB', () => {
    const onSmall = checkPackMemory(pack('CLIP ViT-B/32', 600), 2, 'Mini-CLIP');
    expect(onSmall.neededBytes).toBe(2.1e9);
    expect(onSmall.allowedBytes).toBe(2 ** 30);
    expect(onSmall.refusal).toBe(
      'CLIP ViT-B/32 needs about 2.1 GB of memory, more than this device can give a browser tab (it reports 2 GB in all), so it was not loaded: loading it could crash the tab. Choose Mini-CLIP in Settings, or use a device with more memory.',
    );
    expect(checkPackMemory(pack('CLIP ViT-B/32', 600), 8, 'Mini-CLIP').refusal).toBeNull();
  });

  it('loads a small pack on the smallest device a browser reports, and refuses nothing where the browser does not say', () => {
    expect(checkPackMemory(pack('Mini-CLIP', 20), 1, null).refusal).toBeNull();
    expect(checkPackMemory(pack('Huge', 5000), undefined, null)).toEqual({ neededBytes: 15.3e9, allowedBytes: null, refusal: null });
    expect(checkPackMemory(pack('Huge', 5000), 4, null).refusal).toMatch(/Use a device with more memory\.$/);
  });
});
