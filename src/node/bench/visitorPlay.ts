import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';

/**
 * Plays a visitor's conversations (../shared/data/visitor-turns) in the page, as a person would: New
 * conversation, then each turn typed and sent, a photo attached first when the turn has one, and
 * records what the page then shows: the photo's caption and the reply, element by element. Shared by
 * `npm run bench -- visitor` and e2e/visitor-turns.spec.ts, so both play the file the same way.
 */

/** The folder the turns' photo paths are relative to: ../shared/data beside the repository. */
const VISITOR_DATA_DIR = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
export const VISITOR_TURNS_FILE = join(VISITOR_DATA_DIR, 'visitor-turns', 'visitor-turns.json');

interface VisitorTurn {
  text: string;
  /** Relative to VISITOR_DATA_DIR, e.g. coco-mini/images/000000216794.jpg. */
  photo?: string;
}

export interface VisitorConversation {
  id: string;
  turns: VisitorTurn[];
}

/** An element of a reply as the page shows it. */
type ShownReplyElement =
  | { kind: 'text'; text: string }
  /** `url` is the img's src as written in the DOM (null while only the alt text shows); `poolKey` is read from a demo pool url (/pool/media/<key>.webp). */
  | { kind: 'image'; alt: string; url: string | null; poolKey: string | null };

interface ShownReply {
  elements: ShownReplyElement[];
  /** The presenter view's line under the reply (method, intent model, cosine, time); null in the visitor view. */
  meta: string | null;
}

/** One turn as played: what the visitor sent, and what the page showed for it. */
export interface PlayedTurn {
  conversationId: string;
  /** 1 for a conversation's first turn. */
  turn: number;
  text: string;
  photo: string | null;
  /** The caption shown under the shared photo, or null when the turn has no photo or the page shows none. */
  caption: string | null;
  /** Null when no reply came; `problem` then says what the page said instead. */
  reply: ShownReply | null;
  problem: string | null;
}

function fail(source: string, where: string, what: string): never {
  throw new Error(`${source}: ${where} ${what}`);
}

/** The file's conversations, checked: each has an id and turns with a non-empty text and, maybe, a photo path. */
function parseVisitorTurns(json: unknown, source: string): VisitorConversation[] {
  const conversations = (json as { conversations?: unknown } | null)?.conversations;
  if (!Array.isArray(conversations) || conversations.length === 0) fail(source, 'the file', 'has no "conversations" list.');
  return conversations.map((c: unknown, ci) => {
    const { id, turns } = (c ?? {}) as { id?: unknown; turns?: unknown };
    if (typeof id !== 'string' || id === '') fail(source, `conversation ${ci + 1}`, 'has no "id".');
    if (!Array.isArray(turns) || turns.length === 0) fail(source, `conversation "${id}"`, 'has no "turns".');
    return {
      id,
      turns: turns.map((t: unknown, ti) => {
        const { text, photo } = (t ?? {}) as { text?: unknown; photo?: unknown };
        if (typeof text !== 'string' || text.trim() === '') fail(source, `turn ${ti + 1} of "${id}"`, 'has no "text".');
        if (photo !== undefined && (typeof photo !== 'string' || photo === '')) fail(source, `turn ${ti + 1} of "${id}"`, 'has a "photo" that is not a path.');
        return photo === undefined ? { text } : { text, photo };
      }),
    };
  });
}

