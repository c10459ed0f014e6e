import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getManifest } from 'workbox-build';
import { type OfflineEntry, offlineVersion } from '../../sw/offlineCache';
import { offlineInjectManifestOptions } from './offlineManifest';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * A build output and a models folder with the default pack (mini-clip), one more, and the object
 * detector, listed by workbox-build with the build's options.
 */
async function fixture(overrides: Record<string, string> = {}, options: { detector?: boolean; models?: Record<string, string> } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'offline-manifest-'));
  const outDir = join(root, 'dist');
  const modelsDir = join(root, 'models');
  write(outDir, {
    'index.html': '<html></html>',
    'sw.js': 'old service worker',
    'assets/index-abc.js': 'app',
    'assets/index-abc.js.map': 'map',
    'assets/ort-wasm-simd-threaded.jsep-x.wasm': 'wasm',
    'assets/ort-wasm-simd-threaded-y.wasm': 'wasm only',
    'assets/ort-wasm-simd-threaded-z.js': 'loader',
    'pool/media.json': '[]',
    'pool/texts.json': '{}',
    'pool/text-table.json': '{}',
    'pool/text-table.bin': 'texts',
    'pool/media/a.webp': 'webp',
    'pool/embeddings/mini-clip.json': '{}',
    'pool/embeddings/mini-clip.bin': 'rows',
    'pool/embeddings/mini-clip.chat.bin': 'keys',
    'pool/embeddings/mini-clip.contexts.json': '{}',
    'pool/embeddings/test-tiny-clip.bin': 'tiny rows',
    'dialogues/train/conversations.json': '[]',
    'dialogues/test/conversations.json': '[]',
    'models/mini-clip/config.json': 'a stale copy the build made',
    ...overrides,
  });
  write(modelsDir, {
    'mini-clip/config.json': '{"mini":1}',
    'mini-clip/onnx/text_model.onnx': 'mini weights',
    'mini-clip/fixture/expected.json': 'test only',
    'test-tiny-clip/config.json': '{"tiny":1}',
    'test-tiny-clip/onnx/text_model.onnx': 'tiny weights',
    ...(options.detector === false
      ? {}
      : {
          'detector/detector.json': '{"version":1}',
          'detector/onnx/model.onnx': 'detector weights',
          'detector/SOURCE.md': 'where it comes from',
          'detector/source/centernet.bin': 'the TF.js model it was ported from',
          'detector/fixture/chelsea.jpg': 'test photo',
        }),
    ...options.models,
  });
  const { manifestEntries } = await getManifest({ globDirectory: outDir, ...offlineInjectManifestOptions(modelsDir) });
  const entries = manifestEntries as unknown as OfflineEntry[];
  const urls = (install: boolean) => entries.filter((e) => e.install === install).map((e) => e.url);
  return {
    entries,
    install: urls(true),
    firstUse: urls(false),
    entry: (url: string) => entries.find((e) => e.url === url),
    pack: (id: string) => entries.filter((e) => e.pack === id).map((e) => e.url),
  };
}

