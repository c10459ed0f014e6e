import { integerOption, parseCommandLine } from '../tools/cliArgs';
import type { GpuRankConfig, GpuRankResult } from './browserBench/gpuRankPage';
import { startBenchServer } from './browserBench/server';

export const GPU_RANK_USAGE = 'npm run bench -- gpu-rank [--rows 1000000] [--queries 20] [--adapter swiftshader|default]';

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;

/** Runs browserBench/gpuRankPage.ts in Chromium; `page` is the caller's when given (the e2e test). */
export async function runGpuRankPage(page: import('@playwright/test').Page, baseUrl: string, config: GpuRankConfig): Promise<GpuRankResult> {
  await page.goto(`${baseUrl}/src/node/bench/browserBench/gpu-rank.html`);
  await page.waitForFunction(() => 'runGpuRank' in globalThis, undefined, { timeout: 120_000 });
  return page.evaluate((c) => (globalThis as unknown as { runGpuRank: (c: GpuRankConfig) => Promise<GpuRankResult> }).runGpuRank(c), config);
}

/**
 * npm run bench -- gpu-rank: an int8 matrix ranked on WebGPU and by the WASM SIMD kernel in one
 * Chromium page; prints the times and whether the top-10s agree. --adapter swiftshader (the default
 * here, a CPU) checks correctness; on a machine with a GPU, --adapter default times the GPU.
 */
export async function gpuRankBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    { rows: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '20' }, adapter: { type: 'string', default: 'swiftshader' } },
    GPU_RANK_USAGE,
  );
  const rows = integerOption(values.rows, 'rows', GPU_RANK_USAGE);
  const queries = integerOption(values.queries, 'queries', GPU_RANK_USAGE);
  if (values.adapter !== 'swiftshader' && values.adapter !== 'default')
    throw new Error(`--adapter is swiftshader or default, not "${values.adapter}". ${GPU_RANK_USAGE}`);
  const { chromium } = await import('@playwright/test');
  const { BASE_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } = await import('../tools/chromium');
  const port = Number(process.env['BENCH_PORT'] ?? 4177);
  const server = await startBenchServer(port);
  const args = values.adapter === 'swiftshader' ? [...BASE_ARGS, ...WEBGPU_ARGS] : [...BASE_ARGS, '--enable-unsafe-webgpu'];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
  try {
    const page = await browser.newPage();
    const result = await runGpuRankPage(page, `http://localhost:${port}`, { rows, dim: 256, queries, seed: 5 });
    console.log(`int8 ranking of ${rows.toLocaleString('en-US')} x 256, top-10, ${queries} queries; adapter: ${result.adapter || values.adapter}`);
    console.log(`  WASM SIMD (Int8Matrix.topK)          median ${median(result.wasmMs).toFixed(1).padStart(8)} ms`);
    console.log(
      `  WebGPU (GpuInt8Scorer.topK, incl. read-back and the CPU top-k)   median ${median(result.gpuMs).toFixed(1).padStart(8)} ms   (upload ${result.uploadMs.toFixed(0)} ms once)`,
    );
    console.log(
      `  same top-10 for ${result.sameTop10.filter(Boolean).length} of ${queries} queries; ${(100 * result.sameScores).toFixed(2)}% of the scores bit-identical`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
}
