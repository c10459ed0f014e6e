import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { type Page, expect, test } from '@playwright/test';
import { unzipSync } from 'fflate';

const here = dirname(fileURLToPath(import.meta.url));
export const ASSETS = join(here, 'assets');
export const MODELS_DIR = join(here, '..', 'models');

export function asset(name: string): Buffer {
  return readFileSync(join(ASSETS, name));
}

/** How long the model status may stay the same while a pack loads (or heads train) before a wait gives up. */
const STATUS_STALL_MS = 120_000;

/** What a wait on the model status waits for: an element's text or attribute, and a state that ends the wait at once as a failure. */
interface StatusGoal {
  testId: string;
  text?: string;
  attribute?: readonly [name: string, value: string];
  failsOn?: readonly [name: string, value: string];
}

/**
 * Waits until the model status shows `goal`, for as long as the work makes progress (issue 40). A busy
 * machine works slowly, and a fixed budget failed tests there while the work was still coming: here
 * every change of the status area (a file's bytes, a new file, the pool's count, a training phase)
 * starts the wait again and adds the time waited to the test's own timeout. The test fails when the
 * status has not changed for STATUS_STALL_MS, or shows `goal.failsOn`, with what it last showed.
 */
async function untilStatus(page: Page, goal: StatusGoal, work: string): Promise<void> {
  // null until the first read, which the in-page check then answers at once.
  let seen: string | null = null;
  for (;;) {
    const begun = Date.now();
    const read = await page
      .waitForFunction(
        ({ before, goal }) => {
          const status = Array.from(document.querySelectorAll('section[aria-label="Model status"]'), (s) => s.textContent).join('\n');
          const element = document.querySelector(`[data-testid="${goal.testId}"]`);
          const reached =
            element !== null &&
            (goal.text === undefined || (element.textContent ?? '').includes(goal.text)) &&
            (goal.attribute === undefined || element.getAttribute(goal.attribute[0]) === goal.attribute[1]);
          if (reached) return { state: 'reached', status };
          if (goal.failsOn && element?.getAttribute(goal.failsOn[0]) === goal.failsOn[1]) return { state: 'failed', status: element.textContent ?? '' };
          return status !== before && { state: 'changed', status };
        },
        { before: seen, goal },
        { timeout: STATUS_STALL_MS, polling: 100 },
      )
      .catch((error: unknown) => {
        throw new Error(`${work} made no progress for ${STATUS_STALL_MS / 1000} s; the status still says: ${(seen ?? '').replace(/\s+/g, ' ').slice(0, 300)}`, {
          cause: error,
        });
      });
    const { state, status } = (await read.jsonValue()) as { state: 'reached' | 'failed' | 'changed'; status: string };
    if (state === 'reached') return;
    if (state === 'failed') throw new Error(`${work} failed; the status says: ${status}`);
    seen = status;
    test.info().setTimeout(test.info().timeout + (Date.now() - begun));
  }
}

/** Waits until the model status says Ready, for as long as the load makes progress (untilStatus). */
export async function modelReady(page: Page): Promise<void> {
  await untilStatus(page, { testId: 'model-phase', text: 'Ready' }, 'The model load');
}

/**
 * Waits until clip-map and the intent head are trained in the page, for as long as that makes
 * progress (untilStatus): for a pack without pool rows (a downloaded CLIP) it first waits for the
 * whole pool to be embedded in the page, 65k texts and 1.8k images, which takes minutes on a slow
 * machine. Fails at once when the page says training could not be done.
 */
export async function headsTrained(page: Page): Promise<void> {
  await untilStatus(
    page,
    { testId: 'heads-line', attribute: ['data-state', 'trained'], failsOn: ['data-state', 'unavailable'] },
    'Training clip-map and the intent head',
  );
}

/** Opens the demo on a pack (the tests' own by default), with more of the address if given (`&kiosk=1`), and waits until it is loaded. */
export async function openReady(page: Page, packId = 'test-tiny-clip', more = ''): Promise<void> {
  await page.goto(`/?pack=${packId}${more}`);
  await modelReady(page);
}

/**
 * The same in the presenter view (`&view=presenter`), for tests that look at what only the presenter
 * sees: the backend and pack, each reply's developer line, the header's tools (New conversation,
 * Export, Replay, Pool and datasets). The plain address is the visitor's page.
 */