describe('offlineInjectManifestOptions', () => {
  it("keeps the app, the default pack, the pool and the train dialogues at install, and other packs and replay's dialogues for first use", async () => {
    const manifest = await fixture();
    expect(manifest.install.sort()).toEqual(
      [
        'assets/index-abc.js',
        'assets/ort-wasm-simd-threaded-y.wasm',
        'assets/ort-wasm-simd-threaded-z.js',
        'dialogues/train/conversations.json',
        'index.html',
        'models/index.json',
        'models/mini-clip/config.json',
        'models/mini-clip/onnx/text_model.onnx',
        'models/detector/SOURCE.md',
        'models/detector/detector.json',
        'models/detector/onnx/model.onnx',
        'pool/embeddings/mini-clip.bin',
        'pool/embeddings/mini-clip.chat.bin',
        'pool/embeddings/mini-clip.contexts.json',
        'pool/embeddings/mini-clip.json',
        'pool/media.json',
        'pool/media/a.webp',
        'pool/text-table.bin',
        'pool/text-table.json',
      ].sort(),
    );
    expect(manifest.firstUse.sort()).toEqual([
      'assets/ort-wasm-simd-threaded.jsep-x.wasm',
      'dialogues/test/conversations.json',
      'models/test-tiny-clip/config.json',
      'models/test-tiny-clip/onnx/text_model.onnx',
      'pool/embeddings/test-tiny-clip.bin',
      // The page reads the text table; texts.json only when the table does not fit.
      'pool/texts.json',
    ]);
    expect(manifest.pack('test-tiny-clip').sort()).toEqual([
      'models/test-tiny-clip/config.json',
      'models/test-tiny-clip/onnx/text_model.onnx',
      'pool/embeddings/test-tiny-clip.bin',
    ]);
    // A pack's pool files are its CLIP embeddings and its conversational encoder's keys and stored contexts.
    expect(manifest.pack('mini-clip').sort()).toEqual([
      'models/mini-clip/config.json',
      'models/mini-clip/onnx/text_model.onnx',
      'pool/embeddings/mini-clip.bin',
      'pool/embeddings/mini-clip.chat.bin',
      'pool/embeddings/mini-clip.contexts.json',
      'pool/embeddings/mini-clip.json',
    ]);
    // onnxruntime's WebGPU-capable build is kept with the pack in use where the worker runs it, not at install.
    expect(manifest.entries.filter((e) => e.runtime).map((e) => [e.url, e.runtime, e.install])).toEqual([
      ['assets/ort-wasm-simd-threaded.jsep-x.wasm', 'webgpu-capable', false],
    ]);
    // The pack files come from models/, not from the build's copy of them.
    expect(manifest.entry('models/mini-clip/config.json')?.bytes).toBe('{"mini":1}'.length);
    expect(manifest.entry('models/mini-clip/onnx/text_model.onnx')?.bytes).toBe('mini weights'.length);
    // Vite's hashed assets need no revision; everything else has one.
    expect(manifest.entry('assets/index-abc.js')?.revision).toBeNull();
    expect(manifest.entries.filter((e) => !e.url.startsWith('assets/') && !e.revision)).toEqual([]);
    // The detector's source model and test photos are never kept (nor served).
    expect(manifest.entries.filter((e) => /source|fixture/.test(e.url))).toEqual([]);
  });

  it('keeps the object detector at install whichever pack is chosen, and lists it in models/index.json', async () => {
    const manifest = await fixture();
    expect(manifest.entry('models/detector/onnx/model.onnx')).toMatchObject({ bytes: 'detector weights'.length, install: true });
    expect(manifest.entries.filter((e) => e.pack !== undefined && e.url.startsWith('models/detector/'))).toEqual([]);
    const withoutDetector = await fixture({}, { detector: false });
    expect(withoutDetector.entries.filter((e) => e.url.startsWith('models/detector/'))).toEqual([]);
    // index.json changes with the detector, so the cached copy of it is replaced too.
    expect(withoutDetector.entry('models/index.json')!.revision).not.toBe(manifest.entry('models/index.json')!.revision);
  });

  it('keeps the CLEVR-Dialog answerers at install, so the view works offline, without their private folders', async () => {
    const manifest = await fixture(
      {},
      { models: { 'clevr/clevr.json': '{}', 'clevr/onnx/lf-q.onnx': 'clevr weights', 'clevr/training/notes.txt': 'private' } },
    );
    expect(manifest.entry('models/clevr/onnx/lf-q.onnx')).toMatchObject({ bytes: 'clevr weights'.length, install: true });
    expect(manifest.entry('models/clevr/clevr.json')).toMatchObject({ install: true });
    expect(manifest.entries.filter((e) => e.url.startsWith('models/clevr/training/'))).toEqual([]);
  });

  it("keeps at install the video models the page runs (Silero VAD, the screening and the default ranker), and serves the ablation's others on demand", async () => {
    const config = JSON.stringify({ words: [], answers: [], models: ['q', 'q-dh', 'q-dh-v', 'q-dh-a', 'q-dh-v-a'], default: 'q-dh-v-a' });
    const ranker = (id: string) => ({ [`avsd/onnx/avsd-${id}.onnx`]: `${id} weights` });
    const manifest = await fixture(
      {},
      {
        models: {
          'avsd/avsd.json': config,
          'avsd/onnx/silero_vad.onnx': 'vad',
          ...ranker('q'),
          ...ranker('q-dh'),
          ...ranker('q-dh-v'),
          ...ranker('q-dh-a'),
          ...ranker('q-dh-v-a'),
          'avsd/speech/oh-wow.wav': 'private',
        },
      },
    );
    const installed = manifest.entries
      .filter((e) => e.url.startsWith('models/avsd/') && e.install)
      .map((e) => e.url)
      .sort();
    expect(installed).toEqual([
      'models/avsd/avsd.json',
      'models/avsd/onnx/avsd-q-dh-v-a.onnx',
      'models/avsd/onnx/avsd-q-dh.onnx',
      'models/avsd/onnx/silero_vad.onnx',
    ]);
    expect(manifest.entry('models/avsd/onnx/avsd-q.onnx')).toMatchObject({ install: false });
    expect(manifest.entries.filter((e) => e.url.startsWith('models/avsd/speech/'))).toEqual([]);
  });

  it('gives a new version when any kept file changes, and the same version otherwise', async () => {
    const first = await fixture();
    expect(offlineVersion((await fixture()).entries)).toBe(offlineVersion(first.entries));
    const changed = await fixture({ 'pool/media/a.webp': 'another photo' });
    expect(offlineVersion(changed.entries)).not.toBe(offlineVersion(first.entries));
    expect(changed.entry('pool/media/a.webp')!.revision).not.toBe(first.entry('pool/media/a.webp')!.revision);
    expect(changed.entry('index.html')!.revision).toBe(first.entry('index.html')!.revision);
  });
});
