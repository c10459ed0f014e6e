import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { nowMs } from '../engine/clock';
import { TextPoolIndex, nearestTextReply } from '../engine/reply/nearestReply';
import { retrieval } from './benchRetrieval';
import { importBench } from './benchImport';
import { dialogBench } from './benchDialog';
import { perfBench } from './benchPerf';
import { selectBench } from './benchSelect';
import { loadPoolCatalogue, loadWasmPack } from './poolFiles';

/**
 * Benchmarks that print figures. Usage:
 *   npm run bench -- foundation [--pack test-tiny-clip] [--turns 200]
 *   npm run bench -- browser [--pack ID] [--webgpu] [--turns 30]   (Chromium against the production build)
 *   npm run bench -- retrieval --pack ID --images DIR --captions FILE [--json out.json]
 *   npm run bench -- import [--images 10000] [--pack mini-clip]   (load a generated folder in Chromium)
 *   npm run bench -- select --format polyai|dailydialog|visdial|avsd --data FILE [--methods a,b] [--json out.json]   (response selection on real dialogues)
 */
const args = process.argv.slice(2);
const command = args[0];
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(label: string, ms: number[]): string {
  return `${label.padEnd(34)} median ${percentile(ms, 50).toFixed(2).padStart(8)} ms   p95 ${percentile(ms, 95).toFixed(2).padStart(8)} ms   (n=${ms.length})`;
}

async function foundation(): Promise<void> {
  const packId = option('pack', 'test-tiny-clip');
  const turns = Number(option('turns', '200'));
  const t0 = nowMs();
  const { encoder } = await loadWasmPack(packId);
  const loadMs = nowMs() - t0;
  const texts = loadPoolCatalogue('public/pool').texts.map((t) => t.text);
  const t1 = nowMs();
  const pool = await TextPoolIndex.build(encoder, texts);
  const poolMs = nowMs() - t1;
  console.log(`pack ${packId} · backend ${encoder.backend.provider} (${encoder.backend.dtypes.text_model}/${encoder.backend.dtypes.vision_model}, 1 thread) · Node ${process.version}`);
  console.log(`load (configs, tokenizer, 2 sessions)   ${loadMs.toFixed(1)} ms`);
  console.log(`pool embeddings (${pool.size} texts)          ${poolMs.toFixed(1)} ms`);

  const textTurns: number[] = [];
  for (let i = 0; i < turns; i++) {
    const start = nowMs();
    await nearestTextReply(encoder, pool, { texts: [texts[i % texts.length]!], images: [] });
    textTurns.push(nowMs() - start);
  }
  const png = PNG.sync.read(readFileSync(join('models', 'test-tiny-clip', 'fixture', 'landscape.png')));
  const image = { width: png.width, height: png.height, data: new Uint8Array(png.data) };
  const imageTurns: number[] = [];
  for (let i = 0; i < Math.max(10, turns / 10); i++) {
    const start = nowMs();
    await nearestTextReply(encoder, pool, { texts: ['look at this'], images: [image] });
    imageTurns.push(nowMs() - start);
  }
  console.log(summary('reply to a text turn', textTurns));
  console.log(summary('reply to text + a 320x240 photo', imageTurns));
  await encoder.release();
}

async function browser(): Promise<void> {
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } = await import('../../e2e/chromium');
  const webgpu = args.includes('--webgpu');
  const turns = Number(option('turns', '30'));
  const server = await preview({ preview: { port: 4174, strictPort: true } });
  const browserInstance = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...(webgpu ? WEBGPU_ARGS : [])] });
  try {
    const page = await browserInstance.newPage();
    await page.goto(`http://localhost:4174/?pack=${option('pack', 'test-tiny-clip')}`);
    const phase = page.getByTestId('model-phase');
    await phase.filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
    console.log(`Chromium ${browserInstance.version()} · backend ${await page.getByTestId('backend').innerText()} · ${await page.getByTestId('pack-name').innerText()}`);
    console.log(`page load to ready (as shown): ${await phase.innerText()}`);
    const replyMs: number[] = [];
    const roundTrip: number[] = [];
    const box = page.getByRole('textbox', { name: 'Message' });
    for (let i = 0; i < turns; i++) {
      const start = Date.now();
      await box.fill(`turn ${i}: what a lovely day for a walk by the sea`);
      await box.press('Enter');
      const meta = page.getByTestId('reply-meta').nth(i);
      await meta.waitFor({ timeout: 60_000 });
      roundTrip.push(Date.now() - start);
      replyMs.push(Number(/· (\d+) ms on/.exec(await meta.innerText())?.[1]));
    }
    console.log(summary('reply in the worker (as shown)', replyMs));
    console.log(summary('Enter to reply on screen', roundTrip));
  } finally {
    await browserInstance.close();
    await server.close();
  }
}

if (command === 'foundation') await foundation();
else if (command === 'browser') await browser();
else if (command === 'retrieval') await retrieval(args.slice(1));
else if (command === 'import') await importBench(args.slice(1));
else if (command === 'dialog') await dialogBench(args.slice(1));
else if (command === 'perf') await perfBench(args.slice(1));
else if (command === 'select') {
  await selectBench(args.slice(1)).catch((error: unknown) => {
    console.error(`bench select failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
else {
  console.error('Usage: npm run bench -- foundation [--pack ID] [--turns N] | browser [--webgpu] [--turns N] | retrieval --pack ID --images DIR --captions FILE [--json OUT] | import [--images N] [--pack ID] | dialog --pack ID --data DIR [--split test] [--methods a,b] [--negatives 99|999] [--pool DIR] [--json OUT] | perf [--pack ID] [--turns N] [--candidates N] | select --format polyai|dailydialog|visdial|avsd --data FILE [--train FILE] [--map-train FILE] [--methods a,b] [--pack ID] [--limit N] [--json OUT]');
  process.exit(2);
}
