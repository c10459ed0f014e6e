import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

// `npm ci` installs exactly the lockfile. onnxruntime-node (a dependency of @huggingface/transformers) has an
// install step that downloads native binaries (hundreds of MB): package.json's `overrides` replaces it with
// onnxruntime-web, which has a Node build and no install step.
describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { name?: string; hasInstallScript?: boolean; optionalDependencies?: Record<string, string> }>;
  };
  it('holds no real onnxruntime-node, at any depth: only the alias to onnxruntime-web', () => {
    const paths = Object.keys(lock.packages).filter((path) => /(^|\/)onnxruntime-node$/.test(path));
    expect(paths.map((path) => lock.packages[path]!.name)).toEqual(paths.map(() => 'onnxruntime-web'));
  });

  // One runtime, so the worker's models and the Node tools run the same build (vad-web, whose Silero file
  // models/avsd copies, brought a second one).
  it('holds one onnxruntime-web, the one package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const copies = Object.entries(lock.packages).filter(
      ([path, entry]) => /(^|\/)onnxruntime-(web|node)$/.test(path) && (entry as { version?: string }).version !== undefined,
    );
    expect(new Set(copies.map(([, entry]) => (entry as { version?: string }).version))).toEqual(new Set([pkg.dependencies['onnxruntime-web']]));
    expect(copies.map(([path]) => path).filter((path) => path.endsWith('onnxruntime-web'))).toEqual(['node_modules/onnxruntime-web']);
  });

  // esbuild's step only checks its platform package (locked beside it); protobufjs's and core-js's (pulled
  // in by @tensorflow/tfjs, the photo check's parity reference) print a notice.
  it('holds no package with an install step besides those known to download nothing', () => {
    const withSteps = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path);
    expect(withSteps).toEqual(['node_modules/core-js', 'node_modules/esbuild', 'node_modules/protobufjs']);
  });

  // npm drops from the lock any platform build its registry lacks; `npm ci` then refuses the lock on a
  // fresh machine ("Missing: @rollup/rollup-darwin-x64@ from lock file"). Node resolution: the entry sits
  // beside the package or in any node_modules above it.
  it('holds every optional dependency of every locked package, so `npm ci` accepts it', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        const candidates: string[] = [];
        let base = path;
        for (;;) {
          candidates.push(base ? `${base}/node_modules/${name}` : `node_modules/${name}`);
          const cut = base.lastIndexOf('node_modules/');
          if (cut < 0) break;
          base = base.slice(0, Math.max(0, cut - 1));
        }
        if (!candidates.some((candidate) => candidate in lock.packages)) missing.push(`${path || '(root)'} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('.npmrc', () => {
  it('sets only options npm knows, so no npm command warns "Unknown project config"', () => {
    const keys = readFileSync(join(root, '.npmrc'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && !line.startsWith(';'))
      .map((line) => line.split('=')[0]!.trim());
    expect(keys.filter((key) => !['fund', 'audit'].includes(key))).toEqual([]);
  });
});
