import { EngineError, errorMessage } from '../engine/errors';
import { type FileProgress, type PackFileSource, concatBytes } from '../engine/pack/fileSource';

/** What a missing pack file means, after "<url> is missing (HTTP 404), so ...". */
const PACK_MISSING_ADVICE = 'the model pack cannot be loaded. Restore the pack (see docs/models.md, "Model packs") and reload.';

/** navigator.onLine is false only when the device surely has no network (true may still mean none). */
export const isOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

function offlineMessage(path: string): string {
  return `This device is offline, and ${path} was never stored for offline use (only what the page used while online is kept). Connect to the network and reload, or choose a pack the page has used before.`;
}

/** A pack (or the detector's folder) served over HTTP (the app's own origin); streams each file to report bytes loaded. */
export class FetchPackSource implements PackFileSource {
  constructor(
    readonly location: string,
    /** What a missing file means for the app and what to do, after "<url> is missing (HTTP 404), so ...". */
    private readonly missingAdvice = PACK_MISSING_ADVICE,
  ) {}

  async readBytes(path: string, onProgress?: (progress: FileProgress) => void): Promise<Uint8Array> {
    const url = this.location + path;
    // Announce the file before the request, so the status area lists every file from the start.
    onProgress?.({ file: path, loaded: 0, total: null });
    let response: Response;
    try {
      response = await fetch(url);
    } catch (cause) {
      if (isOffline()) throw new EngineError('pack-file-missing', offlineMessage(path), { cause });
      throw new EngineError(
        'pack-file-missing',
        `${url} could not be fetched (${errorMessage(cause)}). Check that the demo server is still running and reload.`,
        { cause },
      );
    }
    if (!response.ok && response.status !== 404 && isOffline()) throw new EngineError('pack-file-missing', offlineMessage(path));
    if (!response.ok) {
      throw new EngineError(
        'pack-file-missing',
        response.status === 404
          ? `${url} is missing (HTTP 404), so ${this.missingAdvice}`
          : `${url} could not be loaded (HTTP ${response.status}). Reload the page; if it persists, restart the demo server.`,
      );
    }
    // With a content encoding (gzip), Content-Length counts compressed bytes, not what the stream yields.
    const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
    const header = response.headers.get('content-length');
    const total = !encoded && header !== null && /^\d+$/.test(header) ? Number(header) : null;
    if (!response.body) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let loaded = 0;
    onProgress?.({ file: path, loaded: 0, total });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      onProgress?.({ file: path, loaded, total });
    }
    if (total !== null && loaded !== total) {
      throw new EngineError('pack-file-corrupt', `${url} arrived incomplete (${loaded} of ${total} bytes). Reload the page.`);
    }
    return concatBytes(chunks);
  }
}
