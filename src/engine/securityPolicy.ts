/**
 * The page's Content-Security-Policy, in one place for the build's meta tag, the dev/preview servers'
 * header and the service worker's header. Strict: no inline or foreign script, WebAssembly allowed
 * (onnxruntime-web and the ranking kernel compile it), workers from this origin or blob: (onnxruntime
 * may start its threads from blob: URLs), images and media from this origin, blob: and data:, and
 * network requests only to this origin and to the model hub's hosts for downloads.
 */

/**
 * Where "Model packs to download" may fetch from: the Hugging Face hub with its file CDNs, and a
 * mirror on this machine. A CSP is fixed when the page loads, so an address the person types cannot
 * widen it: to use another mirror, add its origin here and rebuild (Settings says so).
 */
const DOWNLOAD_ORIGINS = ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co', 'http://localhost:*', 'http://127.0.0.1:*'] as const;

const DIRECTIVES: readonly (readonly [string, readonly string[]])[] = [
  ['default-src', ["'self'"]],
  ['script-src', ["'self'", "'wasm-unsafe-eval'"]],
  ['worker-src', ["'self'", 'blob:']],
  // Tailwind's and React's style attributes; no script can run from a style.
  ['style-src', ["'self'", "'unsafe-inline'"]],
  ['img-src', ["'self'", 'blob:', 'data:']],
  ['media-src', ["'self'", 'blob:', 'data:']],
  ['font-src', ["'self'", 'data:']],
  ['connect-src', ["'self'", 'blob:', 'data:', ...DOWNLOAD_ORIGINS]],
  ['object-src', ["'none'"]],
  ['base-uri', ["'self'"]],
  ['form-action', ["'none'"]],
];

/** As a header; `frame-ancestors` only works there (a meta tag ignores it). */
export function contentSecurityPolicy(options: { meta?: boolean } = {}): string {
  const directives = options.meta ? DIRECTIVES : [...DIRECTIVES, ['frame-ancestors', ["'none'"]] as const];
  return directives.map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');
}

/** Whether the policy lets the page fetch from this origin ("https://host:port"); wildcards as CSP reads them. */
export function downloadOriginAllowed(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return DOWNLOAD_ORIGINS.some((source) => {
    const match = /^(https?):\/\/(\*\.)?([^:/]+)(?::(\*|\d+))?$/.exec(source);
    if (!match) return false;
    const [, scheme, wildcard, host, port] = match;
    if (url.protocol !== `${scheme}:`) return false;
    const hostOk = wildcard ? url.hostname.endsWith(`.${host}`) : url.hostname === host;
    const portOk = port === '*' || (port === undefined ? url.port === '' : url.port === port);
    return hostOk && portOk;
  });
}

/**
 * Cross-origin isolation, so onnxruntime-web can run WASM threads (SharedArrayBuffer): sent by the dev
 * and preview servers, and added by the service worker to everything it serves, for static hosts that
 * cannot set headers (from the second visit on, once the service worker controls the page).
 */
export const CROSS_ORIGIN_ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;
