import { EngineError } from '../errors';
import { describeJson, isPlainObject, ownValue, quoteForMessage } from '../datasets/validation';

/**
 * /models/index.json, the list of what models/ holds (written by src/node/tools/viteModelsPlugin.ts), read
 * once by the page for the pack chooser, the CLEVR view and video answers. Checked here, so a damaged
 * or hand-edited index gets a sentence naming the field instead of a failure deep in a loader.
 */
interface ModelFileListing {
  /** Path inside the folder, with "/" between folders. */
  path: string;
  bytes: number;
}

/** A CLIP or captioning pack: its folder under models/ is its id. */
interface ModelPackListing {
  id: string;
  name: string;
  description: string;
  files: ModelFileListing[];
}

/** A model folder that is not a pack (models/detector, models/clevr, models/avsd). */
export interface ModelFolderEntry {
  dir: string;
  files: ModelFileListing[];
}

export interface ModelsIndex {
  packs: ModelPackListing[];
  /** Null when models/ has none (and in an index written before the detector was served). */
  detector: ModelFolderEntry | null;
  captioners: ModelPackListing[];
  clevr: ModelFolderEntry | null;
  avsd: ModelFolderEntry | null;
  /** The check of shared photos and video frames (models/photo-check); null without one, and photos are then shown unchecked, said once. */
  photoCheck: ModelFolderEntry | null;
}

class IndexField {
  constructor(
    readonly file: string,
    readonly at: string,
  ) {}

  child(key: string | number): IndexField {
    return new IndexField(this.file, typeof key === 'number' ? `${this.at}[${key}]` : this.at ? `${this.at}.${key}` : key);
  }

  fail(value: unknown, wanted: string): never {
    const what = typeof value === 'string' ? quoteForMessage(value) : typeof value === 'number' ? String(value) : describeJson(value);
    throw new EngineError(
      'pack-config-invalid',
      `${this.file}: ${this.at || 'the whole file'} is ${what}; it must be ${wanted}. The build writes this file from models/: build again (npm run build), or restart the server, and reload.`,
    );
  }
}

/** One folder or file name: URLs under /models/ are made of them, so never ".", "..", a slash or a control character. */
const FOLDER_NAME = /^(?!\.\.?$)[^/\\\u0000-\u001f\u007f]{1,255}$/;

function text(field: IndexField, value: unknown): string {
  return typeof value === 'string' ? value : field.fail(value, 'a string');
}

function folderName(field: IndexField, value: unknown): string {
  return typeof value === 'string' && FOLDER_NAME.test(value) ? value : field.fail(value, 'the name of one folder under models/');
}

function list<T>(field: IndexField, value: unknown, item: (field: IndexField, value: unknown) => T): T[] {
  if (!Array.isArray(value)) field.fail(value, 'a list');
  return value.map((v, i) => item(field.child(i), v));
}

function object(field: IndexField, value: unknown): object {
  return isPlainObject(value) ? value : field.fail(value, 'an object');
}

function fileListing(field: IndexField, value: unknown): ModelFileListing {
  const obj = object(field, value);
  const path = ownValue(obj, 'path');
  const segments = typeof path === 'string' ? path.split('/') : [];
  if (segments.length === 0 || !segments.every((s) => FOLDER_NAME.test(s)))
    field.child('path').fail(path, 'a path inside the folder, names joined by "/", without "." or ".."');
  const bytes = ownValue(obj, 'bytes');
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) return field.child('bytes').fail(bytes, 'a whole number of bytes, 0 or more');
  return { path: path as string, bytes };
}

function packListing(field: IndexField, value: unknown): ModelPackListing {
  const obj = object(field, value);
  return {
    id: folderName(field.child('id'), ownValue(obj, 'id')),
    name: text(field.child('name'), ownValue(obj, 'name')),
    description: text(field.child('description'), ownValue(obj, 'description')),
    files: list(field.child('files'), ownValue(obj, 'files'), fileListing),
  };
}

function folderEntry(field: IndexField, value: unknown): ModelFolderEntry | null {
  if (value === undefined || value === null) return null;
  const obj = object(field, value);
  return { dir: folderName(field.child('dir'), ownValue(obj, 'dir')), files: list(field.child('files'), ownValue(obj, 'files'), fileListing) };
}

/** Checks a parsed /models/index.json; `file` names it in messages. Keys written by a later build are ignored. */
export function parseModelsIndex(json: unknown, file: string): ModelsIndex {
  const root = new IndexField(file, '');
  const obj = object(root, json);
  const captioners = ownValue(obj, 'captioners');
  return {
    packs: list(root.child('packs'), ownValue(obj, 'packs'), packListing),
    detector: folderEntry(root.child('detector'), ownValue(obj, 'detector')),
    captioners: captioners === undefined ? [] : list(root.child('captioners'), captioners, packListing),
    clevr: folderEntry(root.child('clevr'), ownValue(obj, 'clevr')),
    avsd: folderEntry(root.child('avsd'), ownValue(obj, 'avsd')),
    photoCheck: folderEntry(root.child('photoCheck'), ownValue(obj, 'photoCheck')),
  };
}
