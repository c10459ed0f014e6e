import { describe, expect, it } from 'vitest';
import { explainFailedFetch } from './fetchFailure';

describe('a failed request to a hub that was reached', () => {
  const url = 'http://127.0.0.1:8080/Xenova/clip-vit-base-patch32/resolve/main/config.json';
  it('names a redirect loop', async () => {
    expect(
      await explainFailedFetch(
        url,
        async () => ({ type: 'opaqueredirect' }),
        () => [],
      ),
    ).toBe(
      '127.0.0.1:8080 was reached, but its redirect for config.json could not be followed: it redirects in a loop, or to an address that is not http(s). Check the hub address in Settings; a mirror must serve the files itself or redirect to them once.',
    );
  });
  it('names a redirect the security policy blocks', async () => {
    expect(
      await explainFailedFetch(
        url,
        async () => ({ type: 'opaqueredirect' }),
        () => ['http://10.1.2.3/x'],
      ),
    ).toMatch(/^127\.0\.0\.1:8080 was reached, but it redirects config\.json to http:\/\/10\.1\.2\.3, which this page's security policy does not allow/);
  });
  it('leaves "Could not reach" to a hub that does not answer', async () => {
    expect(
      await explainFailedFetch(
        url,
        async () => {
          throw new TypeError('Failed to fetch');
        },
        () => [],
      ),
    ).toBeNull();
    expect(
      await explainFailedFetch(
        url,
        async () => ({ type: 'cors' }),
        () => [],
      ),
    ).toBeNull();
  });
});
