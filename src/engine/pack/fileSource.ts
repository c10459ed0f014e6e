import { EngineError } from '../errors';

// Available in browsers, workers and Node; declared here because the engine compiles without DOM types.
declare const TextDecoder: new (label: string, options: { fatal: boolean }) => { decode(bytes: Uint8Array): string };

/** Bytes loaded so far of one file; total is null when the server does not say. */
export interface FileProgress {
  file: string;
  loaded: number;
  total: number | null;
}

/**
 * Where a model pack's files come from: fetch() in the browser worker, the file system in Node.
 * Implementations throw EngineError('pack-file-missing') when a file does not exist.
 */
export interface PackFileSource {
  /** Human-readable location, used in error messages ("models/mini-clip/"). */
  readonly location: string;
  /** What to do about a missing or damaged file, when it is not "restore the pack" (a downloaded pack is downloaded again). */
  readonly repairAdvice?: string;
  readBytes(path: string, onProgress?: (progress: FileProgress) => void): Promise<Uint8Array>;
}

export async function readPackJson(source: PackFileSource, path: string): Promise<unknown> {
  const bytes = await source.readBytes(path);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch (cause) {
    throw new EngineError(
      'pack-file-corrupt',
      `${source.location}${path} is not valid JSON, so the model pack cannot be used. ${source.repairAdvice ?? 'Restore the file (re-run the script that made the pack) and reload.'}`,
      { cause },
    );
  }
}

/** The parts laid end to end in one array (a file that arrived, or was stored, in chunks). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
