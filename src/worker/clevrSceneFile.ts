import { parseClevrScenes } from '../engine/clevr/clevrFiles';
import { invalid } from '../engine/datasets/validation';
import type { ClevrSceneFileProgress } from '../protocol/protocol';

/** Progress is posted at whole percents: a 150 MB file is read in thousands of chunks. */
function percentReporter(onProgress: (progress: ClevrSceneFileProgress) => void, stage: 'reading' | 'checking') {
  let shown = -1;
  return (done: number, total: number) => {
    const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
    if (percent === shown) return;
    shown = percent;
    onProgress({ stage, done, total });
  };
}

/**
 * Reads and checks a CLEVR scene file, reporting how far it has got: the worker's side of "Load CLEVR
 * scenes". The scenes come back as one JSON text each, so handing them to the page copies strings instead
 * of cloning millions of small objects on the page's thread.
 */
export async function readClevrSceneFile(file: Blob, name: string, onProgress: (progress: ClevrSceneFileProgress) => void): Promise<string[]> {
  const reading = percentReporter(onProgress, 'reading');
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let loaded = 0;
  reading(0, file.size);
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    loaded += value.byteLength;
    parts.push(decoder.decode(value, { stream: true }));
    reading(loaded, file.size);
  }
  parts.push(decoder.decode());
  onProgress({ stage: 'parsing' });
  const checking = percentReporter(onProgress, 'checking');
  const scenes = parseClevrScenes(parts.join(''), name, checking);
  if (scenes.length === 0) invalid(`${name} holds no scenes.`);
  const empty = scenes.findIndex((s) => s.objects.length === 0);
  if (empty >= 0)
    invalid(
      `${name}, scene ${empty} (image_index ${scenes[empty]!.image_index}) has no objects, so there is nothing to ask about. Remove it and load the file again.`,
    );
  return scenes.map((scene) => JSON.stringify(scene));
}
