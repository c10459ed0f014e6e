import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { EngineError } from '../../engine/errors';
import type { FileProgress, PackFileSource } from '../../engine/pack/fileSource';

/** A model pack folder on disk, for tests, benchmarks and command-line tools. */
export class FsPackSource implements PackFileSource {
  readonly location: string;
  constructor(private readonly dir: string) {
    this.location = dir.endsWith(sep) ? dir : dir + sep;
  }

  async readBytes(path: string, onProgress?: (progress: FileProgress) => void): Promise<Uint8Array> {
    try {
      const bytes = new Uint8Array(await readFile(join(this.dir, path)));
      onProgress?.({ file: path, loaded: bytes.length, total: bytes.length });
      return bytes;
    } catch (cause) {
      throw new EngineError('pack-file-missing', `${this.location}${path} is missing, so the model pack cannot be loaded. Restore the pack and try again.`, {
        cause,
      });
    }
  }

  /** Every file of the pack, as paths relative to its folder with forward slashes. */
  async listFiles(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if ((await stat(full)).isFile()) out.push(relative(this.dir, full).split(sep).join('/'));
      }
    };
    await walk(this.dir);
    return out.sort();
  }
}
