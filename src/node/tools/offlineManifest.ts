import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManifestEntry, ManifestTransform } from 'workbox-build';
import { defaultPackId } from '../../engine/pack/defaultPack.ts';
import { AVSD_CONFIG_FILE, type AvsdModelId, VAD_MODEL_FILE, pageModels } from '../../engine/video/avsdModels.ts';
import { type OfflineEntry, offlineVersion } from '../../sw/offlineCache.ts';
import { type DetectorListing, type ModelFolderListing, type PackListing, listModels } from './modelPacks.ts';
import { packIndexJson } from './viteModelsPlugin.ts';

/** The .wasm of onnxruntime-web's WebGPU-capable build, as Vite names it (the bundle's JSEP build). */
const WEBGPU_CAPABLE_RUNTIME = /^assets\/ort-wasm-simd-threaded\.jsep-[\w-]+\.wasm$/;

/** What workbox-build found in the build output: its URL, revision and size. */
type BuiltFile = ManifestEntry & { size: number };

/** workbox-build sums and then drops `size`: set to what install downloads, its build log reports that. */
export type ManifestFile = OfflineEntry & { size: number };

function revisionOf(bytes: Uint8Array | string): string {
  return sha256Of(bytes).slice(0, 16);
}

function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

interface OfflineManifestInputs {
  /** The build output as workbox-build lists it, without sw.js, source maps and models/ (listed from the packs). */
  built: BuiltFile[];
  /** Where the packs live (they are served from here and copied into the build by viteModelsPlugin). */
  modelsDir: string;
  packs: PackListing[];
  /** The object detector (models/detector/), or null when there is none. */
  detector: DetectorListing | null;
  /** Captioning packs (the page uses the first with every pack); absent in older callers. */
  captioners?: PackListing[];
  /** The CLEVR-Dialog answerers (models/clevr/), kept at install so the view works offline. */
  clevr?: ModelFolderListing | null;
  /** The video models (models/avsd/), kept at install so shared videos are understood offline. */
  avsd?: ModelFolderListing | null;
  /** The photo check (models/photo-check/), kept at install: a booth offline still checks what it shows. */
  photoCheck?: ModelFolderListing | null;
  /** /models/index.json exactly as it is served. */
  packIndexJson: string;
}

/**
 * The files the service worker keeps: the app shell, the default pack with the object detector (so
 * shared photos are still described offline), the demo pool with the default pack's embeddings and
 * keys, and the train dialogues at install; the other packs (and their embeddings), and replay's valid
 * and test dialogues, on first use.
 */
/** The files of models/avsd the page reads; null when the config cannot be read (all are kept then, and the worker says what is wrong). */
function avsdPageFiles(dir: string): Set<string> | null {
  try {
    const config = JSON.parse(readFileSync(join(dir, AVSD_CONFIG_FILE), 'utf8')) as { default?: unknown; models?: unknown };
    const models = Array.isArray(config.models) ? (config.models as AvsdModelId[]) : [];
    const chosen = models.find((m) => m === config.default) ?? models[models.length - 1];
    if (!chosen) return null;
    return new Set([AVSD_CONFIG_FILE, `onnx/${VAD_MODEL_FILE}.onnx`, ...pageModels(chosen).map((m) => `onnx/avsd-${m}.onnx`)]);
  } catch {
    return null;
  }
}

