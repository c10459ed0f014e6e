import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, downloadOriginAllowed } from '../securityPolicy';

describe('contentSecurityPolicy', () => {
  it('allows no inline or foreign script, compiles WebAssembly, and starts workers from this origin or blob:', () => {
    const header = contentSecurityPolicy();
    expect(header.split('; ')).toEqual(
      expect.arrayContaining([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "frame-ancestors 'none'",
      ]),
    );
    expect(header).not.toContain("'unsafe-eval'");
    expect(header).toMatch(/connect-src 'self' blob: data: https:\/\/huggingface\.co /);
  });

  it('leaves frame-ancestors out of the meta tag, where browsers ignore it', () => {
    expect(contentSecurityPolicy({ meta: true })).not.toContain('frame-ancestors');
  });
});

describe('downloadOriginAllowed', () => {
  it('allows the hub, its CDNs and a mirror on this machine', () => {
    for (const origin of [
      'https://huggingface.co',
      'https://cdn-lfs.huggingface.co',
      'https://cas-bridge.xethub.hf.co',
      'http://127.0.0.1:8080',
      'http://localhost:9',
    ])
      expect(downloadOriginAllowed(origin)).toBe(true);
  });
  it('refuses other hosts, plain http to the hub, and look-alikes', () => {
    for (const origin of ['https://example.org', 'http://huggingface.co', 'https://huggingface.co.evil.example', 'https://evilhuggingface.co', 'not a url'])
      expect(downloadOriginAllowed(origin)).toBe(false);
  });
});
