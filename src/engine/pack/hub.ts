import { type ModelDtype, pickOnnxFile } from '../onnx/executionPlan';

// URL exists in browsers, workers and Node; the engine compiles without DOM types.
declare const URL: new (input: string) => { protocol: string; search: string; hash: string; href: string; host: string };

/**
 * The Hugging Face hub's layout, as the page's downloads and `npm run models:fetch` both use it:
 * the one registry of packs that can be downloaded, the hub's URL scheme and which files of a repo a
 * pack needs for an execution plan. A mirror or a venue's local copy only has to speak the same URLs.
 */

export type RemotePackKind = 'clip' | 'captioner';

export interface RemotePack {
  id: string;
  repo: string;
  revision: string;
  kind: RemotePackKind;
  /** What the Settings button says, e.g. "real CLIP". */
  shortName: string;
  name: string;
  description: string;
  license: string;
  /** JSON and tokenizer files, all required. */
  configFiles: readonly string[];
  /** ONNX models by base name: onnx/<model>.onnx and its variants (executionPlan's naming). */
  models: readonly string[];
  /**
   * Bytes of the files of one variant on the real hub, rounded, for the size shown before the hub is
   * asked (its tree gives the exact figure once reachable).
   */
  approxBytes: Record<ModelDtype, number>;
}

const MB = 1e6;

export const REMOTE_PACKS: readonly RemotePack[] = [
  {
    id: 'clip-vit-base-patch32',
    repo: 'Xenova/clip-vit-base-patch32',
    revision: 'main',
    kind: 'clip',
    shortName: 'real CLIP',
    name: 'CLIP ViT-B/32 (OpenAI)',
    description: 'The real CLIP ViT-B/32 (openai/clip-vit-base-patch32), Transformers.js ONNX port: 512-d embeddings.',
    license: 'MIT (OpenAI CLIP)',
    configFiles: ['config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'],
    models: ['text_model', 'vision_model'],
    approxBytes: { q8: 155 * MB, fp16: 305 * MB, fp32: 608 * MB },
  },
  {
    id: 'vit-gpt2-image-captioning',
    repo: 'Xenova/vit-gpt2-image-captioning',
    revision: 'main',
    kind: 'captioner',
    shortName: 'a real captioner',
    name: 'ViT-GPT2 image captioning (nlpconnect)',
    description: 'A ViT encoder with a GPT-2 decoder trained on COCO captions (nlpconnect/vit-gpt2-image-captioning), Transformers.js ONNX port. Describes shared photos in a sentence.',
    license: 'Apache-2.0',
    configFiles: ['config.json', 'generation_config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'],
    models: ['encoder_model', 'decoder_model_merged'],
    approxBytes: { q8: 245 * MB, fp16: 480 * MB, fp32: 960 * MB },
  },
];

export function remotePack(id: string): RemotePack | undefined {
  return REMOTE_PACKS.find((p) => p.id === id);
}

export const DEFAULT_HUB = 'https://huggingface.co';

/** The hub address as typed, checked: an http(s) URL without a trailing slash; null when it is not one. */
export function normalizeHubUrl(text: string): string | null {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.search || url.hash) return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** {hub}/{repo}/resolve/{revision}/{file}: the hub's address of one file (it may redirect to a CDN). */
export function hubFileUrl(hub: string, pack: Pick<RemotePack, 'repo' | 'revision'>, path: string): string {
  return `${hub}/${pack.repo}/resolve/${encodeURIComponent(pack.revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The hub's listing of a repo with sizes and, for files kept in LFS, their SHA-256. */
export function hubTreeUrl(hub: string, pack: Pick<RemotePack, 'repo' | 'revision'>): string {
  return `${hub}/api/models/${pack.repo}/tree/${encodeURIComponent(pack.revision)}?recursive=true`;
}

export interface HubFileInfo {
  bytes: number;
  /** Hex SHA-256 of the content; the hub gives it for LFS files (the large ones). */
  sha256?: string;
}

/** Reads the tree API's answer: [{type: 'file', path, size, lfs?: {oid, size}}, ...]; null when it is not that. */
export function parseHubTree(json: unknown): Map<string, HubFileInfo> | null {
  if (!Array.isArray(json)) return null;
  const files = new Map<string, HubFileInfo>();
  for (const entry of json) {
    if (typeof entry !== 'object' || entry === null) return null;
    const e = entry as Record<string, unknown>;
    if (e['type'] !== 'file') continue;
    if (typeof e['path'] !== 'string' || typeof e['size'] !== 'number') return null;
    const lfs = e['lfs'] as Record<string, unknown> | undefined;
    const oid = typeof lfs?.['oid'] === 'string' && /^[0-9a-f]{64}$/.test(lfs['oid']) ? lfs['oid'] : undefined;
    const bytes = typeof lfs?.['size'] === 'number' ? lfs['size'] : e['size'];
    files.set(e['path'], oid ? { bytes, sha256: oid } : { bytes });
  }
  return files;
}

export interface PlannedFile {
  path: string;
  /** From the hub's tree; null when the hub gave none (then the server's Content-Length is checked). */
  bytes: number | null;
  sha256?: string;
}

export interface DownloadPlan {
  files: PlannedFile[];
  /** The variant of each model that will be downloaded. */
  dtypes: Record<string, ModelDtype>;
  /** Sum of the known sizes. */
  bytes: number;
}

/**
 * The files to download for a plan's variants (best first): per model the first variant the repo's
 * tree lists, else fp32, so a repo without quantized files still downloads. Without a tree (a plain
 * file mirror) the plan's first variant is assumed to exist. Null when a required file is not in
 * the tree; `missing` names it.
 */
export function planDownload(pack: RemotePack, tree: ReadonlyMap<string, HubFileInfo> | null, dtypes: readonly ModelDtype[]): DownloadPlan | { missing: string } {
  const chosen: Record<string, ModelDtype> = {};
  const paths: string[] = [...pack.configFiles];
  for (const model of pack.models) {
    if (tree) {
      const pick = pickOnnxFile(model, dtypes, new Set(tree.keys()));
      if (!pick) return { missing: `onnx/${model}.onnx` };
      chosen[model] = pick.dtype;
      paths.push(pick.file);
    } else {
      const dtype = dtypes[0] ?? 'fp32';
      chosen[model] = dtype;
      paths.push(`onnx/${model}${dtype === 'fp32' ? '' : dtype === 'fp16' ? '_fp16' : '_quantized'}.onnx`);
    }
  }
  const files: PlannedFile[] = [];
  for (const path of paths) {
    const info = tree?.get(path);
    if (tree && !info) return { missing: path };
    files.push(info ? (info.sha256 ? { path, bytes: info.bytes, sha256: info.sha256 } : { path, bytes: info.bytes }) : { path, bytes: null });
  }
  return { files, dtypes: chosen, bytes: files.reduce((s, f) => s + (f.bytes ?? 0), 0) };
}

/** "152 MB", "1.2 GB": sizes for people. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e7) return `${Math.round(bytes / 1e6)} MB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}
