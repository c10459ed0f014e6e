import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { percentile } from '../../engine/stats';
import { integerOption, parseCommandLine, parseSubcommand, runCommand } from '../tools/cliArgs';
import { CAPTION_USAGE, captionBench } from './benchCaption';
import { CAPTION_THRESHOLDS_USAGE, captionThresholdsBench } from './benchCaptionThresholds';
import { DETECTOR_ENSEMBLE_USAGE, detectorEnsembleBench } from './benchDetectorEnsemble';
import { RETRIEVAL_USAGE, retrieval } from './benchRetrieval';
import { IMPORT_USAGE, importBench } from './benchImport';
import { avsdVideoBench } from './benchAvsdVideo';
import { videoScenesBench } from './benchVideoScenes';
import { CLEVR_STATS_USAGE, CLEVR_USAGE, clevrBench, clevrStatsBench } from './benchClevr';
import { DIALOG_USAGE, dialogBench } from './benchDialog';
import { LOCAL_HEADS_USAGE, localHeadsBench } from './benchLocalHeads';
import { PERF_USAGE, perfBench } from './benchPerf';
import { POOL_RATE_USAGE, poolRateBench } from './benchPoolRate';
import { SELECT_USAGE, selectBench } from './benchSelect';
import { POOL_SELECT_USAGE, poolSelectBench } from './benchPoolSelect';
import { REPLIES_USAGE, repliesBench } from './benchReplies';
import { VS_TRANSFORMERS_USAGE, vsTransformersBench } from './benchVsTransformers';
import { GPU_RANK_USAGE, gpuRankBench } from './benchGpuRank';
import { VISITOR_USAGE, visitorBench } from './benchVisitor';
import { SCREEN_USAGE, screenBench } from './benchScreen';
import { PHOTO_CHECK_USAGE, photoCheckBench } from './benchPhotoCheck';
import { SOAK_USAGE, soakBench } from './benchSoak';

