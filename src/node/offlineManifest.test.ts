import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listModels } from './modelPacks';
import { buildOfflineManifest } from './offlineManifest';
import { packIndexJson } from './viteModelsPlugin';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A build output and a models folder with the default pack (mini-clip), one more, and the object detector. */
function fixture(overrides: Record<string, string> = {}, options: { detector?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'offline-manifest-'));
  const outDir = join(root, 'dist');
  const modelsDir = join(root, 'models');
  write(outDir, {
    'index.html': '<html></html>',
    'sw.js': 'old service worker',
    'assets/index-abc.js': 'app',
    'assets/index-abc.js.map': 'map',
    'assets/ort-wasm-simd-threaded.jsep-x.wasm': 'wasm',
    'pool/media.json': '[]',
    'pool/media/a.webp': 'webp',
    'pool/embeddings/mini-clip.json': '{}',
    'pool/embeddings/mini-clip.bin': 'rows',
    'pool/embeddings/test-tiny-clip.bin': 'tiny rows',
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
  });
  const models = listModels(modelsDir);
  return buildOfflineManifest({ outDir, modelsDir, ...models, packIndexJson: packIndexJson(models) });
}

describe('buildOfflineManifest', () => {
  it('keeps the app, the default pack, the pool and the dialogues at install, and other packs for first use', () => {
    const manifest = fixture();
    expect(manifest.defaultPack).toBe('mini-clip');
    expect(manifest.precache.map((f) => f.url).sort()).toEqual(
      [
        'assets/index-abc.js',
        'assets/ort-wasm-simd-threaded.jsep-x.wasm',
        'dialogues/test/conversations.json',
        'index.html',
        'models/index.json',
        'models/mini-clip/config.json',
        'models/mini-clip/onnx/text_model.onnx',
        'models/detector/SOURCE.md',
        'models/detector/detector.json',
        'models/detector/onnx/model.onnx',
        'pool/embeddings/mini-clip.bin',
        'pool/embeddings/mini-clip.json',
        'pool/media.json',
        'pool/media/a.webp',
      ].sort(),
    );
    expect(manifest.optional.map((f) => f.url).sort()).toEqual(['models/test-tiny-clip/config.json', 'models/test-tiny-clip/onnx/text_model.onnx', 'pool/embeddings/test-tiny-clip.bin']);
    expect(manifest.packs['test-tiny-clip']).toEqual(['models/test-tiny-clip/config.json', 'models/test-tiny-clip/onnx/text_model.onnx', 'pool/embeddings/test-tiny-clip.bin']);
    expect(manifest.precache.find((f) => f.url === 'models/mini-clip/onnx/text_model.onnx')?.bytes).toBe('mini weights'.length);
    // The detector's source model and test photos are never kept (nor served).
    expect([...manifest.precache, ...manifest.optional].filter((f) => /source|fixture/.test(f.url))).toEqual([]);
  });

  it('keeps the object detector at install whichever pack is chosen, and lists it in models/index.json', () => {
    const manifest = fixture();
    expect(manifest.precache.find((f) => f.url === 'models/detector/onnx/model.onnx')?.bytes).toBe('detector weights'.length);
    expect(Object.values(manifest.packs).flat().filter((url) => url.startsWith('models/detector/'))).toEqual([]);
    const withoutDetector = fixture({}, { detector: false });
    expect(withoutDetector.precache.filter((f) => f.url.startsWith('models/detector/'))).toEqual([]);
    // index.json changes with the detector, so the cached copy of it is replaced too.
    expect(withoutDetector.precache.find((f) => f.url === 'models/index.json')!.revision).not.toBe(manifest.precache.find((f) => f.url === 'models/index.json')!.revision);
  });

  it('gives a new version when any kept file changes, and the same version otherwise', () => {
    const first = fixture();
    expect(fixture().version).toBe(first.version);
    const changed = fixture({ 'pool/media/a.webp': 'another photo' });
    expect(changed.version).not.toBe(first.version);
    expect(changed.precache.find((f) => f.url === 'pool/media/a.webp')!.revision).not.toBe(first.precache.find((f) => f.url === 'pool/media/a.webp')!.revision);
    expect(changed.precache.find((f) => f.url === 'index.html')!.revision).toBe(first.precache.find((f) => f.url === 'index.html')!.revision);
  });
});
