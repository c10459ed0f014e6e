import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What /models/index.json says about each pack folder under models/. */
export interface PackListing {
  id: string;
  name: string;
  description: string;
  files: { path: string; bytes: number }[];
}

/** What /models/index.json says about the object detector (models/detector/), when there is one. */
export interface DetectorListing {
  /** Its folder under models/ (the engine's DETECTOR_DIR). */
  dir: string;
  files: { path: string; bytes: number }[];
}

/** Folders of a pack that are for tests or tooling, never served or shipped. */
const PRIVATE_DIRS = new Set(['fixture', 'training']);

/** The detector's folder under models/ (DETECTOR_DIR in src/engine/detection/objectDetector.ts, which this Node-side code does not import: it pulls in onnxruntime). */
export const DETECTOR_DIR = 'detector';
/** The file that makes models/detector/ a detector (DETECTOR_CONFIG_FILE in the engine). */
const DETECTOR_CONFIG = 'detector.json';
/** The detector's private folders: test photos, and the TF.js model it was ported from. */
const DETECTOR_PRIVATE_DIRS = new Set([...PRIVATE_DIRS, 'source']);

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
export function listModelPacks(modelsDir: string, kind: 'clip' | 'captioner' = 'clip'): PackListing[] {
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

/** The object detector in models/detector/ (a folder with detector.json), without its private folders; null when there is none. */
export function listDetector(modelsDir: string): DetectorListing | null {
  const dir = join(modelsDir, DETECTOR_DIR);
  if (!existsSync(join(dir, DETECTOR_CONFIG))) return null;
  const files: { path: string; bytes: number }[] = [];
  walk(dir, dir, files, DETECTOR_PRIVATE_DIRS);
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { dir: DETECTOR_DIR, files };
}

/** Everything under models/ that the app loads: the CLIP packs and the object detector. */
export interface ModelsListing {
  packs: PackListing[];
  detector: DetectorListing | null;
  /** Image-captioning packs (config.json model_type "vision-encoder-decoder"). */
  captioners: PackListing[];
}

export function listModels(modelsDir: string): ModelsListing {
  return { packs: listModelPacks(modelsDir), detector: listDetector(modelsDir), captioners: listModelPacks(modelsDir, 'captioner') };
}

/** The file a URL under /models/ names, when it is a pack's or the detector's and not private; else null. */
export function isServablePackPath(modelsDir: string, urlPath: string): string | null {
  // urlPath is what follows /models/, e.g. "test-tiny-clip/onnx/text_model.onnx" or "detector/onnx/model.onnx".
  const parts = urlPath.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) return null;
  const full = join(modelsDir, ...parts);
  if (!full.startsWith(modelsDir + sep)) return null;
  const isPack = existsSync(join(modelsDir, parts[0]!, 'config.json'));
  const isDetector = !isPack && parts[0] === DETECTOR_DIR && existsSync(join(modelsDir, DETECTOR_DIR, DETECTOR_CONFIG));
  if (!isPack && !isDetector) return null;
  const privateDirs = isDetector ? DETECTOR_PRIVATE_DIRS : PRIVATE_DIRS;
  if (parts.some((p) => privateDirs.has(p))) return null;
  return existsSync(full) && statSync(full).isFile() ? full : null;
}
