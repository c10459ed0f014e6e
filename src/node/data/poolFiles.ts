import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClipEncoder } from '../../engine/clip/clipEncoder';
import { decodeUtf8Strict, parseJsonDocument } from '../../engine/datasets/validation';
import {
  type PoolMediaItem,
  type PoolText,
  type PoolTextSource,
  parseMediaCatalogue,
  parseTextCatalogue,
  parseTextSources,
} from '../../engine/datasets/poolCatalogue';
import { type ModelDtype, chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { configureWasm } from '../../engine/onnx/ortSessions';
import { type PoolEmbeddingsFile, parsePoolEmbeddings } from '../../engine/pool/poolEmbeddings';
import { FsPackSource } from '../tools/fsPackSource';
import type { LexicalCounts } from '../../engine/ranking/lexical';
import { parseLexicalCounts } from '../../engine/ranking/lexicalIndexFile';

/** The demo pool's catalogues from a folder (public/pool): media.json and texts.json (its texts and their sources), validated strictly. */
export function loadPoolCatalogue(dir: string): { texts: PoolText[]; textSources: PoolTextSource[]; media: PoolMediaItem[] } {
  const read = (name: string) => parseJsonDocument(decodeUtf8Strict(new Uint8Array(readFileSync(join(dir, name))), name), name);
  const texts = read('texts.json');
  return {
    media: parseMediaCatalogue(read('media.json'), { file: 'media.json', strict: true }),
    texts: parseTextCatalogue(texts, { file: 'texts.json', strict: true }),
    textSources: parseTextSources(texts, { file: 'texts.json', strict: true }),
  };
}

/** The pool:build output of a pack (<pool>/embeddings/<pack>.json + .bin), or null when there is none. */
export function readPoolEmbeddingsFile(poolDir: string, packId: string): PoolEmbeddingsFile | null {
  const base = join(poolDir, 'embeddings', packId);
  if (!existsSync(`${base}.json`) || !existsSync(`${base}.bin`)) return null;
  return parsePoolEmbeddings(JSON.parse(readFileSync(`${base}.json`, 'utf8')), new Uint8Array(readFileSync(`${base}.bin`)), `${base}.json`);
}

/** The pool's shipped BM25 counts (npm run pool:index), checked against its texts as the page checks them; null when there are none. */
export function readLexicalCountsFile(poolDir: string, texts: readonly string[]): LexicalCounts | null {
  const base = join(poolDir, 'lexical');
  if (!existsSync(`${base}.json`) || !existsSync(`${base}.bin`)) return null;
  return parseLexicalCounts(JSON.parse(readFileSync(`${base}.json`, 'utf8')), new Uint8Array(readFileSync(`${base}.bin`)), `${base}.json`, texts);
}

/**
 * A pack loaded the way every Node tool runs it: WASM, one thread. `pack` is an id under models/ or,
 * with a slash, any pack folder. `dtypes` replaces the WASM plan's variants (a benchmark comparing
 * q8 with fp32); by default the page's WASM choice.
 */
export async function loadWasmPack(pack: string, dtypes?: ModelDtype[]): Promise<{ encoder: ClipEncoder; source: FsPackSource; files: string[] }> {
  const wasmPlan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  const plan = dtypes ? { ...wasmPlan, dtypes } : wasmPlan;
  configureWasm(plan.wasmThreads);
  const source = new FsPackSource(pack.includes('/') ? pack : join('models', pack));
  const files = await source.listFiles();
  return { encoder: await ClipEncoder.load(source, files, plan), source, files };
}
