import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What /models/index.json says about each pack folder under models/. */
export interface PackListing {
  id: string;
  name: string;
  description: string;
  files: { path: string; bytes: number }[];
}

/** Folders of a pack that are for tests or tooling, never served or shipped. */
const PRIVATE_DIRS = new Set(['fixture', 'training']);

function walk(dir: string, root: string, out: { path: string; bytes: number }[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!PRIVATE_DIRS.has(entry.name)) walk(full, root, out);
    } else if (entry.isFile()) {
      out.push({ path: relative(root, full).split(sep).join('/'), bytes: statSync(full).size });
    }
  }
}

/** A folder is a pack when it has config.json; manifest.json (optional) names and describes it. */
export function listModelPacks(modelsDir: string): PackListing[] {
  if (!existsSync(modelsDir)) return [];
  const packs: PackListing[] = [];
  for (const entry of readdirSync(modelsDir, { withFileTypes: true })) {
    const dir = join(modelsDir, entry.name);
    if (!entry.isDirectory() || !existsSync(join(dir, 'config.json'))) continue;
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

export function isServablePackPath(modelsDir: string, urlPath: string): string | null {
  // urlPath is what follows /models/, e.g. "test-tiny-clip/onnx/text_model.onnx".
  const parts = urlPath.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\')) || parts.some((p) => PRIVATE_DIRS.has(p))) return null;
  const full = join(modelsDir, ...parts);
  if (!full.startsWith(modelsDir + sep)) return null;
  if (!existsSync(join(modelsDir, parts[0]!, 'config.json'))) return null;
  return existsSync(full) && statSync(full).isFile() ? full : null;
}
