import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser, Page } from '@playwright/test';
import { methodName } from '../../engine/response/methods';
import { CROSS_ORIGIN_ISOLATION_HEADERS, contentSecurityPolicy } from '../../engine/securityPolicy';
import { UsageError, integerOption, parseCommandLine } from '../tools/cliArgs';
import {
  type BlindBuild,
  buildBlindSheet,
  formatBlindScores,
  parseBlindBuilds,
  readBlindKey,
  readHumanCaptions,
  renderSheetHtml,
  repliesFileName,
  scoreRatings,
  validateRatings,
} from './visitorBlind';
import {
  type PlayedTurn,
  type VisitorConversation,
  VISITOR_TURNS_FILE,
  describeReply,
  openForVisitorPlay,
  playVisitorConversations,
  readVisitorTurns,
  screenshotConversationList,
  visitorPlayAddress,
} from './visitorPlay';

export const VISITOR_USAGE = [
  'npm run bench -- visitor [--pack mini-clip] [--out models/.cache/visitor] [--turns ../shared/data/visitor-turns/visitor-turns.json]',
  '  npm run bench -- visitor --blind BUILD BUILD [BUILD ...] [--turns FILE] [--out models/.cache/visitor-blind] [--pack mini-clip] [--seed 1]   (BUILD: a production build folder, as DIR or DIR#METHOD)',
  '  npm run bench -- visitor --score RATINGS [--key DIR/key.json] [--json OUT]',
].join('\n');

