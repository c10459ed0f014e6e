import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchServer } from './browserBench/server';
import { integerOption, parseCommandLine } from '../tools/cliArgs';
import type { VsTransformersConfig, VsTransformersResult } from './browserBench/vsTransformersPage';
import { listModels } from '../tools/modelPacks';

export const VS_TRANSFORMERS_USAGE = 'npm run bench -- vs-transformers [--pack mini-clip] [--runs 30] [--threads 1,2]';

/**
 * npm run bench -- vs-transformers: the engine and @huggingface/transformers on the same pack, the
 * same backend (WASM) and the same threads, alternating in one Chromium page
 * (browserBench/vsTransformersPage.ts, served by a Vite dev server that sends COOP/COEP, so more than
 * one thread can be asked for). Prints medians, ratios and the embeddings' agreement.
 */
const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;

export async function vsTransformersBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    { pack: { type: 'string', default: 'mini-clip' }, runs: { type: 'string', default: '30' }, threads: { type: 'string', default: '1' } },
    VS_TRANSFORMERS_USAGE,
  );
  const runs = integerOption(values.runs, 'runs', VS_TRANSFORMERS_USAGE);
  const threadCounts = values.threads.split(',').map((t) => integerOption(t.trim(), 'threads', VS_TRANSFORMERS_USAGE));
  const pack = listModels('models').packs.find((p) => p.id === values.pack);
  if (!pack) throw new Error(`There is no pack "${values.pack}" in models/. ${VS_TRANSFORMERS_USAGE}`);
  const texts = (JSON.parse(readFileSync(join('public', 'pool', 'texts.json'), 'utf8')) as { texts: { text: string }[] }).texts.slice(0, 40).map((t) => t.text);
  const imageUrls = ['/e2e/assets/meadow.jpg', '/e2e/assets/coffee.jpg', '/e2e/assets/sky.png'];

  const { chromium } = await import('@playwright/test');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../tools/chromium');
  const port = Number(process.env['BENCH_PORT'] ?? 4175);
  const server = await startBenchServer(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  try {
    console.log(
      `engine against transformers.js 4.3.1, pack ${pack.id}, WASM fp32, one Chromium page, ${runs} alternating runs per workload (Chromium ${browser.version()})`,
    );
    for (const threads of threadCounts) {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('response', (r) => {
        if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`);
      });
      const ortFiles = new Set<string>();
      page.on('request', (r) => {
        const name = /ort-wasm[^/?]*\.(wasm|mjs)/.exec(r.url())?.[0];
        if (name) ortFiles.add(name);
      });
      page.on('console', (m) => {
        if (m.type() === 'warning' || m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`http://localhost:${port}/src/node/bench/browserBench/vs-transformers.html`);
      await page.waitForFunction(() => 'runVsTransformers' in globalThis, undefined, { timeout: 120_000 });
      const config: VsTransformersConfig = { packId: pack.id, files: pack.files.map((f) => f.path), threads, runs, texts, imageUrls };
      let result: VsTransformersResult;
      try {
        result = await page.evaluate(
          (c) => (globalThis as unknown as { runVsTransformers: (c: VsTransformersConfig) => Promise<VsTransformersResult> }).runVsTransformers(c),
          config,
        );
      } catch (error) {
        throw new Error(`The bench page failed: ${String(error)} (page: ${errors.join('; ') || 'nothing logged'})`);
      }
      await page.close();
      console.log(`\n${threads} thread${threads > 1 ? 's' : ''} (crossOriginIsolated: ${result.crossOriginIsolated})`);
      console.log(
        `  ${'workload'.padEnd(22)} ${'engine ms'.padStart(10)} ${'transformers.js ms'.padStart(19)} ${'speed-up'.padStart(9)}  target 1.5x   cosine (min)`,
      );
      for (const [label, timed] of [
        ['texts, batch 1', result.textsBatch1],
        ['texts, batch 32', result.textsBatch32],
        ['images (decode incl.)', result.images],
      ] as const) {
        const e = median(timed.engine),
          l = median(timed.transformers);
        console.log(
          `  ${label.padEnd(22)} ${e.toFixed(2).padStart(10)} ${l.toFixed(2).padStart(19)} ${`${(l / e).toFixed(2)}x`.padStart(9)}  ${l / e >= 1.5 ? 'met    ' : 'NOT met'}      ${timed.cosine.toFixed(6)}`,
        );
      }
      console.log(
        `  first text after load: engine ${result.firstTextMs.engine.toFixed(1)} ms, transformers.js ${result.firstTextMs.transformers.toFixed(1)} ms (target for the engine: under 50 ms, ${result.firstTextMs.engine < 50 ? 'met' : 'NOT met'})`,
      );
      console.log(`  onnxruntime files the page fetched: ${[...ortFiles].sort().join(', ') || 'none (inlined in the bundle)'}`);
      console.log(`  load: engine ${result.loadMs.engine.toFixed(0)} ms, transformers.js ${result.loadMs.transformers.toFixed(0)} ms`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
