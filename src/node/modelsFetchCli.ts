import { join } from 'node:path';
import { REMOTE_PACKS, fetchPack } from './fetchModels';

/** npm run models:fetch -- <pack> */
function progressBar(file: string, loaded: number, total: number): string {
  const width = 30;
  const ratio = total > 0 ? Math.min(1, loaded / total) : 0;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${file} ${(loaded / 1e6).toFixed(1)}/${(total / 1e6).toFixed(1)} MB`;
}

async function main(): Promise<void> {
  const id = process.argv[2];
  if (!id) {
    console.error(`Usage: npm run models:fetch -- <pack>   (packs: ${Object.keys(REMOTE_PACKS).join(', ')})`);
    process.exit(2);
  }
  const modelsDir = join(process.cwd(), 'models');
  let last = '';
  try {
    const { dir, files } = await fetchPack(id, {
      modelsDir,
      onProgress: (file, loaded, total) => {
        const line = progressBar(file, loaded, total);
        if (line !== last && process.stderr.isTTY) process.stderr.write(`\r${line}`);
        last = line;
      },
    });
    process.stderr.write('\n');
    console.log(`${id}: ${files.length} files, ${(files.reduce((s, f) => s + f.bytes, 0) / 1e6).toFixed(1)} MB in ${dir}. Reload the app to pick it.`);
  } catch (error) {
    process.stderr.write('\n');
    const message = error instanceof Error ? error.message : String(error);
    console.error(`models:fetch ${id} failed: ${message}\nNothing was written to models/${id}; what was downloaded stays in models/.download/${id} and the next run resumes from it. Check the network (or set HF_ENDPOINT to a reachable mirror) and run the command again.`);
    process.exit(1);
  }
}

await main();
