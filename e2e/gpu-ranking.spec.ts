import { chromium, expect, test } from '@playwright/test';
import { startBenchServer } from '../src/node/bench/browserBench/server';
import { runGpuRankPage } from '../src/node/bench/benchGpuRank';
import { BASE_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } from '../src/node/tools/chromium';

// Issue 16, "Scale": the WebGPU path of the int8 ranking agrees with the WASM SIMD kernel, on SwiftShader.
test("int8 ranking on WebGPU (SwiftShader) gives the WASM kernel's scores bit for bit and the same top-10", async () => {
  const port = Number(process.env['E2E_PORT'] ?? 4173) + 7;
  const server = await startBenchServer(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...WEBGPU_ARGS] });
  try {
    const result = await runGpuRankPage(await browser.newPage(), `http://localhost:${port}`, { rows: 20_000, dim: 256, queries: 5, seed: 11 });
    expect(result.adapter).toContain('swiftshader');
    expect(result.sameScores).toBe(1);
    expect(result.sameTop10).toEqual([true, true, true, true, true]);
  } finally {
    await browser.close();
    await server.close();
  }
});
