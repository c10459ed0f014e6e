import { join } from 'node:path';
import { errorMessage } from '../../engine/errors';
import { parseCommandArguments, runCommand } from './cliArgs';
import { REMOTE_PACKS, fetchPack } from './fetchModels';
import { ProgressLine } from './progressLine';

/** npm run models:fetch -- <pack> */
const USAGE = `npm run models:fetch -- <pack>   (packs: ${REMOTE_PACKS.map((p) => p.id).join(', ')})`;

function progressBar(file: string, loaded: number, total: number): string {
  const width = 30;
  const ratio = total > 0 ? Math.min(1, loaded / total) : 0;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${file} ${(loaded / 1e6).toFixed(1)}/${(total / 1e6).toFixed(1)} MB`;
}

async function fetchAndReport(id: string): Promise<void> {
  const modelsDir = join(process.cwd(), 'models');
  const progress = new ProgressLine();
  try {
    const { dir, files } = await fetchPack(id, {
      modelsDir,
      onProgress: ({ file, loaded, total }) => progress.update(progressBar(file, loaded, total ?? loaded), loaded, total ?? loaded, file),
    });
    progress.end();
    console.log(`${id}: ${files.length} files, ${(files.reduce((s, f) => s + f.bytes, 0) / 1e6).toFixed(1)} MB in ${dir}. Reload the app to pick it.`);
  } catch (error) {
    progress.end();
    throw new Error(
      `${errorMessage(error)}\nNothing was written to models/${id}; what was downloaded stays in models/.download/${id} and the next run resumes from it. Check the network (or set HF_ENDPOINT to a reachable mirror) and run the command again: it resumes.`,
      { cause: error },
    );
  }
}

const { positionals } = await runCommand('models:fetch', () => parseCommandArguments(process.argv.slice(2), {}, USAGE, ['pack']));
const id = positionals[0]!;
await runCommand(`models:fetch ${id}`, () => fetchAndReport(id));