/** What `visitor-replies.json` holds. */
interface VisitorRepliesReport {
  about: string;
  pack: string;
  /** The pack's name, the backend and the load line as the status area showed them. */
  packName: string;
  backend: string;
  loaded: string;
  chromium: string;
  date: string;
  /** `git rev-parse --short HEAD`, with +dirty when the working tree has changes. */
  commit: string;
  turnsFile: string;
  address: string;
  contactSheet: { file: string; columns: number; conversations: string[] };
  turns: PlayedTurn[];
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** A conversation's id as a picture, to head its cell on the contact sheet (Chromium draws the text; pngjs only copies pixels). */
async function labelPng(browser: Browser, text: string, width: number): Promise<PNG> {
  const page = await browser.newPage({ viewport: { width, height: 40 } });
  try {
    await page.setContent(`<body style="margin:0;background:#fff;font:600 22px/40px sans-serif;color:#0f172a;padding-left:8px"></body>`);
    await page.locator('body').evaluate((body, t) => (body.textContent = t), text);
    return PNG.sync.read(await page.screenshot());
  } finally {
    await page.close();
  }
}

/** One cell per conversation, `columns` to a row, each its label above its screenshot, on a grey ground. */
function contactSheet(cells: { label: PNG; shot: PNG }[], columns: number): PNG {
  const gap = 16;
  const cellWidth = Math.max(...cells.map((c) => Math.max(c.shot.width, c.label.width)));
  const rows: { label: PNG; shot: PNG }[][] = [];
  for (let i = 0; i < cells.length; i += columns) rows.push(cells.slice(i, i + columns));
  const rowHeights = rows.map((row) => Math.max(...row.map((c) => c.label.height + c.shot.height)));
  const sheet = new PNG({ width: gap + Math.min(columns, cells.length) * (cellWidth + gap), height: gap + rowHeights.reduce((s, h) => s + h + gap, 0) });
  for (let p = 0; p < sheet.data.length; p += 4) sheet.data.set([203, 213, 225, 255], p);
  let y = gap;
  for (const [r, row] of rows.entries()) {
    for (const [c, cell] of row.entries()) {
      const x = gap + c * (cellWidth + gap);
      // PNG.sync.read gives the pixels without the stream's methods: the static bitblt copies them.
      PNG.bitblt(cell.label, sheet, 0, 0, Math.min(cell.label.width, cellWidth), cell.label.height, x, y);
      PNG.bitblt(cell.shot, sheet, 0, 0, cell.shot.width, cell.shot.height, x, y + cell.label.height);
    }
    y += rowHeights[r]! + gap;
  }
  return sheet;
}

/** The plain-text table: conversation, turn, what the visitor sent, the caption shown, the reply element by element (columns as wide as their longest entry). */
function repliesTable(turns: readonly PlayedTurn[]): string {
  const rows = turns.map((t) => [t.conversationId, String(t.turn), t.photo ? `${t.text} (+ ${t.photo})` : t.text, t.caption ?? '-', describeReply(t)]);
  const header = ['conversation', 'turn', 'visitor (+ photo)', 'caption', 'reply'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * npm run bench -- visitor: plays ../shared/data/visitor-turns (8 conversations, 24 turns) in
 * Chromium against the production build in the presenter view, and writes every reply to
 * visitor-replies.json, a contact sheet of the conversations to visitor-replies.png, and a table to
 * stdout. It judges nothing: the records are for a person (or a later diff) to read.
 * With --blind it plays the turns on several builds for a blind rating, and --score scores the
 * rating (docs/visitor-benchmark.md).
 */
export async function visitorBench(argv: string[]): Promise<void> {
  const { builds, rest } = takeBlindBuilds(argv);
  const options = parseCommandLine(
    rest,
    {
      pack: { type: 'string' },
      out: { type: 'string' },
      turns: { type: 'string' },
      blind: { type: 'boolean', default: false },
      seed: { type: 'string' },
      score: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'string' },
    },
    VISITOR_USAGE,
  );
  const given = (names: readonly (keyof typeof options)[]) => names.filter((n) => options[n] !== undefined).map((n) => `--${n}`);
  if (options.blind && options.score !== undefined)
    throw new UsageError('--blind plays builds and --score scores their ratings; run one at a time.', VISITOR_USAGE);
  if (options.score !== undefined) {
    const stray = given(['pack', 'out', 'turns', 'seed']);
    if (stray.length > 0) throw new UsageError(`--score reads only RATINGS, --key and --json, not ${stray.join(', ')}.`, VISITOR_USAGE);
    return visitorScore(options.score, options.key, options.json);
  }
  if (!options.blind && options.seed !== undefined) throw new UsageError('--seed goes with --blind: it orders the replies on the sheet.', VISITOR_USAGE);
  const scoreOnly = given(['key', 'json']);
  if (scoreOnly.length > 0) throw new UsageError(`${scoreOnly.join(' and ')} ${scoreOnly.length === 1 ? 'goes' : 'go'} with --score RATINGS.`, VISITOR_USAGE);
  const values = {
    pack: options.pack ?? 'mini-clip',
    turns: options.turns ?? VISITOR_TURNS_FILE,
    out: options.out ?? join('models', '.cache', options.blind ? 'visitor-blind' : 'visitor'),
  };
  if (options.blind) return visitorBlindBench(builds ?? [], { ...values, seed: integerOption(options.seed ?? '1', 'seed', VISITOR_USAGE, 0) });
  if (!existsSync(join('dist', 'index.html'))) throw new Error('There is no production build in dist/. Run npm run build first.');
  const conversations = readVisitorTurns(resolve(values.turns));
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });

  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../tools/chromium');
  // BENCH_PORT lets two checkouts measure side by side.
  const port = Number(process.env['BENCH_PORT'] ?? 4174);
  const server = await preview({ preview: { port, strictPort: true } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  try {
    const context = await browser.newContext({ baseURL: `http://localhost:${port}`, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const started = Date.now();
    await openForVisitorPlay(page, values.pack);
    const packName = (await page.getByTestId('pack-name').innerText()).trim();
    const backend = (await page.getByTestId('backend').innerText()).trim();
    const loaded = (await page.getByTestId('model-phase').innerText()).trim();
    const turnCount = conversations.reduce((s, c) => s + c.turns.length, 0);
    console.log(`Chromium ${browser.version()} · ${packName} · backend ${backend} · ${loaded} · ${conversations.length} conversations, ${turnCount} turns`);

    const shots: { id: string; png: Buffer }[] = [];
    const turns = await playVisitorConversations(page, conversations, {
      onTurn: (t) => console.log(`  ${t.conversationId} turn ${t.turn}: ${describeReply(t)}`),
      afterConversation: async (conversation, p) => void shots.push({ id: conversation.id, png: await screenshotConversationList(p) }),
    });
    console.log(`played in ${((Date.now() - started) / 1000).toFixed(0)} s, load included\n`);

    const columns = 4;
    const cells = [];
    for (const shot of shots) {
      const png = PNG.sync.read(shot.png);
      cells.push({ label: await labelPng(browser, shot.id, png.width), shot: png });
    }
    const sheetFile = join(out, 'visitor-replies.png');
    writeFileSync(sheetFile, PNG.sync.write(contactSheet(cells, columns)));

    const report: VisitorRepliesReport = {
      about:
        "Every visitor turn of the turns file played in the production build (New conversation before each conversation; a photo attached and sent with its text), and what the page showed: the caption under the photo and the reply element by element, with the presenter view's method line.",
      pack: values.pack,
      packName,
      backend,
      loaded,
      chromium: browser.version(),
      date: new Date().toISOString(),
      commit: gitCommit(),
      turnsFile: relative(process.cwd(), resolve(values.turns)),
      address: visitorPlayAddress(values.pack),
      contactSheet: { file: 'visitor-replies.png', columns, conversations: shots.map((s) => s.id) },
      turns,
    };
    const jsonFile = join(out, 'visitor-replies.json');
    writeFileSync(jsonFile, `${JSON.stringify(report, null, 1)}\n`);

    console.log(repliesTable(turns));
    console.log(`\nwrote ${relative(process.cwd(), jsonFile)} and ${relative(process.cwd(), sheetFile)} (commit ${report.commit})`);
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------
// --blind and --score (docs/visitor-benchmark.md); the sheet, key and scores are visitorBlind.ts's.

/** The words after --blind up to the next option are the builds (parseArgs gives an option one value). */
function takeBlindBuilds(argv: readonly string[]): { builds: string[] | null; rest: string[] } {
  const at = argv.indexOf('--blind');
  if (at < 0) return { builds: null, rest: [...argv] };
  let end = at + 1;
  while (end < argv.length && !argv[end]!.startsWith('-')) end++;
  return { builds: argv.slice(at + 1, end), rest: [...argv.slice(0, at + 1), ...argv.slice(end)] };
}

/** A path as the engineer would type it: relative inside the checkout, absolute outside it. */
function shownPath(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside === '' || inside.startsWith('..') ? resolve(path) : inside;
}

/** The folder the turns' photo paths are relative to: ../shared/data, the visitor turns file's parent's parent. */
const VISITOR_DATA_DIR = resolve(dirname(VISITOR_TURNS_FILE), '..');

/** The zustand persist store of src/shared/stores/settingsStore.ts, as the page reads it from localStorage. */
const SETTINGS_STORAGE_KEY = 'mmdialog-settings';
const SETTINGS_STORAGE_VERSION = 1;

/** What Settings shows as the response method after Ready: the method's id, or "" for the pack's own choice, with the option's text. */
async function responseMethodShown(page: Page): Promise<{ value: string; text: string }> {
  // Settings holds another <details> (the packs to download): its own summary is the one named Settings alone.
  const summary = page.locator('summary').filter({ hasText: /^Settings$/ });
  const settings = summary.locator('xpath=..');
  const wasOpen = await settings.evaluate((d) => (d as HTMLDetailsElement).open);
  if (!wasOpen) await summary.click();
  const select = settings.locator('label', { hasText: 'Response method' }).locator('select');
  await select.waitFor({ timeout: 30_000 });
  const shown = await select.evaluate((s) => {
    const el = s as HTMLSelectElement;
    return { value: el.value, text: el.selectedOptions[0]?.text ?? '' };
  });
  if (!wasOpen) await summary.click();
  return shown;
}

/** What a build's raw replies file holds: the played turns, for the engineers (never the rater). */
interface BlindRepliesReport {
  about: string;
  build: string;
  dir: string;
  method: string | null;
  /** The response method Settings showed after Ready. */
  methodShown: string;
  pack: string;
  packName: string;
  backend: string;
  loaded: string;
  chromium: string;
  date: string;
  turnsFile: string;
  turns: PlayedTurn[];
}

interface BlindPlayOptions {
  pack: string;
  port: number;
  conversations: readonly VisitorConversation[];
  turnsFile: string;
  /** 1-based, for the progress lines. */
  number: number;
  of: number;
}

/**
 * Plays every turn on one build: served from its own folder with Vite's preview, in a fresh browser
 * context, with the response method set in the page's stored settings before it loads.
 */
async function playBuild(browser: Browser, build: BlindBuild, options: BlindPlayOptions): Promise<BlindRepliesReport> {
  const { preview } = await import('vite');
  // Not vite.config.ts: its models plugin serves /models/ from this checkout's models/, so a build from
  // another checkout would run this one's packs. Each build has its own copy in DIR/models; the headers
  // are those vite.config.ts's preview sends (cross-origin isolation for WASM threads, the CSP).
  const server = await preview({
    configFile: false,
    logLevel: 'warn',
    build: { outDir: resolve(build.dir) },
    preview: {
      port: options.port,
      strictPort: true,
      host: 'localhost',
      headers: { ...CROSS_ORIGIN_ISOLATION_HEADERS, 'Content-Security-Policy': contentSecurityPolicy() },
    },
  });
  const context = await browser.newContext({ baseURL: `http://localhost:${options.port}`, viewport: { width: 1280, height: 900 } });
  try {
    if (build.method !== null) {
      const stored = JSON.stringify({ state: { method: build.method }, version: SETTINGS_STORAGE_VERSION });
      await context.addInitScript(({ name, value }) => window.localStorage.setItem(name, value), { name: SETTINGS_STORAGE_KEY, value: stored });
    }
    const page = await context.newPage();
    const started = Date.now();
    const tag = `[${options.number}/${options.of} ${build.label}]`;
    console.log(`${tag} opening ${build.dir}${build.method ? ` with the response method ${build.method}` : ''}`);
    await openForVisitorPlay(page, options.pack);
    const shown = await responseMethodShown(page);
    if (build.method !== null && shown.value !== build.method)
      throw new Error(
        `The build "${build.label}" ignored the response method ${build.method}: after Ready its Settings shows "${shown.text}"; build it from a checkout that has ${build.method}, or choose a method its pack offers.`,
      );
    const packName = (await page.getByTestId('pack-name').innerText()).trim();
    const backend = (await page.getByTestId('backend').innerText()).trim();
    const loaded = (await page.getByTestId('model-phase').innerText()).trim();
    const turnCount = options.conversations.reduce((s, c) => s + c.turns.length, 0);
    console.log(`${tag} Chromium ${browser.version()} · ${packName} · backend ${backend} · ${loaded} · method ${shown.text} · ${turnCount} turns`);
    let done = 0;
    const turns = await playVisitorConversations(page, options.conversations, {
      onTurn: (t) => console.log(`${tag} ${++done}/${turnCount} ${t.conversationId} turn ${t.turn}: ${describeReply(t)}`),
    });
    // A reply whose presenter line names another method (a fallback) is worth knowing before the rating.
    if (build.method !== null) {
      const named = methodName(build.method);
      const other = turns.filter((t) => t.reply?.meta && !t.reply.meta.startsWith(named)).length;
      if (other > 0) console.log(`${tag} note: ${other} of ${turnCount} replies say under them they were made by another method than ${named}.`);
    }
    console.log(`${tag} played in ${((Date.now() - started) / 1000).toFixed(0)} s, load included\n`);
    return {
      about: `Every visitor turn played on the build "${build.label}" and what the page showed (with the presenter view's method line). For the engineers; the rater sees only sheet.json or sheet.html.`,
      build: build.label,
      dir: resolve(build.dir),
      method: build.method,
      methodShown: shown.text,
      pack: options.pack,
      packName,
      backend,
      loaded,
      chromium: browser.version(),
      date: new Date().toISOString(),
      turnsFile: options.turnsFile,
      turns,
    };
  } finally {
    await context.close();
    await server.close();
  }
}

/** Copies a file into the sheet's folder under a name made from its bytes (the same image from two builds is one file, and the name says nothing of the build). */
function copyThumbnail(source: string, out: string, folder: string): string {
  const bytes = readFileSync(source);
  const name = `${folder}/${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}${extname(source).toLowerCase()}`;
  mkdirSync(join(out, folder), { recursive: true });
  if (!existsSync(join(out, name))) writeFileSync(join(out, name), bytes);
  return name;
}

async function visitorBlindBench(specs: readonly string[], options: { pack: string; turns: string; out: string; seed: number }): Promise<void> {
  const builds = parseBlindBuilds(specs);
  const turnsFile = shownPath(options.turns);
  const conversations = readVisitorTurns(resolve(options.turns));
  const captions = readHumanCaptions(join(VISITOR_DATA_DIR, 'coco-mini', 'captions.json'));
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });

  const { chromium } = await import('@playwright/test');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('../tools/chromium');
  // BENCH_PORT lets two checkouts measure side by side.
  const port = Number(process.env['BENCH_PORT'] ?? 4174);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
  const plays: { label: string; turns: PlayedTurn[] }[] = [];
  const repliesFiles: Record<string, string> = {};
  try {
    for (const [index, build] of builds.entries()) {
      const report = await playBuild(browser, build, { pack: options.pack, port, conversations, turnsFile, number: index + 1, of: builds.length });
      const file = repliesFileName(build.label, new Set(Object.values(repliesFiles)));
      writeFileSync(join(out, file), `${JSON.stringify(report, null, 1)}\n`);
      repliesFiles[build.label] = file;
      plays.push({ label: build.label, turns: report.turns });
    }
  } finally {
    await browser.close();
  }

  const { sheet, key } = buildBlindSheet({
    plays,
    captions,
    seed: options.seed,
    turnsFile,
    pack: options.pack,
    date: new Date().toISOString(),
    repliesFiles,
    photoThumbnail: (photo) => {
      const source = join(VISITOR_DATA_DIR, photo);
      return existsSync(source) ? copyThumbnail(source, out, 'photos') : null;
    },
    imageThumbnail: (play, image) => {
      // Only the build's own files: a pool image is /pool/media/KEY.webp under its folder.
      if (!image.url?.startsWith('/')) return null;
      const root = resolve(builds[play]!.dir);
      const source = join(root, decodeURIComponent(image.url.split(/[?#]/)[0]!));
      return source.startsWith(root + sep) && existsSync(source) ? copyThumbnail(source, out, 'images') : null;
    },
  });
  const at = (name: string) => shownPath(join(out, name));
  writeFileSync(join(out, 'sheet.json'), `${JSON.stringify(sheet, null, 1)}\n`);
  writeFileSync(join(out, 'sheet.html'), renderSheetHtml(sheet));
  writeFileSync(join(out, 'key.json'), `${JSON.stringify(key, null, 1)}\n`);
  console.log(
    `the sheet, for the rater: ${at('sheet.html')} and ${at('sheet.json')} (${sheet.turns.length} turns, ${builds.length} replies each; with photos/ and images/ beside them)`,
  );
  console.log(`the key, not for the rater: ${at('key.json')}`);
  console.log(`the raw replies, for the engineers: ${Object.values(repliesFiles).map(at).join(', ')}`);
  console.log(
    `The rater sees only sheet.html (or sheet.json) and docs/visitor-rubric.md, never the key or the raw replies, and did not make the change; then: npm run bench -- visitor --score ${at('ratings.json')}`,
  );
}

function visitorScore(ratingsFile: string, keyFile: string | undefined, jsonOut: string | undefined): void {
  const keyPath = keyFile ?? join(dirname(ratingsFile), 'key.json');
  const key = readBlindKey(keyPath);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(ratingsFile, 'utf8'));
  } catch (error) {
    throw new Error(`Could not read the ratings ${ratingsFile} (${(error as Error).message}); give --score the rater's JSON file, {"ratings": {...}}.`);
  }
  const ratings = validateRatings(json, key, ratingsFile);
  const scores = scoreRatings(ratings, key);
  console.log(`${ratingsFile} against ${keyPath}: ${key.builds.length} builds, turns of ${key.turnsFile}, seed ${key.seed}, played ${key.date}\n`);
  console.log(formatBlindScores(scores));
  if (jsonOut !== undefined) {
    writeFileSync(jsonOut, `${JSON.stringify({ ratings: ratingsFile, key: keyPath, turnsFile: key.turnsFile, seed: key.seed, ...scores }, null, 1)}\n`);
    console.log(`\nwrote ${jsonOut}`);
  }
}
