import { type ModelDtype, pickOnnxFile } from '../onnx/executionPlan';

// URL exists in browsers, workers and Node; the engine compiles without DOM types.
declare const URL: new (input: string) => {
  protocol: string;
  search: string;
  hash: string;
  href: string;
  host: string;
  origin: string;
  username: string;
  password: string;
};

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
    description:
      'A ViT encoder with a GPT-2 decoder trained on COCO captions (nlpconnect/vit-gpt2-image-captioning), Transformers.js ONNX port. Describes shared photos in a sentence.',
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

/** Longest hub address accepted: real ones are a few dozen characters, and a browser answers a far longer one with a bare network error. */
const MAX_HUB_URL_LENGTH = 2000;

export type HubUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The hub address as typed, checked, with the sentence to show when it cannot be used. Credentials
 * (user:pass@) are refused rather than kept: the page would store them in clear and browsers refuse
 * to send them from fetch anyway. `originAllowed` is the page's security policy (the CLI has none).
 */
export function checkHubUrl(text: string, originAllowed?: (origin: string) => boolean): HubUrlCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_HUB_URL_LENGTH) {
    return {
      ok: false,
      reason: `The hub address is ${trimmed.length.toLocaleString('en')} characters long; a hub address has at most ${MAX_HUB_URL_LENGTH.toLocaleString('en')}. Type only the hub's address, such as https://huggingface.co.`,
    };
  }
  let url: InstanceType<typeof URL>;
  try {
    url = new URL(trimmed);
  } catch {
    return { ok: false, reason: `"${shortForMessage(trimmed)}" is not an http(s) address. Type one like https://huggingface.co or http://127.0.0.1:8080.` };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      reason:
        'The hub address holds a user name or password (user:password@…). The page does not keep credentials: type the address without them (the hub and a mirror on this machine need none).',
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `"${shortForMessage(trimmed)}" is not an http(s) address. Type one like https://huggingface.co or http://127.0.0.1:8080.` };
  }
  if (url.search || url.hash) {
    return {
      ok: false,
      reason: `The hub address "${shortForMessage(trimmed)}" has a query or fragment (? or #); a hub address has neither. Type one like https://huggingface.co.`,
    };
  }
  if (originAllowed && !originAllowed(url.origin)) {
    return {
      ok: false,
      reason: `This page's security policy lets it download only from huggingface.co (and its file servers) or a mirror on this machine (localhost, 127.0.0.1), so ${url.origin} cannot be used. Use one of those, or add the mirror to DOWNLOAD_ORIGINS in src/engine/securityPolicy.ts and rebuild.`,
    };
  }
  return { ok: true, url: url.href.replace(/\/+$/, '') };
}

/** The address without a user name or password: for an address stored before they were refused. */
export function withoutCredentials(text: string): string {
  try {
    const url = new URL(text);
    if (!url.username && !url.password) return text;
    url.username = '';
    url.password = '';
    return url.href.replace(/\/+$/, '');
  } catch {
    return text;
  }
}

function shortForMessage(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
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

export type HubTreeReading = { files: Map<string, HubFileInfo> } | { damaged: string };

const isByteCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Reads the tree API's answer: [{type: 'file', path, size, lfs?: {oid, size}}, ...]. Anything else,
 * or a file whose size is not a whole number of bytes, is `damaged` with the reason: such a list
 * cannot be used to check sizes and hashes, and must not be taken for "no list".
 */
export function parseHubTree(json: unknown): HubTreeReading {
  if (!Array.isArray(json)) return { damaged: 'it is not a list of files' };
  const files = new Map<string, HubFileInfo>();
  for (const [index, entry] of json.entries()) {
    if (typeof entry !== 'object' || entry === null) return { damaged: `entry ${index + 1} is not a file record` };
    const e = entry as Record<string, unknown>;
    if (e['type'] !== 'file') continue;
    if (typeof e['path'] !== 'string' || e['path'] === '') return { damaged: `entry ${index + 1} has no path` };
    const path = shortName(e['path']);
    if (!isByteCount(e['size']))
      return { damaged: `it gives ${path} the size ${shortName(JSON.stringify(e['size']) ?? 'none')}, which is not a number of bytes` };
    const lfs = e['lfs'];
    if (lfs === undefined || lfs === null) {
      files.set(e['path'], { bytes: e['size'] });
      continue;
    }
    if (typeof lfs !== 'object') return { damaged: `its LFS record of ${path} is not an object` };
    const l = lfs as Record<string, unknown>;
    if (typeof l['oid'] !== 'string' || !/^[0-9a-f]{64}$/.test(l['oid'])) return { damaged: `its LFS record of ${path} has no SHA-256` };
    if (l['size'] !== undefined && !isByteCount(l['size']))
      return { damaged: `it gives ${path} the LFS size ${shortName(JSON.stringify(l['size']) ?? 'none')}, which is not a number of bytes` };
    files.set(e['path'], { bytes: isByteCount(l['size']) ? l['size'] : e['size'], sha256: l['oid'] });
  }
  return { files };
}

function shortName(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * Most bytes one file may have when the hub lists no size (a plain mirror without the tree API):
 * more than the largest file of any pack above (the captioner's fp32 decoder, about 0.6 GB), far
 * less than a server streaming without end. Decoded bytes count (a gzip must not inflate past it).
 */
export const UNLISTED_FILE_CAP_BYTES = 1_000_000_000;

/** Content types a hub or mirror may serve pack files as: the hub sends JSON and text files as text/plain, the models (LFS) as octet-stream. */
const BINARY_TYPES = ['application/octet-stream', 'binary/octet-stream'];
const TEXT_TYPES = ['application/json', 'text/plain', ...BINARY_TYPES];

/**
 * Why a response's Content-Type cannot be a pack file (a web page, an image...), or null when it can.
 * A server that names no type is given the benefit of the doubt; the bytes are sniffed as well.
 */
export function refusedContentType(path: string, header: string | null): string | null {
  if (header === null || header.trim() === '') return null;
  const type = header.split(';')[0]!.trim().toLowerCase();
  const text = /\.(json|txt)$/.test(path);
  const allowed = text ? TEXT_TYPES : BINARY_TYPES;
  if (allowed.includes(type)) return null;
  if (type === 'text/html' || type === 'application/xhtml+xml') return `a web page (${type}), not the file`;
  return `${shortName(type)}, which is not a model file (expected ${text ? 'application/json, text/plain or ' : ''}application/octet-stream)`;
}

/** Whether a file's first bytes are markup ("<!doctype html>", "<html", "<?xml"): a web page or an error page, never a model or JSON file. */
export function startsLikeMarkup(bytes: Uint8Array): boolean {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // UTF-8 BOM
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  return bytes[i] === 0x3c; // "<"
}

interface PlannedFile {
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
export function planDownload(
  pack: RemotePack,
  tree: ReadonlyMap<string, HubFileInfo> | null,
  dtypes: readonly ModelDtype[],
): DownloadPlan | { missing: string } {
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
