import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { defaultPackId } from '../engine/pack/defaultPack.ts';
import type { ManifestFile, OfflineManifest } from '../sw/offlineCache.ts';
import type { DetectorListing, PackListing } from './modelPacks.ts';

function revisionOf(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

function fileEntry(url: string, path: string): ManifestFile {
  const bytes = readFileSync(path);
  return { url, revision: revisionOf(bytes), bytes: bytes.length };
}

function walk(dir: string, root: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, out);
    else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
  }
}

export interface OfflineManifestInputs {
  /** The build output after Vite wrote it: index.html, assets/ and the copy of public/. */
  outDir: string;
  /** Where the packs live (they are served from here and copied into the build by viteModelsPlugin). */
  modelsDir: string;
  packs: PackListing[];
  /** The object detector (models/detector/), or null when there is none. */
  detector: DetectorListing | null;
  /** /models/index.json exactly as it is served. */
  packIndexJson: string;
}

/** Built output the offline copy never needs: the service worker itself, source maps, and models/ (listed from packs). */
function shellFile(url: string): boolean {
  return url !== 'sw.js' && !url.endsWith('.map') && !url.startsWith('models/');
}

/**
 * The files the service worker keeps: the app shell, the default pack with the object detector (so
 * shared photos are still described offline), the demo pool with the default pack's embeddings, and
 * the dialogues at install; the other packs (and their embeddings) on first use. The version is a
 * hash of every file's URL and content.
 */
export function buildOfflineManifest({ outDir, modelsDir, packs, detector, packIndexJson }: OfflineManifestInputs): OfflineManifest {
  const defaultPack = defaultPackId(packs.map((p) => p.id)) ?? null;
  const embeddingsOf = (packId: string) => [`pool/embeddings/${packId}.json`, `pool/embeddings/${packId}.bin`];
  const otherEmbeddings = new Set(packs.filter((p) => p.id !== defaultPack).flatMap((p) => embeddingsOf(p.id)));

  const built: string[] = [];
  walk(outDir, outDir, built);
  const precache: ManifestFile[] = [];
  const optional: ManifestFile[] = [];
  for (const url of built.filter(shellFile).sort()) {
    (otherEmbeddings.has(url) ? optional : precache).push(fileEntry(url, join(outDir, url)));
  }
  precache.push({ url: 'models/index.json', revision: revisionOf(packIndexJson), bytes: Buffer.byteLength(packIndexJson) });

  // Every pack uses the detector, so it is kept at install whichever pack is chosen.
  if (detector) precache.push(...detector.files.map((f) => fileEntry(`models/${detector.dir}/${f.path}`, join(modelsDir, detector.dir, f.path))));

  const packUrls: Record<string, string[]> = {};
  for (const pack of packs) {
    const files = pack.files.map((f) => fileEntry(`models/${pack.id}/${f.path}`, join(modelsDir, pack.id, f.path)));
    (pack.id === defaultPack ? precache : optional).push(...files);
    const embeddings = embeddingsOf(pack.id).filter((url) => existsSync(join(outDir, url)) && statSync(join(outDir, url)).isFile());
    packUrls[pack.id] = [...files.map((f) => f.url), ...embeddings];
  }
  const version = revisionOf(JSON.stringify({ precache, optional })).slice(0, 12);
  return { version, precache, optional, packs: packUrls, defaultPack };
}