function offlineEntries({
  built,
  modelsDir,
  packs,
  detector,
  captioners = [],
  clevr = null,
  avsd = null,
  photoCheck = null,
  packIndexJson,
}: OfflineManifestInputs): ManifestFile[] {
  const defaultPack = defaultPackId(packs.map((p) => p.id)) ?? null;
  const entry = (url: string, revision: string | null, bytes: number, install: boolean, pack?: string, sha256?: string): ManifestFile => ({
    url,
    revision,
    bytes,
    install,
    ...(pack === undefined ? {} : { pack }),
    ...(sha256 === undefined ? {} : { sha256 }),
    size: install ? bytes : 0,
  });
  const fromModels = (dir: string, path: string, install: boolean, pack?: string) => {
    const bytes = readFileSync(join(modelsDir, dir, path));
    return entry(`models/${dir}/${path}`, revisionOf(bytes), bytes.length, install, pack, sha256Of(bytes));
  };
  // Files copied from public/ (the pool, its embeddings, the dialogues) get a hash the service worker checks;
  // Vite's assets/ carry theirs in the name.
  const publicDir = join(modelsDir, '..', 'public');
  const publicSha256 = (url: string) => (existsSync(join(publicDir, url)) ? sha256Of(readFileSync(join(publicDir, url))) : undefined);
  // A pack's pool files: its CLIP embeddings (<pack>.json/.bin), its conversational encoder's keys and stored contexts (<pack>.chat.*, <pack>.contexts.*), its heads' DE++ image keys (<pack>.depp.*).
  const packIds = new Set(packs.map((p) => p.id));
  const embeddingsOwner = (url: string) => {
    const id = /^pool\/embeddings\/(.+?)(?:\.(?:chat|contexts|depp))?\.(?:json|bin)$/.exec(url)?.[1];
    return id !== undefined && packIds.has(id) ? id : undefined;
  };

  // The reference dialogues of replay's valid and test splits (18 MB with their 999 negatives each) are
  // stored the first time replay reads them; the train split, which every reply reads, comes with the install.
  // texts.json too: the page reads the pool's texts from its text table (npm run pool:index), and
  // texts.json only when the table is missing or does not fit.
  const firstUse = (url: string) => /^dialogues\/(valid|test)\//.test(url) || url === 'pool/texts.json';
  const files: ManifestFile[] = [];
  for (const file of [...built].sort((a, b) => a.url.localeCompare(b.url))) {
    const pack = embeddingsOwner(file.url);
    // onnxruntime's WebGPU-capable build (28 MB) is kept where the page's worker runs it, with the pack in use.
    if (WEBGPU_CAPABLE_RUNTIME.test(file.url)) {
      files.push({ ...entry(file.url, file.revision, file.size, false), runtime: 'webgpu-capable' });
      continue;
    }
    files.push(entry(file.url, file.revision, file.size, !firstUse(file.url) && (pack === undefined || pack === defaultPack), pack, publicSha256(file.url)));
  }
  files.push(entry('models/index.json', revisionOf(packIndexJson), Buffer.byteLength(packIndexJson), true));
  // Every pack uses the detector, so it is kept at install whichever pack is chosen.
  if (detector) files.push(...detector.files.map((f) => fromModels(detector.dir, f.path, true)));
  // The captioner writes photo captions whichever pack is chosen, as the detector does.
  for (const captioner of captioners) files.push(...captioner.files.map((f) => fromModels(captioner.id, f.path, true)));
  // The CLEVR-Dialog view's answerers are small (a few MB) and needed by no pack: kept at install, so the view works offline.
  if (clevr) files.push(...clevr.files.map((f) => fromModels(clevr.dir, f.path, true)));
  // Of the video models, install keeps what the page reads (the config, Silero VAD, the screening and the
  // default ranker); the ablation's other rankers are only for the benchmark, still served.
  if (avsd) {
    const pageFiles = avsdPageFiles(join(modelsDir, avsd.dir));
    files.push(...avsd.files.map((f) => fromModels(avsd.dir, f.path, pageFiles?.has(f.path) ?? true)));
  }
  if (photoCheck) files.push(...photoCheck.files.map((f) => fromModels(photoCheck.dir, f.path, true)));
  for (const pack of packs) files.push(...pack.files.map((f) => fromModels(pack.id, f.path, pack.id === defaultPack, pack.id)));
  return files;
}

/**
 * A manifestTransform for workbox-build: turns its list of the built files into the offline copy's
 * list (see OfflineEntry), which injectManifest writes into sw.js.
 */
function offlineManifestTransform(modelsDir: string, log: (line: string) => void): ManifestTransform {
  return (built) => {
    const models = listModels(modelsDir);
    const manifest = offlineEntries({ built, modelsDir, ...models, packIndexJson: packIndexJson(models) });
    const kept = manifest.filter((e) => e.install);
    const megabytes = kept.reduce((n, e) => n + e.bytes, 0) / 1e6;
    log(
      `offline: version ${offlineVersion(manifest)}, ${kept.length} files (${megabytes.toFixed(1)} MB) kept at install, ${manifest.length - kept.length} on first use`,
    );
    return { manifest, warnings: [] };
  };
}

/** The injectManifest options of the build (vite.config.ts), here so a test can run workbox-build with them. */
export function offlineInjectManifestOptions(modelsDir: string, log: (line: string) => void = () => undefined) {
  return {
    globPatterns: ['**/*'],
    // models/ is listed from the packs themselves (see offlineEntries), not from the build's copy of them.
    globIgnores: ['sw.js', '**/*.map', 'models/**'],
    // Vite's file names under assets/ change with their content already.
    dontCacheBustURLsMatching: /^assets\//,
    maximumFileSizeToCacheInBytes: 1024 ** 3,
    manifestTransforms: [offlineManifestTransform(modelsDir, log)],
  };
}