export async function openPresenter(page: Page, packId = 'test-tiny-clip', more = ''): Promise<void> {
  await openReady(page, packId, `&view=presenter${more}`);
}

export async function sendText(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

/** Messages as the list shows them: who said it, and its text. */
export async function conversation(page: Page): Promise<string[]> {
  return page
    .getByRole('list', { name: 'Conversation' })
    .getByRole('listitem')
    .filter({ has: page.locator('p, img') })
    .allInnerTexts();
}

/** A real 12000 x 12000 PNG (1-bit, all black): tiny on disk, 576 MB once decoded to RGBA. */
export function hugePng(side = 12000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale
  const rows = Buffer.alloc((1 + Math.ceil(side / 8)) * side);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Drops files on the chat the way a browser does: dragenter, dragover, drop with a DataTransfer. */
export async function dropFiles(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, mimeType: f.mimeType, data: Array.from(f.buffer) }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const item of items) dt.items.add(new File([new Uint8Array(item.data)], item.name, { type: item.mimeType }));
    return dt;
  }, payload);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('main', type, { dataTransfer });
}

/** Pastes files into the composer as the clipboard would. */
export async function pasteFiles(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, mimeType: f.mimeType, data: Array.from(f.buffer) }));
  await page.getByRole('textbox', { name: 'Message' }).evaluate((el, items) => {
    const dt = new DataTransfer();
    for (const item of items) dt.items.add(new File([new Uint8Array(item.data)], item.name, { type: item.mimeType }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, payload);
}

type FilePayload = { name: string; mimeType: string; buffer: Buffer };

/** Clicks "Add photos" and picks files in the file chooser that opens, as a person does. */
export async function choosePhotos(page: Page, files: FilePayload | FilePayload[] | string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add photos' }).click();
  await (await chooser).setFiles(files);
}

/** Exports the conversation through the Export menu; returns the zip's name, where it was saved, and its files. */
export async function exportConversationAs(
  page: Page,
  format: 'MMDialog JSON' | 'Markdown',
): Promise<{ name: string; path: string; files: Record<string, Uint8Array> }> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export' }).click();
  await page.getByRole('menuitem', { name: new RegExp(`^${format} `) }).click();
  const file = await download;
  const path = join(mkdtempSync(join(tmpdir(), 'mmdialog-export-')), file.suggestedFilename());
  await file.saveAs(path);
  return { name: file.suggestedFilename(), path, files: unzipSync(new Uint8Array(readFileSync(path))) };
}

export async function openPoolDialog(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Pool and datasets' }).click();
  await expect(page.getByRole('dialog', { name: 'Candidate pool' })).toBeVisible();
}

/**
 * Writes a conversation where the app keeps it (IndexedDB: the slot's pointer and one record per
 * message), as if an earlier visit had left it; a reload shows it.
 */
export async function storeConversation(page: Page, slot: 'main' | 'kiosk', messages: ({ id: string } & Record<string, unknown>)[]): Promise<void> {
  await page.evaluate(
    async ({ slot, messages }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('mmdialog');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('The IndexedDB request failed.'));
      });
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('conversation', 'readwrite');
        const store = tx.objectStore('conversation');
        store.put('stored-earlier', `current:${slot}`);
        for (const m of messages) store.put(m, `msg:stored-earlier:${m.id}`);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error ?? new Error('The IndexedDB write failed.'));
      });
      db.close();
    },
    { slot, messages },
  );
}

/** The messages stored in IndexedDB (every conversation), as the app wrote them: a test reloads once a turn is stored. */
export async function storedMessages(page: Page): Promise<{ id: string; role: string; elements: { kind: string; description?: string }[] }[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('mmdialog');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('The IndexedDB request failed.'));
    });
    try {
      if (!db.objectStoreNames.contains('conversation')) return [];
      return await new Promise((resolve, reject) => {
        const request = db.transaction('conversation', 'readonly').objectStore('conversation').getAll(IDBKeyRange.bound('msg:', 'msg:\uffff'));
        request.onsuccess = () => resolve(request.result as { id: string; role: string; elements: { kind: string; description?: string }[] }[]);
        request.onerror = () => reject(request.error ?? new Error('The IndexedDB request failed.'));
      });
    } finally {
      db.close();
    }
  });
}
