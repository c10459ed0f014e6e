/**
 * Why a download request failed when the hub was in fact reached. A browser's fetch rejects with the
 * same bare "Failed to fetch" for a refused connection, a redirect loop and a redirect the security
 * policy blocks; asking again without following redirects tells the last two apart from the first.
 */

/** The answer to the same request with `redirect: 'manual'`: only whether it was a redirect matters. */
export interface ManualRedirectProbe {
  readonly type: string;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the hub';
  }
}

function fileOf(url: string): string {
  try {
    const path = decodeURIComponent(new URL(url).pathname);
    const resolve = /\/resolve\/[^/]+\/(.+)$/.exec(path);
    return resolve ? resolve[1]! : path.includes('/api/') ? 'the file list' : path;
  } catch {
    return 'the file';
  }
}

/**
 * The sentence for a failed request, or null when the hub really could not be reached (then the
 * caller's "Could not reach" stands). `probe` repeats the request without following redirects;
 * `blockedByPolicy` lists the addresses the security policy blocked meanwhile (read after the probe,
 * since the browser reports a violation a moment after the request fails).
 */
export async function explainFailedFetch(
  url: string,
  probe: (url: string) => Promise<ManualRedirectProbe>,
  blockedByPolicy: () => readonly string[],
): Promise<string | null> {
  let answer: ManualRedirectProbe;
  try {
    answer = await probe(url);
  } catch {
    return null;
  }
  if (answer.type !== 'opaqueredirect') return null;
  const host = hostOf(url);
  const file = fileOf(url);
  // The browser may report the address before the redirect (it hides where a cross-origin redirect led).
  const blocked = blockedByPolicy()[0];
  if (blocked !== undefined) {
    let target = 'an address';
    try {
      const origin = new URL(blocked).origin;
      if (origin !== new URL(url).origin) target = origin;
    } catch {
      // Chromium may report only "https" or nothing for a cross-origin redirect.
    }
    return `${host} was reached, but it redirects ${file} to ${target}, which this page's security policy does not allow (only huggingface.co and its file servers, localhost and 127.0.0.1). Use a hub or mirror that serves the files itself, or add that address to DOWNLOAD_ORIGINS in src/engine/securityPolicy.ts and rebuild.`;
  }
  return `${host} was reached, but its redirect for ${file} could not be followed: it redirects in a loop, or to an address that is not http(s). Check the hub address in Settings; a mirror must serve the files itself or redirect to them once.`;
}
