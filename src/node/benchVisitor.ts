import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser } from '@playwright/test';
import { parseCommandLine } from './cliArgs';
import {
  type PlayedTurn,
  VISITOR_TURNS_FILE,
  describeReply,
  openForVisitorPlay,
  playVisitorConversations,
  readVisitorTurns,
  screenshotConversationList,
  visitorPlayAddress,
} from './visitorPlay';

export const VISITOR_USAGE =
  'npm run bench -- visitor [--pack mini-clip] [--out models/.cache/visitor] [--turns ../shared/data/visitor-turns/visitor-turns.json]';

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
 */
export async function visitorBench(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    argv,
    {
      pack: { type: 'string', default: 'mini-clip' },
      out: { type: 'string', default: join('models', '.cache', 'visitor') },
      turns: { type: 'string', default: VISITOR_TURNS_FILE },
    },
    VISITOR_USAGE,
  );
  if (!existsSync(join('dist', 'index.html'))) throw new Error('There is no production build in dist/. Run npm run build first.');
  const conversations = readVisitorTurns(resolve(values.turns));
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });

  const { chromium } = await import('@playwright/test');
  const { preview } = await import('vite');
  const { BASE_ARGS, CHROMIUM_PATH } = await import('./chromium');
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
