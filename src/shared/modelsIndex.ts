import { shortErrorText } from '../engine/datasets/validation';
import { EngineError } from '../engine/errors';
import { type ModelFolderEntry, type ModelsIndex, parseModelsIndex } from '../engine/pack/modelsIndex';
import { fetchedOnce } from './fetchedOnce';

/** Where models/ is served: packs and model folders lie under it by their id or dir. */
export const MODELS_BASE_URL = `${import.meta.env.BASE_URL}models/`;
const INDEX_URL = `${MODELS_BASE_URL}index.json`;

async function fetchModelsIndex(): Promise<ModelsIndex> {
  const response = await fetch(INDEX_URL);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  let json: unknown;
  try {
    json = await response.json();
  } catch (cause) {
    throw new EngineError(
      'pack-config-invalid',
      `${INDEX_URL} is not JSON (${shortErrorText(cause)}). The build writes it from models/: build again (npm run build), or restart the server, and reload.`,
      { cause },
    );
  }
  return parseModelsIndex(json, INDEX_URL);
}

/**
 * /models/index.json, checked, read once for the whole page (the pack chooser, the CLEVR view and
 * video answers share it); after a failure the next call reads it again. Throws an Error whose
 * message says what went wrong: an HTTP status, or (EngineError) a sentence naming the bad field.
 */
export const readModelsIndex: () => Promise<ModelsIndex> = fetchedOnce(fetchModelsIndex);

/** A model folder's files as the worker takes them: its URL and paths. */
export function modelFolderRef(entry: ModelFolderEntry): { baseUrl: string; files: string[] } {
  return { baseUrl: `${MODELS_BASE_URL}${entry.dir}/`, files: entry.files.map((f) => f.path) };
}
