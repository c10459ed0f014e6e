import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession } from '@playwright/test';
import { integerOption, parseCommandLine } from '../tools/cliArgs';

export const SOAK_USAGE =
  'npm run bench -- soak [--pack test-tiny-clip] [--exchanges 100] [--presenter]   (N typed exchanges in Chromium against the production build: heap, DOM nodes and event listeners at start, middle and end)';

/** What Chromium counts for the page, after a garbage collection so that only what is still held is counted. */
interface PageWeight {
  exchanges: number;
  heapBytes: number;
  nodes: number;
  listeners: number;
  /** Listeners before the collection: those of detached nodes not yet collected count here too. */
  listenersBeforeGc: number;
}

async function metric(cdp: CDPSession, name: string): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === name)?.value ?? Number.NaN;
}

async function measurePageWeight(cdp: CDPSession, exchanges: number): Promise<PageWeight> {
  const listenersBeforeGc = await metric(cdp, 'JSEventListeners');
  await cdp.send('HeapProfiler.collectGarbage');
  return {
    exchanges,
    heapBytes: await metric(cdp, 'JSHeapUsedSize'),
    nodes: await metric(cdp, 'Nodes'),
    listeners: await metric(cdp, 'JSEventListeners'),
    listenersBeforeGc,
  };
}

function weightLine(label: string, w: PageWeight): string {
  return `${label.padEnd(7)} after ${String(w.exchanges).padStart(4)} exchanges: heap ${(w.heapBytes / 1024 / 1024).toFixed(1).padStart(6)} MB · DOM nodes ${String(w.nodes).padStart(6)} · event listeners ${String(w.listeners).padStart(5)} (${w.listenersBeforeGc} before a garbage collection)`;
}

/**
 * npm run bench -- soak: a long conversation in one page (the visitor view unless --presenter), typed
 * turns one after another, each waited for. Prints what the page holds at the start, the middle and
 * the end, and the growth per exchange in each half, so a leak shows as growth that does not level off.
 */
export async function soakBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    { pack: { type: 'string', default: 'test-tiny-clip' }, exchanges: { type: 'string', default: '100' }, presenter: { type: 'boolean', default: false } },
    SOAK_USAGE,
  );
  const exchanges = integerOption(values.exchanges, 'exchanges', SOAK_USAGE, 2);
  if (!existsSync(join('dist', 'index.html'))) throw new Error('There is no production build in dist/. Run npm run build first.');
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../tools/chromium');
  // BENCH_PORT lets two checkouts measure side by side.
  const port = Number(process.env['BENCH_PORT'] ?? 4174);
  const server = await preview({ preview: { port, strictPort: true } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://localhost:${port}/?pack=${values.pack}${values.presenter ? '&view=presenter' : ''}`);
    await page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    console.log(`Chromium ${browser.version()} · ${values.pack} · ${values.presenter ? 'presenter' : 'visitor'} view · ${exchanges} exchanges`);
    const box = page.getByRole('textbox', { name: 'Message' });
    const said = page.getByRole('listitem', { name: 'You said' });
    const thinking = page.getByText('Thinking…');
    const middle = Math.floor(exchanges / 2);
    const weights: PageWeight[] = [await measurePageWeight(cdp, 0)];
    console.log(weightLine('start', weights[0]!));
    for (let i = 0; i < exchanges; i++) {
      const text = `turn ${i}: what a lovely day for a walk by the sea`;
      await box.fill(text);
      await box.press('Enter');
      // By the last turn shown, not by counting replies: the page may show only the latest messages.
      await said.last().filter({ hasText: text }).waitFor({ timeout: 60_000 });
      await thinking.waitFor({ state: 'detached', timeout: 60_000 });
      if (i + 1 === middle || i + 1 === exchanges) {
        const w = await measurePageWeight(cdp, i + 1);
        weights.push(w);
        console.log(weightLine(i + 1 === exchanges ? 'end' : 'middle', w));
      }
    }
    const [start, mid, end] = weights as [PageWeight, PageWeight, PageWeight];
    const perExchange = (a: PageWeight, b: PageWeight, key: 'nodes' | 'listeners') => ((b[key] - a[key]) / (b.exchanges - a.exchanges)).toFixed(2);
    console.log(
      `growth per exchange, first half / second half: DOM nodes ${perExchange(start, mid, 'nodes')} / ${perExchange(mid, end, 'nodes')} · event listeners ${perExchange(start, mid, 'listeners')} / ${perExchange(mid, end, 'listeners')}`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
}
