import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetchPackSource } from './fetchPackSource';

afterEach(() => vi.unstubAllGlobals());

describe('FetchPackSource', () => {
  it('says "offline" when the device is offline and the file was never stored, not "check the demo server"', async () => {
    vi.stubGlobal('navigator', { onLine: false });
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(new FetchPackSource('/models/other-pack/').readBytes('onnx/text_model.onnx')).rejects.toThrow(
      'This device is offline, and onnx/text_model.onnx was never stored for offline use (only what the page used while online is kept). Connect to the network and reload, or choose a pack the page has used before.',
    );
    // A service worker answering 503 for a file it does not hold means the same.
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('', { status: 503 })));
    await expect(new FetchPackSource('/models/other-pack/').readBytes('config.json')).rejects.toThrow(
      'This device is offline, and config.json was never stored',
    );
  });

  it('online, a failed fetch still points at the demo server', async () => {
    vi.stubGlobal('navigator', { onLine: true });
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(new FetchPackSource('/models/p/').readBytes('config.json')).rejects.toThrow(
      '/models/p/config.json could not be fetched (Failed to fetch). Check that the demo server is still running and reload.',
    );
  });
});