/**
 * Benchmarks that print figures. Usage:
 *   npm run bench -- browser [--pack ID] [--webgpu] [--turns 10] [--runs 5] [--busy] [--offline-timeout 600]   (Chromium against the production build: typed turns, then visits on fresh contexts: cold Ready, the worker's heap, "Offline ready", reload to Ready, a sample prompt, two photos and a 10 s video at once, a photo sent 2 s after it was chosen, then after another reload a photo chosen 2 s after the picker opened at Ready; --busy runs sha256sum /dev/zero beside it)
 *   npm run bench -- retrieval --pack ID --images DIR --captions FILE [--json out.json] [--dtype fp32|q8] [--detector-dtype fp32|q8]   (per part: all, train2017, val2017; a variant compares int8 with float)
 *   npm run bench -- caption --pack ID --images DIR --captions FILE [--captioners grounded,retrieval] [--pool DIR] [--json out.json] [--dtype fp32|q8] [--detector-dtype fp32|q8]
 *   npm run bench -- caption-thresholds --pack ID --images DIR --captions FILE [--json out.json]   (hedge bar and zero-shot vote, swept on our own held-out photos)
 *   npm run bench -- detector-ensemble --pack ID --images DIR --captions FILE [--nanodet DIR] [--json out.json]   (NanoDet beside the CenterNet, issue 27; our own photos only)
 *   npm run bench -- import [--images 10000] [--pack mini-clip]   (load a generated folder in Chromium)
 *   npm run bench -- dialog --pack ID --data DIR [--split test] [--methods a,b] [--negatives 99|999] [--pool DIR] [--json out.json]
 *   npm run bench -- local-heads [--pack mini-clip] [--json out.json]   (clip-map and intent head trained as the worker does, with valid figures)
 *   npm run bench -- perf [--pack mini-clip] [--turns 200] [--photo-turns 40] [--candidates 100000] [--dtype fp32|q8] [--detector-dtype fp32|q8]   (text turn, photo turn with and without the detector, ranking)
 *   npm run bench -- pool-rate [--dir DIR] [--batches 4]   (embedding the whole demo pool with a ViT-B/32-sized pack on WASM, estimated)
 *   npm run bench -- vs-transformers [--pack mini-clip] [--runs 30] [--threads 1,2]   (the engine against transformers.js in one Chromium page)
 *   npm run bench -- gpu-rank [--rows 1000000] [--queries 20] [--adapter swiftshader|default]   (int8 ranking on WebGPU against WASM SIMD)
 *   npm run bench -- clevr-stats [--data DIR | --scenes 1000 --seed 1] [--split train] [--beside DIR] [--json out.json]   (CLEVR-Dialog's dataset statistics, paper Table 1 and Fig. 3; what each kind of round records as its objects, beside a second folder's)
 *   npm run bench -- avsd-video [--clips 200] [--models q,...] [--json out.json]   (AVSD-style answer ranking on generated videos: R@k, MRR, DSTC7 metrics, the input ablation by question kind)
 *   npm run bench -- video-scenes [--pack mini-clip] [--images ../shared/data/coco-mini/images] [--clips 30]   (a video's frames chosen by scene change against every frame through the photo path, on clips made from real photos: frames analysed, time, same description and answer)
 *   npm run bench -- clevr [--models random,random-q,lf-q,...] [--scenes 300 | --data DIR [--split S]] [--json out.json]   (CLEVR-Dialog answerers, on the generated test split or a folder in the original's layout: accuracy by kind, history and coreference distance, paper Table 2 and Figs. 4-5)
 *   npm run bench -- visitor [--pack mini-clip] [--out models/.cache/visitor] [--turns FILE]   (plays ../shared/data/visitor-turns in Chromium against the production build; every reply to visitor-replies.json, a contact sheet to visitor-replies.png)
 *   npm run bench -- visitor --blind BUILD BUILD [BUILD ...] [--turns FILE] [--out models/.cache/visitor-blind] [--pack mini-clip] [--seed 1]   (the same turns on each build, BUILD a build folder as DIR or DIR#METHOD; an unlabelled sheet.json/sheet.html for a blind rater, key.json apart; docs/visitor-benchmark.md)
 *   npm run bench -- visitor --score RATINGS [--key DIR/key.json] [--json OUT]   (the rater's ratings joined with the key: mean relevance and naturalness per build, over all, text and photo turns, flags, differences)
 *   npm run bench -- screen [--data ../shared/data] [--runs 50]   (the visitor screen: 10,000-character messages timed, the booth probe, and how often real test turns would be flagged)
 *   npm run bench -- photo-check [--model FILE] [--parity 12] [--data ../shared/data]   (the ported nsfwjs photo check: parity with TF.js, false alarms on the project's safe photos)
 *   npm run bench -- soak [--pack test-tiny-clip] [--exchanges 100] [--presenter]   (a long conversation: heap, DOM nodes and event listeners at start, middle and end)
 *   npm run bench -- select --data FILE [--format dailydialog|topical-chat|polyai|visdial|avsd] [--negatives random|nearest] [--methods a,b] [--json out.json]   (response selection on real dialogues)
 *   npm run bench -- pool-select [--contexts 1000] [--methods hybrid] [--rules both|on|off] [--json out.json]   (test contexts answered from the whole page pool by the page's session: the true response's rank, echo rate, questions told)
 *   npm run bench -- replies [--pack mini-clip] [--images DIR] [--methods hybrid,depp]   (what the reply rules do: photo replies that name what is shown, picture requests)
 */
const BROWSER_USAGE = 'npm run bench -- browser [--pack test-tiny-clip] [--webgpu] [--turns 10] [--runs 5] [--busy] [--offline-timeout 600]';
const USAGE = [
  'npm run bench -- <benchmark> [options], where <benchmark> is one of:',
  `  ${BROWSER_USAGE}`,
  `  ${RETRIEVAL_USAGE}`,
  `  ${CAPTION_USAGE}`,
  `  ${CAPTION_THRESHOLDS_USAGE}`,
  `  ${DETECTOR_ENSEMBLE_USAGE}`,
  `  ${IMPORT_USAGE}`,
  `  ${DIALOG_USAGE}`,
  `  ${LOCAL_HEADS_USAGE}`,
  `  ${PERF_USAGE}`,
  `  ${POOL_RATE_USAGE}`,
  `  ${SELECT_USAGE}`,
  `  ${POOL_SELECT_USAGE}`,
  `  ${REPLIES_USAGE}`,
  `  ${CLEVR_STATS_USAGE}`,
  `  ${CLEVR_USAGE}`,
  `  ${VS_TRANSFORMERS_USAGE}`,
  `  ${GPU_RANK_USAGE}`,
  `  ${VISITOR_USAGE}`,
  `  ${SCREEN_USAGE}`,
  `  ${PHOTO_CHECK_USAGE}`,
  `  ${SOAK_USAGE}`,
].join('\n');

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function summary(label: string, ms: number[]): string {
  return `${label.padEnd(34)} median ${percentile(ms, 50).toFixed(2).padStart(8)} ms   p95 ${percentile(ms, 95).toFixed(2).padStart(8)} ms   (n=${ms.length})`;
}

