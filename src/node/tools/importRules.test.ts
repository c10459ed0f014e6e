import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules (eslint.config.js, docs/architecture.md) on deliberate violations: files that
 * exist only in memory, linted as if they lay at the given path, so the repository is never touched.
 */
const root = join(import.meta.dirname, '..', '..', '..');
let eslint: ESLint;

beforeAll(() => {
  // The type-checked rules need files that a tsconfig project holds on disk; these exist only in memory.
  eslint = new ESLint({ cwd: root, overrideConfig: { files: ['**/*.{ts,tsx}'], ...tseslint.configs.disableTypeChecked } });
});

/** The rule ids and messages ESLint reports for `code` placed at `path` (relative to the repository). */
async function problems(path: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? []).map((m) => ({ rule: m.ruleId, message: m.message }));
}

describe('import rules', () => {
  it('refuse a feature that imports app/', async () => {
    expect(await problems('src/features/chat/Violation.ts', "import { engine } from '../../app/workerHost';\nexport const x = engine;\n")).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('Features do not import src/app') },
    ]);
  });

  it('refuse a feature that imports another feature, and let it import its own files and shared/', async () => {
    expect(await problems('src/features/replay/Violation.tsx', "import { MessageList } from '../chat/MessageList';\nexport const x = MessageList;\n")).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('A feature does not import another feature') },
    ]);
    expect(
      await problems(
        'src/features/replay/Allowed.tsx',
        "import { useReplayStore } from './replayStore';\nimport { PoolImage } from '../../shared/ui/PoolImage';\nexport const x = [useReplayStore, PoolImage];\n",
      ),
    ).toEqual([]);
  });

  it('refuse shared/ importing a feature', async () => {
    expect(await problems('src/shared/Violation.ts', "import { useChatStore } from '../features/chat/chatStore';\nexport const x = useChatStore;\n")).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('src/shared is below the features') },
    ]);
  });

  it('refuse the engine importing the app or a UI library', async () => {
    const found = await problems(
      'src/engine/Violation.ts',
      "import { useChatStore } from '../features/chat/chatStore';\nimport { create } from 'zustand';\nexport const x = [useChatStore, create];\n",
    );
    expect(found.map((p) => p.rule)).toEqual(['import/no-restricted-paths', 'no-restricted-imports']);
  });

  it('refuse the page importing a model runtime, which belongs in the worker', async () => {
    const found = await problems(
      'src/features/chat/Violation.ts',
      "import * as ort from 'onnxruntime-web';\nimport { pipeline } from '@huggingface/transformers';\nexport const x = [ort, pipeline];\n",
    );
    expect(found).toEqual([
      { rule: 'no-restricted-imports', message: expect.stringContaining('The page never imports a model runtime') },
      { rule: 'no-restricted-imports', message: expect.stringContaining('The page never imports a model runtime') },
    ]);
    expect(await problems('src/worker/Allowed.ts', "import * as ort from 'onnxruntime-web';\nexport const x = ort;\n")).toEqual([]);
  });

  it('refuse persistence taking a type from a feature, the worker protocol or shared/ (it declares what it reads of a message)', async () => {
    const found = await problems(
      'src/persistence/Violation.ts',
      "import type { DraftImage } from '../features/chat/chatStore';\nimport type { PhotoDetections } from '../protocol/protocol';\nimport type { ChatMessage } from '../shared/conversation';\nexport type X = [DraftImage, PhotoDetections, ChatMessage];\n",
    );
    expect(found).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('Persistence stores the page') },
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('Persistence stores the page') },
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('Persistence stores the page') },
    ]);
  });

  it('refuse the protocol importing either end, and let both ends import it', async () => {
    const found = await problems(
      'src/protocol/Violation.ts',
      "import { WorkerModels } from '../worker/workerModels';\nimport { useModelStore } from '../shared/stores/modelStore';\nexport const x = [WorkerModels, useModelStore];\n",
    );
    expect(found).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining("src/protocol is the page's and the worker's common ground") },
      { rule: 'import/no-restricted-paths', message: expect.stringContaining("src/protocol is the page's and the worker's common ground") },
    ]);
    expect(await problems('src/protocol/Violation.ts', "import * as ort from 'onnxruntime-web';\nexport const x = ort;\n")).toEqual([
      { rule: 'no-restricted-imports', message: expect.stringContaining('The page never imports a model runtime') },
    ]);
    expect(await problems('src/worker/Allowed.ts', "import { WORKER_METHODS } from '../protocol/protocol';\nexport const x = WORKER_METHODS;\n")).toEqual([]);
    expect(
      await problems('src/features/chat/Allowed.ts', "import { isCancelledCall } from '../../protocol/client';\nexport const x = isCancelledCall;\n"),
    ).toEqual([]);
  });

  it('refuse anything in src/ importing e2e/', async () => {
    expect(await problems('src/node/Violation.ts', "import { openReady } from '../../e2e/helpers';\nexport const x = openReady;\n")).toEqual([
      { rule: 'import/no-restricted-paths', message: expect.stringContaining('Nothing imports e2e/') },
    ]);
  });

  it('refuse a relative import that does not resolve, which the zones could not check', async () => {
    expect(await problems('src/features/chat/Violation.ts', "import { x } from '../../app/noSuchFile';\nexport const y = x;\n")).toEqual([
      { rule: 'import/no-unresolved', message: expect.stringContaining('Unable to resolve path') },
    ]);
  });

  it('cannot be switched off by a comment', async () => {
    const found = await problems(
      'src/features/chat/Violation.ts',
      "// eslint-disable-next-line import/no-restricted-paths\nimport { engine } from '../../app/workerHost';\nexport const x = engine;\n",
    );
    expect(found.map((p) => p.rule)).toContain('import/no-restricted-paths');
  });
});
