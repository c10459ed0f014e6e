// @ts-check
/**
 * `npm run lint` (a stage of `npm test`): the import rules of docs/architecture.md, which
 * src/node/tools/importRules.test.ts shows failing on deliberate violations, and typescript-eslint's
 * type-checked recommended rules.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Every folder under src/features is a feature; a new one gets the rules without an edit here. */
const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const PAGE = ['./src/app', './src/features', './src/shared', './src/main.tsx'];

/**
 * Zones of import/no-restricted-paths: files under `target` may not import from `from`.
 * @param {{ engineMayImportNode: boolean }} options
 */
function zones({ engineMayImportNode }) {
  return [
    {
      target: './src/engine',
      from: [...PAGE, './src/persistence', './src/protocol', './src/worker', './src/sw', ...(engineMayImportNode ? [] : ['./src/node'])],
      message: 'The engine is plain TypeScript shared by the worker, Node and the tests: it imports nothing of the app.',
    },
    {
      target: './src/persistence',
      from: [...PAGE, './src/protocol', './src/worker', './src/sw', './src/node'],
      message:
        "Persistence stores the page's messages as the chat gives them and reads only what it declares of them (storedMessages.ts): it imports nothing of the page or the worker.",
    },
    {
      target: './src/shared',
      from: ['./src/app', './src/features'],
      message: 'src/shared is below the features: move what it needs into src/shared, or let src/app compose it.',
    },
    {
      target: './src/features',
      from: './src/app',
      message: 'Features do not import src/app, which assembles them: take what is needed as a prop or a host passed in by src/app.',
    },
    ...features.map((feature) => ({
      target: `./src/features/${feature}`,
      from: './src/features',
      except: [`./${feature}`],
      message: 'A feature does not import another feature: move what both need into src/shared, or let src/app compose them.',
    })),
    {
      target: './src/protocol',
      from: [...PAGE, './src/persistence', './src/worker', './src/sw', './src/node'],
      message: "src/protocol is the page's and the worker's common ground (the messages, the page's client, the heartbeat): it imports neither of them.",
    },
    {
      target: ['./src/worker', './src/sw', './src/node'],
      from: PAGE,
      message: 'The worker, the service worker and the Node tools do not import the page.',
    },
    {
      target: [...PAGE, './src/persistence'],
      from: './src/node',
      message: 'The page does not import the Node tools.',
    },
    {
      target: ['./src', './*.ts'],
      from: './e2e',
      message: 'Nothing imports e2e/: move what is shared into src/.',
    },
  ];
}

/** @param {{ engineMayImportNode: boolean }} options */
const restrictedPaths = (options) => ['error', { basePath: root, zones: zones(options) }];

const TS_FILES = ['src/**/*.{ts,tsx}', 'e2e/**/*.ts', '*.ts'];

export default [
  { ignores: ['dist/**', 'models/**', 'public/**', 'test-results/**', 'test-reports/**', '.tsbuild/**'] },
  // typescript-eslint's type-checked recommended rules, with the types of each file's tsconfig project.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TS_FILES })),
  {
    files: TS_FILES,
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: root } },
    // The rules hold everywhere: a comment cannot switch them off for one import.
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    plugins: { import: importPlugin },
    settings: { 'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } } },
    rules: {
      'import/no-restricted-paths': restrictedPaths({ engineMayImportNode: false }),
      // A relative import that does not resolve would slip past the zones, so it is an error too.
      'import/no-unresolved': ['error', { ignore: ['^[^.]'] }],
      // The exceptions to recommendedTypeChecked, each with its reason.
      // An async function without await still turns a throw into a rejection, as the async interfaces it implements promise (Workbox plugins, rankers, test fakes).
      '@typescript-eslint/require-await': 'off',
      // `const { left: _, ...kept } = value` is how a copy leaves a key out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.test.ts', 'src/engine/__tests__/**/*.ts'],
    // Vitest types its asymmetric matchers (expect.stringContaining, expect.any) as `any`, so placing one in an expected object is not unsafe.
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    files: ['src/engine/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react/*', 'react-dom', 'react-dom/*', 'zustand', 'zustand/*', 'idb-keyval'],
              message: 'The engine runs in the worker, in Node and in tests: no UI or browser-storage libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    // The models run in the worker: a runtime imported by the page would load its WASM on the main thread and freeze the UI.
    files: ['src/app/**/*.{ts,tsx}', 'src/features/**/*.{ts,tsx}', 'src/shared/**/*.{ts,tsx}', 'src/protocol/**/*.{ts,tsx}', 'src/main.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['onnxruntime-web', 'onnxruntime-web/*', 'onnxruntime-common', '@huggingface/transformers', '@huggingface/transformers/*'],
              message: 'The page never imports a model runtime: models run in the worker (src/worker), reached through the typed protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    // Engine tests still read packs and images through src/node (issue 13, "test holes"); the engine itself may not.
    files: ['src/engine/__tests__/**/*.ts', 'src/engine/**/*.test.ts'],
    rules: { 'import/no-restricted-paths': restrictedPaths({ engineMayImportNode: true }) },
  },
];