async function browser(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    {
      pack: { type: 'string', default: 'test-tiny-clip' },
      webgpu: { type: 'boolean', default: false },
      turns: { type: 'string', default: '10' },
      runs: { type: 'string', default: '5' },
      busy: { type: 'boolean', default: false },
      'offline-timeout': { type: 'string', default: '600' },
    },
    BROWSER_USAGE,
  );
  const webgpu = values.webgpu;
  const turns = integerOption(values.turns, 'turns', BROWSER_USAGE);
  const runs = integerOption(values.runs, 'runs', BROWSER_USAGE, 1);
  const offlineTimeoutS = integerOption(values['offline-timeout'], 'offline-timeout', BROWSER_USAGE);
  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } = await import('../tools/chromium');
  const { workerHeaps } = await import('./browserBench/workerHeap');
  const { installPageClock, readPageClock, readyAt, turnLatency } = await import('./browserBench/pageClock');
  // One busy process beside the browser, as a laptop running something else (issue 38's second column).
  const busy = values.busy ? spawn('sha256sum', ['/dev/zero'], { stdio: 'ignore' }) : null;
  // BENCH_PORT lets two checkouts measure side by side.
  const port = Number(process.env['BENCH_PORT'] ?? 4174);
  const server = await preview({ preview: { port, strictPort: true } });
  const browserInstance = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...(webgpu ? WEBGPU_ARGS : [])] });
  const readyShown = (page: import('@playwright/test').Page) => page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 180_000 });
  const loadSteps = async (page: import('@playwright/test').Page) => (await page.getByTestId('model-phase').getAttribute('title')) ?? '';
  console.log(`${busy ? 'beside one busy process (sha256sum /dev/zero)' : 'nothing else started'} · load average at start ${loadAverage()}`);
  try {
    // Typed turns on one page: the reply as the worker times it and as the visitor sees it.
    const typingContext = await browserInstance.newContext();
    await installPageClock(typingContext);
    const page = await typingContext.newPage();
    await page.goto(`http://localhost:${port}/?pack=${values.pack}&view=presenter`);
    await readyShown(page);
    console.log(
      `Chromium ${browserInstance.version()} · backend ${await page.getByTestId('backend').innerText()} · ${await page.getByTestId('pack-name').innerText()}`,
    );
    const replyMs: number[] = [];
    const roundTrip: number[] = [];
    const box = page.getByRole('textbox', { name: 'Message' });
    for (let i = 0; i < turns; i++) {
      await box.fill(`turn ${i}: what a lovely day for a walk by the sea`);
      const fromMark = (await readPageClock(page)).length;
      await box.press('Enter');
      const meta = page.getByTestId('reply-meta').nth(i);
      await meta.waitFor({ timeout: 60_000 });
      roundTrip.push(turnLatency(await readPageClock(page, { reply: i }), fromMark, i));
      replyMs.push(Number(/· (\d+) ms on/.exec(await meta.innerText())?.[1]));
    }
    if (turns > 0) {
      console.log(summary('typed turn: reply in the worker', replyMs));
      console.log(summary('typed turn: Enter to reply on screen', roundTrip));
    }
    await typingContext.close();

    // A visitor's visit, each on a fresh context (nothing cached): the cold first visit to Ready, the
    // worker's heap then, "Offline ready", a reload from the offline cache to Ready, and at once a sample
    // prompt, a photo, another photo and a 10 s video with a question.
    // Each figure is read on the page's own clock (pageClock.ts); the harness's view, with Playwright's polling in it, is kept as `seen`.
    const figures = { cold: [] as number[], heap: [] as number[], backing: [] as number[], reload: [] as number[], text: [] as number[] };
    const seen = {
      cold: [] as number[],
      reload: [] as number[],
      text: [] as number[],
      photo: [] as number[],
      laterPhoto: [] as number[],
      video: [] as number[],
      chosenLaterPhoto: [] as number[],
      chosenPhoto: [] as number[],
    };
    const more = {
      photo: [] as number[],
      laterPhoto: [] as number[],
      video: [] as number[],
      chosenLaterPhoto: [] as number[],
      chosenPhoto: [] as number[],
      offline: [] as number[],
    };
    const asset = (name: string, mimeType: string) => ({ name: name.split('/').pop()!, mimeType, buffer: readFileSync(join('e2e', 'assets', name)) });
    const [coffee, meadow, cat, clip] = [
      asset('coffee.jpg', 'image/jpeg'),
      asset('meadow.jpg', 'image/jpeg'),
      asset('cat-cropped.png', 'image/png'),
      asset('video/ten-seconds.webm', 'video/webm'),
    ];
    for (let i = 0; i < runs; i++) {
      const context = await browserInstance.newContext();
      await installPageClock(context);
      const visit = await context.newPage();
      const start = Date.now();
      const readyOnPageClock = async () => {
        const at = readyAt(await readPageClock(visit, 'ready'));
        if (at === null) throw new Error('The page showed Ready, but its clock did not note it.');
        return at;
      };
      // The presenter view shows the offline badge in its header (the visitor view keeps it in the menu).
      await visit.goto(`http://localhost:${port}/?pack=${values.pack}&view=presenter`);
      await readyShown(visit);
      seen.cold.push(Date.now() - start);
      figures.cold.push(await readyOnPageClock());
      console.log(`  run ${i + 1} first visit: ${await loadSteps(visit)}`);
      const [heap] = await workerHeaps(browserInstance, 'model.worker');
      if (heap) {
        figures.heap.push(heap.usedBytes / 1e6);
        figures.backing.push(heap.backingStoreBytes / 1e6);
      }
      // Every visit waits for the offline copy before its reload, so that the reload is from that copy and
      // its first turns do not share the cores with the copy being stored (runs 2 and on did, before).
      const offline = await visit
        .getByTestId('offline-badge')
        .filter({ hasText: 'Offline ready' })
        .waitFor({ timeout: offlineTimeoutS * 1000 })
        .then(() => Date.now() - start)
        .catch(() => null);
      if (offline !== null) more.offline.push(offline);
      else console.log(`  "Offline ready" did not show within ${offlineTimeoutS} s`);
      const reloadStart = Date.now();
      await visit.reload();
      await readyShown(visit);
      seen.reload.push(Date.now() - reloadStart);
      figures.reload.push(await readyOnPageClock());
      console.log(`  run ${i + 1} reload: ${await loadSteps(visit)}`);
      const replies = visit.getByRole('listitem', { name: 'The system replied' });
      /** Acts, waits for reply n, and returns the page's figure; the harness's own is pushed to `harness`. */
      const timeReply = async (n: number, act: () => Promise<void>, harness: number[]): Promise<number> => {
        const fromMark = (await readPageClock(visit)).length;
        const begun = Date.now();
        await act();
        await replies.nth(n).waitFor({ timeout: 120_000 });
        harness.push(Date.now() - begun);
        return turnLatency(await readPageClock(visit, { reply: n }), fromMark, n);
      };
      figures.text.push(await timeReply(0, () => visit.getByRole('list', { name: 'Sample messages' }).getByRole('button').first().click(), seen.text));
      const send =
        (file: typeof coffee, text = '') =>
        async () => {
          await visit.locator('#photo-input').setInputFiles(file);
          if (text) await visit.getByRole('textbox', { name: 'Message' }).fill(text);
          await visit.getByRole('button', { name: 'Send', exact: true }).click();
        };
      more.photo.push(await timeReply(1, send(coffee), seen.photo));
      more.laterPhoto.push(await timeReply(2, send(meadow), seen.laterPhoto));
      more.video.push(await timeReply(3, send(clip, 'what is happening?'), seen.video));
      // A later photo as a visitor sends one: chosen, its thumbnail shown, then Send 2 s later.
      await visit.locator('#photo-input').setInputFiles(cat);
      await visit.getByRole('list', { name: 'Photos to send' }).getByRole('img').waitFor();
      await visit.waitForTimeout(2000);
      more.chosenLaterPhoto.push(await timeReply(4, () => visit.getByRole('button', { name: 'Send', exact: true }).click(), seen.chosenLaterPhoto));
      // A first photo as a visitor sends one: the picker opened at Ready, a photo chosen in it 2 s later, then Send.
      await visit.reload();
      await readyShown(visit);
      const chooser = visit.waitForEvent('filechooser');
      await visit.getByRole('button', { name: 'Add photos' }).click();
      await visit.waitForTimeout(2000);
      await (await chooser).setFiles(coffee);
      await visit.getByRole('list', { name: 'Photos to send' }).getByRole('img').waitFor();
      const repliedBefore = await replies.count();
      more.chosenPhoto.push(await timeReply(repliedBefore, () => visit.getByRole('button', { name: 'Send', exact: true }).click(), seen.chosenPhoto));
      await context.close();
    }
    const line = (label: string, values: number[], unit = 'ms', harness?: number[]) =>
      console.log(
        `${label.padEnd(40)} median ${percentile(values, 50)
          .toFixed(unit === 'ms' ? 0 : 1)
          .padStart(7)} ${unit}   each: ${values.map((v) => v.toFixed(unit === 'ms' ? 0 : 1)).join(', ')}${
          harness ? `   (as Playwright saw it: median ${percentile(harness, 50).toFixed(0)} ms)` : ''
        }`,
      );
    console.log(
      `medians of ${runs} visits (load average now ${loadAverage()}); times on the page's own clock: Ready from the navigation's start, a turn from its click or file to the reply on screen:`,
    );
    line('first visit (cold) to Ready shown', figures.cold, 'ms', seen.cold);
    line("worker's JS heap after Ready", figures.heap, 'MB');
    line('  and its ArrayBuffers/WebAssembly memory', figures.backing, 'MB');
    line('reload (from the offline cache) to Ready', figures.reload, 'ms', seen.reload);
    line('sample prompt at Ready, to reply', figures.text, 'ms', seen.text);
    line('then first photo (file set), to reply', more.photo, 'ms', seen.photo);
    line('then a second photo (file set), to reply', more.laterPhoto, 'ms', seen.laterPhoto);
    line('then a 10 s video with a question, to reply', more.video, 'ms', seen.video);
    line('then a photo chosen, Send 2 s later: Send to reply', more.chosenLaterPhoto, 'ms', seen.chosenLaterPhoto);
    line('reload, picker opened at Ready, photo chosen 2 s later: Send to reply', more.chosenPhoto, 'ms', seen.chosenPhoto);
    if (more.offline.length > 0) line('first visit to "Offline ready"', more.offline);
  } finally {
    await browserInstance.close();
    await server.close();
    busy?.kill();
  }
}

const benchmarks: Record<string, (argv: string[]) => Promise<void>> = {
  browser,
  retrieval,
  caption: captionBench,
  'caption-thresholds': captionThresholdsBench,
  'detector-ensemble': detectorEnsembleBench,
  import: importBench,
  dialog: dialogBench,
  'local-heads': localHeadsBench,
  perf: perfBench,
  'pool-rate': poolRateBench,
  select: selectBench,
  'pool-select': poolSelectBench,
  replies: repliesBench,
  'vs-transformers': vsTransformersBench,
  'gpu-rank': gpuRankBench,
  'clevr-stats': clevrStatsBench,
  clevr: clevrBench,
  'avsd-video': avsdVideoBench,
  visitor: visitorBench,
  screen: screenBench,
  'photo-check': photoCheckBench,
  'video-scenes': videoScenesBench,
  soak: soakBench,
};

const { command, rest } = await runCommand('bench', () => parseSubcommand(process.argv.slice(2), Object.keys(benchmarks), 'benchmark', USAGE));
await runCommand(`bench ${command}`, () => benchmarks[command]!(rest));