export function readVisitorTurns(file = VISITOR_TURNS_FILE): VisitorConversation[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Could not read the visitor turns from ${file} (${(error as Error).message}); they come with ../shared/data.`);
  }
  return parseVisitorTurns(json, file);
}

/** The address the visitor turns are played at: the pack, and the presenter view so each reply's method line shows. */
export function visitorPlayAddress(packId: string): string {
  return `/?pack=${encodeURIComponent(packId)}&view=presenter`;
}

/** Opens the page (relative to the context's baseURL) and waits until the model says Ready; a mini-clip load on two cores takes a while. */
export async function openForVisitorPlay(page: Page, packId: string): Promise<void> {
  await page.goto(visitorPlayAddress(packId));
  await page.getByTestId('model-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 240_000 });
}

const said = (page: Page) => page.getByRole('listitem', { name: 'You said' });
const replies = (page: Page) => page.getByRole('listitem', { name: 'The system replied' });

/** How long one reply may take: a photo turn runs the detector and the image tower on WASM, on a busy 2-core machine. */
const REPLY_TIMEOUT_MS = 150_000;

/**
 * Starts a new conversation with the header button. A page with no turns is a new conversation
 * already, and there the click shows no sign of when the new one is stored; a turn sent before that
 * would be dropped with the old conversation, so the button is only pressed when there is something
 * to clear, and the turn waits for the notice that says it is stored.
 */
async function startNewConversation(page: Page): Promise<void> {
  if ((await said(page).count()) === 0 && (await replies(page).count()) === 0) return;
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('status').filter({ hasText: 'Started a new conversation.' }).waitFor({ timeout: 30_000 });
  await said(page).first().waitFor({ state: 'detached', timeout: 30_000 });
}

/** The reply's elements in the order shown, and its method line. */
async function readReply(reply: Locator): Promise<ShownReply> {
  return reply.evaluate((li) => {
    const bubble = li.firstElementChild;
    const elements: ({ kind: 'text'; text: string } | { kind: 'image'; alt: string; url: string | null; poolKey: string | null })[] = [];
    let meta: string | null = null;
    for (const child of Array.from(bubble?.children ?? [])) {
      const el = child as HTMLElement;
      if (el.dataset['testid'] === 'reply-meta') {
        meta = el.innerText.trim();
        continue;
      }
      // After the elements come the meta line and, in the presenter view, the visitor's answer (buttons, a form).
      if (meta !== null || el.querySelector('button, form, input') || el.matches('button, form')) continue;
      if (el.dataset['testid'] === 'reply-text') elements.push({ kind: 'text', text: el.innerText });
      else if (el instanceof HTMLImageElement) {
        const url = el.getAttribute('src');
        elements.push({ kind: 'image', alt: el.alt, url, poolKey: url ? (/\/pool\/media\/([^/?#]+)\.[a-z0-9]+$/i.exec(url)?.[1] ?? null) : null });
      } else if (el.tagName === 'DIV') elements.push({ kind: 'image', alt: el.innerText.trim(), url: null, poolKey: null }); // a pool image not loaded yet: its alt text in a box
    }
    return { elements, meta };
  });
}

/** Sends one turn and waits for its reply, or for the page's sentence saying there is none. */
async function playTurn(page: Page, conversationId: string, index: number, turn: VisitorTurn, dataDir: string): Promise<PlayedTurn> {
  if (turn.photo) {
    await page.locator('#photo-input').setInputFiles(join(dataDir, turn.photo));
    await page.getByRole('list', { name: 'Photos to send' }).getByRole('img').first().waitFor({ timeout: 60_000 });
  }
  const noReplies = page.getByRole('alert').filter({ hasText: 'No reply this time' });
  const noRepliesBefore = await noReplies.count();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(turn.text);
  await box.press('Enter');
  const reply = replies(page).nth(index);
  const noReply = noReplies.nth(noRepliesBefore);
  const outcome = await Promise.race([
    reply.waitFor({ timeout: REPLY_TIMEOUT_MS }).then(() => 'reply' as const),
    noReply.waitFor({ timeout: REPLY_TIMEOUT_MS }).then(
      () => 'problem' as const,
      () => new Promise<never>(() => {}), // no alert: the reply's wait decides
    ),
  ]);
  await page.getByText('Thinking…').waitFor({ state: 'detached', timeout: REPLY_TIMEOUT_MS });
  const mine = said(page).nth(index);
  const captions = mine.getByTestId('photo-caption');
  const caption = (await captions.count()) > 0 ? (await captions.first().innerText()).trim() : null;
  const base = { conversationId, turn: index + 1, text: turn.text, photo: turn.photo ?? null, caption };
  if (outcome === 'problem') return { ...base, reply: null, problem: (await noReply.innerText()).trim() };
  return { ...base, reply: await readReply(reply), problem: null };
}

export interface PlayOptions {
  /** Where the turns' photo paths start; VISITOR_DATA_DIR by default. */
  dataDir?: string;
  /** Called after each turn, e.g. to print progress. */
  onTurn?: (played: PlayedTurn) => void;
  /** Called once a conversation's turns are all played, before the next New conversation (e.g. for a screenshot). */
  afterConversation?: (conversation: VisitorConversation, page: Page) => Promise<void>;
}

/**
 * Plays every conversation in a page already open at visitorPlayAddress and Ready (openForVisitorPlay),
 * each after New conversation; returns one record per turn, in order.
 */
export async function playVisitorConversations(page: Page, conversations: readonly VisitorConversation[], options: PlayOptions = {}): Promise<PlayedTurn[]> {
  const dataDir = options.dataDir ?? VISITOR_DATA_DIR;
  const played: PlayedTurn[] = [];
  for (const conversation of conversations) {
    await startNewConversation(page);
    for (const [index, turn] of conversation.turns.entries()) {
      const record = await playTurn(page, conversation.id, index, turn, dataDir);
      played.push(record);
      options.onTurn?.(record);
    }
    await options.afterConversation?.(conversation, page);
  }
  return played;
}

/**
 * The whole conversation list as one PNG: the window is made as tall as the list's content (the list
 * scrolls inside a screen-high layout), its images loaded, then the list is shot and the window put back.
 */
export async function screenshotConversationList(page: Page): Promise<Buffer> {
  const list = page.getByRole('list', { name: 'Conversation' });
  await list.evaluate(async (ol) => {
    const images = Array.from(ol.querySelectorAll('img'));
    await Promise.all(
      images
        .filter((img) => !img.complete)
        .map((img) => new Promise((done) => (img.addEventListener('load', done, { once: true }), img.addEventListener('error', done, { once: true })))),
    );
  });
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  let height = viewport.height;
  for (let tries = 0; tries < 4; tries++) {
    const hidden = await list.evaluate((ol) => ol.scrollHeight - ol.clientHeight);
    if (hidden <= 0) break;
    height = Math.min(height + hidden, 16_000);
    await page.setViewportSize({ width: viewport.width, height });
  }
  await list.evaluate((ol) => (ol.scrollTop = 0));
  try {
    return await list.screenshot({ animations: 'disabled' });
  } finally {
    await page.setViewportSize(viewport);
  }
}

/** One line per element: text in quotes, an image as [image: alt] with its pool key. */
export function describeReply(played: PlayedTurn): string {
  if (!played.reply) return `(no reply: ${played.problem ?? 'nothing shown'})`;
  if (played.reply.elements.length === 0) return '(empty reply)';
  return played.reply.elements
    .map((e) => (e.kind === 'text' ? `"${e.text}"` : `[image: ${e.alt}${e.poolKey ? ` · ${e.poolKey}` : e.url ? ` · ${e.url}` : ''}]`))
    .join(' + ');
}
