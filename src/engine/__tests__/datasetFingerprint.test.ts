import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_HASHED_FILE_BYTES, datasetFingerprint, pathsAndSizesFingerprint, sha256OfBlob } from '../datasets/datasetFingerprint';
import { hashText } from '../pool/contentHash';

const file = (path: string, content: string | Uint8Array<ArrayBuffer>) => ({ path, blob: new Blob([content]) });
const failure = async (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: unknown) => (e as Error).message,
  );

describe('dataset fingerprint', () => {
  it('is the SHA-256 of each file: the standard digest, the same as sha256sum gives', async () => {
    expect(await sha256OfBlob(new Blob(['abc']))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const bytes = new Uint8Array(3_000_001).map((_, i) => (i * 31) & 0xff);
    expect(await sha256OfBlob(new Blob([bytes]))).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('tells apart datasets whose files have the same names and sizes but other content', async () => {
    const original = [file('trip/lines.txt', 'hte view\n'), file('trip/sky.png', new Uint8Array([1, 2, 3, 4]))];
    const typoFixed = [file('trip/lines.txt', 'the view\n'), file('trip/sky.png', new Uint8Array([1, 2, 3, 4]))];
    const otherImage = [file('trip/lines.txt', 'hte view\n'), file('trip/sky.png', new Uint8Array([1, 2, 3, 5]))];
    // The old fingerprint, of paths and sizes, could not tell them apart.
    expect(pathsAndSizesFingerprint(typoFixed)).toBe(pathsAndSizesFingerprint(original));
    const fingerprints = await Promise.all([original, typoFixed, otherImage].map((files) => datasetFingerprint(files)));
    expect(new Set(fingerprints).size).toBe(3);
    for (const f of fingerprints) expect(f).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('finds the same content the same, under other names and in another order', async () => {
    const a = [file('trip/lines.txt', 'what a view\n'), file('trip/sky.png', new Uint8Array([9, 8, 7]))];
    const renamed = [file('holiday/photo.png', new Uint8Array([9, 8, 7])), file('holiday/said.txt', 'what a view\n')];
    expect(await datasetFingerprint(renamed)).toBe(await datasetFingerprint(a));
    expect(await datasetFingerprint(a.slice(0, 1))).not.toBe(await datasetFingerprint(a));
  });

  it('keeps the paths-and-sizes fingerprint of datasets stored before, to find them for a content comparison', () => {
    const files = [file('b/x.txt', 'one'), file('a/y.png', new Uint8Array(10))];
    expect(pathsAndSizesFingerprint(files)).toBe(hashText('a/y.png\u000010\nb/x.txt\u00003'));
  });

  it('reports progress by files, and the last report says all are done', async () => {
    const files = Array.from({ length: 70 }, (_, i) => file(`d/${i}.txt`, `line ${i}\n`));
    const reports: [number, number][] = [];
    await datasetFingerprint(files, (done, total) => reports.push([done, total]));
    expect(reports).toEqual([
      [32, 70],
      [64, 70],
      [70, 70],
    ]);
  });

  it('stops before the next file once its signal is aborted, having read no more', async () => {
    const abort = new AbortController();
    const read: string[] = [];
    const files = Array.from({ length: 5 }, (_, i) => {
      const f = file(`d/${i}.txt`, `line ${i}`);
      const stream = f.blob.stream.bind(f.blob);
      return {
        path: f.path,
        blob: Object.assign(f.blob, {
          stream: () => {
            read.push(f.path);
            if (read.length === 2) abort.abort();
            return stream();
          },
        }),
      };
    });
    await expect(datasetFingerprint(files, undefined, abort.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(read).toEqual(['d/0.txt', 'd/1.txt']);
  });

  it('refuses a file larger than a tab reads in one piece with a sentence naming it, before reading it', async () => {
    const huge = {
      path: 'd/conversations.json',
      blob: { size: MAX_HASHED_FILE_BYTES + 100 * 1024 ** 2, arrayBuffer: () => Promise.reject(new Error('read')) } as unknown as Blob,
    };
    expect(await failure(datasetFingerprint([huge]))).toBe(
      'd/conversations.json is 612 MB; a file of a dataset can be at most 512 MB, more than a browser tab reads in one piece. Split it into smaller files, or leave it out.',
    );
  });
});
