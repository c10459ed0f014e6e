import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseTextCatalogue } from '../engine/datasets/poolCatalogue';
import { serializeTextTable } from '../engine/datasets/textTable';
import { readPoolTexts } from './demoPoolFiles';

const CATALOGUE = {
  version: 1,
  sources: {},
  texts: [
    { id: 'a', text: 'hello there', source: 'written' },
    { id: 'b', text: 'how are you?', topic: 'small-talk', source: 'written' },
  ],
};
const TEXTS = parseTextCatalogue(CATALOGUE, { strict: true });

/** A server of the pool's files: each path to its body, anything else 404. */
function serve(files: Record<string, string | Uint8Array>): string[] {
  const asked: string[] = [];
  vi.stubGlobal('fetch', async (url: string) => {
    asked.push(url);
    const body = files[url];
    return body === undefined ? new Response('Not found', { status: 404 }) : new Response(typeof body === 'string' ? body : body.slice());
  });
  return asked;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the worker's reading of the pool's texts", () => {
  it('reads the text table and never fetches texts.json when the table fits', async () => {
    const table = serializeTextTable(TEXTS, []);
    const asked = serve({ '/pool/text-table.json': JSON.stringify(table.meta), '/pool/text-table.bin': table.bytes });
    expect(await readPoolTexts('/pool/')).toEqual(TEXTS);
    expect(asked).not.toContain('/pool/texts.json');
  });

  it('reads texts.json instead, saying which file was refused and why, when the table is truncated or missing', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const table = serializeTextTable(TEXTS, []);
    serve({
      '/pool/text-table.json': JSON.stringify(table.meta),
      '/pool/text-table.bin': table.bytes.subarray(0, table.bytes.byteLength - 1),
      '/pool/texts.json': JSON.stringify(CATALOGUE),
    });
    expect(await readPoolTexts('/pool/')).toEqual(TEXTS);
    expect(warn).toHaveBeenCalledWith(
      `/pool/text-table.json describes ${table.bytes.byteLength} bytes of texts, but its .bin holds ${table.bytes.byteLength - 1}: it is truncated or from another build: it is not used, so the page reads texts.json instead, which delays Ready by a few tenths of a second. Rebuild it with "npm run pool:index".`,
    );

    warn.mockClear();
    serve({ '/pool/texts.json': JSON.stringify(CATALOGUE) });
    expect(await readPoolTexts('/pool/')).toEqual(TEXTS);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\/pool\/text-table\.json\/\.bin are missing, so the page reads texts\.json instead/));
  });
});
