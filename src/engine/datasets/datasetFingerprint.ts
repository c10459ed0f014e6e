import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { EngineError } from '../errors';
import { hashText } from '../pool/contentHash';

/**
 * What tells one dataset from another: the SHA-256 of every file it is made of, so a corrected file of
 * the same name and size (a typo fixed, "hte" → "the") makes a new dataset, and the same files chosen
 * again, under whatever names, are found as already loaded.
 *
 * Web Crypto's `subtle.digest` takes a whole buffer, not a stream, so files are hashed by
 * @noble/hashes (audited, maintained) chunk by chunk as the file streams: memory stays at one chunk
 * whatever the file's size. A file is still bounded by what the import reads of it afterwards.
 */
export const MAX_HASHED_FILE_BYTES = 512 * 1024 ** 2;

/** Tells a content fingerprint from the older one of paths and sizes (16 hex digits) at a glance. */
const CONTENT_PREFIX = 'sha256:';

export interface FingerprintedFile {
  path: string;
  blob: Blob;
}

/** SHA-256 of a file, 64 lower-case hex digits, read as a stream. */
export async function sha256OfBlob(blob: Blob): Promise<string> {
  const hash = sha256.create();
  const reader: ReadableStreamDefaultReader<Uint8Array> = blob.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
  }
  return bytesToHex(hash.digest());
}

/**
 * The dataset's fingerprint: SHA-256 over the sorted SHA-256s of its files. Names play no part, so
 * renamed copies of the same files match. `onProgress` is told how many files are done, now and then;
 * `signal` stops it before the next file.
 */
export async function datasetFingerprint(
  files: readonly FingerprintedFile[],
  onProgress?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const digests: string[] = [];
  for (const [i, file] of files.entries()) {
    // A Cancel while thousands of images are hashed stops at the next file, not after the last.
    signal?.throwIfAborted();
    if (file.blob.size > MAX_HASHED_FILE_BYTES) {
      throw new EngineError(
        'dataset-invalid',
        `${file.path} is ${(file.blob.size / 1024 ** 2).toFixed(0)} MB; a file of a dataset can be at most ${MAX_HASHED_FILE_BYTES / 1024 ** 2} MB, more than a browser tab reads in one piece. Split it into smaller files, or leave it out.`,
      );
    }
    digests.push(await sha256OfBlob(file.blob));
    // Often enough to move the bar, rarely enough not to flood the page with messages.
    const done = i + 1;
    if (done % 32 === 0 || done === files.length || file.blob.size > 4 * 1024 ** 2) onProgress?.(done, files.length);
  }
  return CONTENT_PREFIX + bytesToHex(sha256(new TextEncoder().encode(digests.sort().join('\n'))));
}

/**
 * The fingerprint datasets stored before content hashing carry: paths and sizes of every chosen file.
 * Used only to find such a dataset, whose content is then compared before it counts as the same.
 */
export function pathsAndSizesFingerprint(files: readonly FingerprintedFile[]): string {
  return hashText(
    files
      .map((f) => `${f.path}\u0000${f.blob.size}`)
      .sort()
      .join('\n'),
  );
}
