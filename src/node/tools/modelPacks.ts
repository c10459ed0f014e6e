import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What /models/index.json says about each pack folder under models/. */
export interface PackListing {
  id: string;
  name: string;
  description: string;
  files: { path: string; bytes: number }[];
}

/** What /models/index.json says about a model folder that is not a pack: the object detector (models/detector/) or the CLEVR-Dialog answerers (models/clevr/). */
export interface ModelFolderListing {
  /** Its folder under models/. */
  dir: string;
  files: { path: string; bytes: number }[];
}
export type DetectorListing = ModelFolderListing;

/** Folders of a pack that are for tests or tooling, never served or shipped. */
const PRIVATE_DIRS = new Set(['fixture', 'training']);

/** The detector's folder under models/ (DETECTOR_DIR in src/engine/detection/objectDetector.ts, which this Node-side code does not import: it pulls in onnxruntime). */
const DETECTOR_DIR = 'detector';
/** The file that makes models/detector/ a detector (DETECTOR_CONFIG_FILE in the engine). */
const DETECTOR_CONFIG = 'detector.json';
/** The detector's private folders: test photos, and the TF.js model it was ported from. */
const DETECTOR_PRIVATE_DIRS = new Set([...PRIVATE_DIRS, 'source']);
/** The CLEVR-Dialog answerers' folder and the file that makes it one (CLEVR_CONFIG_FILE in the engine). */
const CLEVR_DIR = 'clevr';
const CLEVR_CONFIG = 'clevr.json';
/** The video answer rankers and the voice-activity model (AVSD_CONFIG_FILE in the engine); speech/ holds the recordings the clip generator uses. */
const AVSD_DIR = 'avsd';
const AVSD_CONFIG = 'avsd.json';
/** The photo check (PHOTO_CHECK_CONFIG_FILE in the engine), made by npm run photo-check:port. */
const PHOTO_CHECK_DIR = 'photo-check';
const PHOTO_CHECK_CONFIG = 'photo-check.json';

/** The model folders under models/ that are not packs: each has a config file and private folders. */
const MODEL_FOLDERS = [
  { dir: DETECTOR_DIR, config: DETECTOR_CONFIG, privateDirs: DETECTOR_PRIVATE_DIRS },
  { dir: CLEVR_DIR, config: CLEVR_CONFIG, privateDirs: PRIVATE_DIRS },
  { dir: AVSD_DIR, config: AVSD_CONFIG, privateDirs: new Set([...PRIVATE_DIRS, 'speech']) },
  { dir: PHOTO_CHECK_DIR, config: PHOTO_CHECK_CONFIG, privateDirs: PRIVATE_DIRS },
] as const;

function walk(dir: string, root: string, out: { path: string; bytes: number }[], privateDirs: ReadonlySet<string> = PRIVATE_DIRS): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!privateDirs.has(entry.name)) walk(full, root, out, privateDirs);
    } else if (entry.isFile()) {
      out.push({ path: relative(root, full).split(sep).join('/'), bytes: statSync(full).size });
    }
  }
}

/** config.json of a Transformers.js image-captioning pack (VisionEncoderDecoder) says so; CLIP packs say "clip" or nothing. */
function isCaptionerFolder(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { model_type?: unknown }).model_type === 'vision-encoder-decoder';
  } catch {
    return false;
  }
}

/** A folder is a pack when it has config.json; manifest.json (optional) names and describes it. Captioning packs are listed apart. */
function listModelPacks(modelsDir: string, kind: 'clip' | 'captioner' = 'clip'): PackListing[] {
  if (!existsSync(modelsDir)) return [];
  const packs: PackListing[] = [];
  for (const entry of readdirSync(modelsDir, { withFileTypes: true })) {
    const dir = join(modelsDir, entry.name);
    if (!entry.isDirectory() || !existsSync(join(dir, 'config.json'))) continue;
    if (isCaptionerFolder(dir) !== (kind === 'captioner')) continue;
    let manifest: { name?: unknown; description?: unknown } = {};
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as typeof manifest;
    } catch {
      // No manifest: the folder name is the label.
    }
    const files: { path: string; bytes: number }[] = [];
    walk(dir, dir, files);
    files.sort((a, b) => a.path.localeCompare(b.path));
    packs.push({
      id: entry.name,
      name: typeof manifest.name === 'string' ? manifest.name : entry.name,
      description: typeof manifest.description === 'string' ? manifest.description : '',
      files,
    });
  }
  return packs.sort((a, b) => a.id.localeCompare(b.id));
}

/** A model folder (the detector, the CLEVR-Dialog answerers) without its private folders; null when models/ has none. */
function listModelFolder(modelsDir: string, folder: (typeof MODEL_FOLDERS)[number]): ModelFolderListing | null {
  const dir = join(modelsDir, folder.dir);
  if (!existsSync(join(dir, folder.config))) return null;
  const files: { path: string; bytes: number }[] = [];
  walk(dir, dir, files, folder.privateDirs);
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { dir: folder.dir, files };
}

/** The object detector in models/detector/ (a folder with detector.json); null when there is none. */
function listDetector(modelsDir: string): DetectorListing | null {
  return listModelFolder(modelsDir, MODEL_FOLDERS[0]);
}

/** The CLEVR-Dialog answerers in models/clevr/ (a folder with clevr.json); null when there are none. */
function listClevr(modelsDir: string): ModelFolderListing | null {
  return listModelFolder(modelsDir, MODEL_FOLDERS[1]);
}

/** The video answer rankers and Silero VAD in models/avsd/ (a folder with avsd.json); null when there are none. */
function listAvsd(modelsDir: string): ModelFolderListing | null {
  return listModelFolder(modelsDir, MODEL_FOLDERS[2]);
}

/** Everything under models/ that the app loads: the CLIP packs and the object detector. */
export interface ModelsListing {
  packs: PackListing[];
  detector: DetectorListing | null;
  /** Image-captioning packs (config.json model_type "vision-encoder-decoder"). */
  captioners: PackListing[];
  /** The CLEVR-Dialog view's answerers. */
  clevr: ModelFolderListing | null;
  /** What shared videos are understood and answered with. */
  avsd: ModelFolderListing | null;
  /** The check of shared photos and video frames for a public booth. */
  photoCheck: ModelFolderListing | null;
}

export function listModels(modelsDir: string): ModelsListing {
  return {
    packs: listModelPacks(modelsDir),
    detector: listDetector(modelsDir),
    captioners: listModelPacks(modelsDir, 'captioner'),
    clevr: listClevr(modelsDir),
    avsd: listAvsd(modelsDir),
    photoCheck: listModelFolder(modelsDir, MODEL_FOLDERS[3]),
  };
}

/** The file a URL under /models/ names, when it is a pack's or a model folder's and not private; else null. */
export function isServablePackPath(modelsDir: string, urlPath: string): string | null {
  // urlPath is what follows /models/, e.g. "test-tiny-clip/onnx/text_model.onnx" or "detector/onnx/model.onnx".
  const parts = urlPath.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) return null;
  const full = join(modelsDir, ...parts);
  if (!full.startsWith(modelsDir + sep)) return null;
  const isPack = existsSync(join(modelsDir, parts[0]!, 'config.json'));
  const folder = isPack ? undefined : MODEL_FOLDERS.find((f) => f.dir === parts[0] && existsSync(join(modelsDir, f.dir, f.config)));
  if (!isPack && !folder) return null;
  const privateDirs = folder ? folder.privateDirs : PRIVATE_DIRS;
  if (parts.some((p) => privateDirs.has(p))) return null;
  return existsSync(full) && statSync(full).isFile() ? full : null;
}
