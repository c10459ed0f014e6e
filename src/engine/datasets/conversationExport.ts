import { EngineError, errorMessage } from '../errors';
import type { ImageFormat } from '../image/imageFormat';
import { methodName } from '../response/methods';
import { DIALOGUE_LIMITS, readDialogueRecord } from './mmdialog';
import type { MmdialogElementJson, MmdialogRecordJson } from './mmdialogExport';
import { isMediaKey } from './validation';

/**
 * A chat written out as files: one MMDialog record (conversations.json, with the images under their
 * media keys, so the app's own dataset loader reads it back) or a Markdown transcript. Pure: the
 * caller fetches the image bytes, says their formats, and zips what comes back.
 */

/** An image of the conversation: a photo the person shared (by its id) or a pool image (by its key). */
export type ExportImageRef = { readonly kind: 'photo'; readonly id: string } | { readonly kind: 'poolImage'; readonly key: string };

type ExportElement =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'photo'; readonly id: string; readonly name: string; readonly caption?: string }
  | { readonly kind: 'poolImage'; readonly key: string; readonly alt: string };

export interface ExportMessage {
  readonly role: 'user' | 'assistant';
  /** Milliseconds since 1970 (UTC). */
  readonly createdAt: number;
  readonly elements: readonly ExportElement[];
  /** How a reply was made: a ResponseMethodId, or (from a conversation saved by an older version) a method since renamed. */
  readonly reply?: { readonly method: string; readonly intentModel: 'majority' | 'head'; readonly screened?: boolean };
}

/** Where an image came from and under which terms, as the pool's catalogue says. */
interface ImageCredit {
  readonly source: string;
  readonly licence: string;
  readonly author?: string;
  readonly sourceUrl?: string;
  readonly kind?: 'sticker' | 'photo' | 'scene' | 'image';
}

export interface ExportImage {
  readonly format: ImageFormat;
  readonly credit?: ImageCredit;
}

export interface ConversationExportInput {
  readonly messages: readonly ExportMessage[];
  /** The images whose bytes the caller has, by exportImageId; any other image is left out and reported. */
  readonly images: ReadonlyMap<string, ExportImage>;
  /** When the export is made, ms since 1970: names the folder and heads the transcript. */
  readonly exportedAt: number;
  readonly packName?: string;
  readonly poolName?: string;
  readonly speakers?: { readonly user: string; readonly assistant: string };
}

/** A file of the export, its path starting with the export's folder. */
type ExportFile = { readonly path: string; readonly text: string } | { readonly path: string; readonly image: ExportImageRef };

export interface ConversationExport {
  /** The folder every file is in; also the name of the zip without ".zip". */
  readonly folder: string;
  readonly files: readonly ExportFile[];
  /** Images named in the conversation that the caller could not supply, as sentences. */
  readonly missing: readonly string[];
}

export interface MmdialogExport extends ConversationExport {
  /** One record, or consecutive parts of at most DIALOGUE_LIMITS.turnsPerDialogue turns for a long chat. */
  readonly records: readonly MmdialogRecordJson[];
}

const DEFAULT_SPEAKERS = { user: 'You', assistant: 'System' } as const;
const EXTENSION: Record<ImageFormat, string> = { jpeg: 'jpg', png: 'png', gif: 'gif', webp: 'webp', bmp: 'bmp' };

/** The id of an image in ConversationExportInput.images. */
export function exportImageId(ref: ExportImageRef): string {
  return ref.kind === 'photo' ? `photo:${ref.id}` : `pool:${ref.key}`;
}

function refOf(element: ExportElement): ExportImageRef | null {
  if (element.kind === 'photo') return { kind: 'photo', id: element.id };
  if (element.kind === 'poolImage') return { kind: 'poolImage', key: element.key };
  return null;
}

/** Every image the conversation shows, once each, in order of first appearance: what the caller has to fetch. */
export function exportImageRefs(messages: readonly ExportMessage[]): ExportImageRef[] {
  const seen = new Set<string>();
  const out: ExportImageRef[] = [];
  for (const message of messages) {
    for (const element of message.elements) {
      const ref = refOf(element);
      if (ref && !seen.has(exportImageId(ref))) {
        seen.add(exportImageId(ref));
        out.push(ref);
      }
    }
  }
  return out;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** 2025-03-04 12:01 UTC: no locale or time zone, so the same input always gives the same text. */
export function formatUtc(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())} UTC`;
}

function folderName(exportedAt: number, suffix: string): string {
  const d = new Date(exportedAt);
  const stamp = `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}-${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}`;
  return `conversation-${stamp}-${suffix}`;
}

interface PlannedImage {
  readonly ref: ExportImageRef;
  readonly key: string;
  /** Relative to the export's folder. */
  readonly file: string;
  readonly image: ExportImage;
}

interface MediaPlan {
  /** By exportImageId; images the caller could not supply are absent. */
  readonly byId: ReadonlyMap<string, PlannedImage>;
  readonly ordered: readonly PlannedImage[];
  readonly missing: readonly string[];
}

/**
 * Gives each image a media key and a file name: the person's photos become photo-1, photo-2, ... in the
 * order they were shared; pool images keep their pool key. Keys are unique regardless of letter case,
 * so the files do not collide on a case-insensitive disk.
 */
function planMedia(input: ConversationExportInput): MediaPlan {
  const taken = new Set<string>();
  const claim = (wanted: string) => {
    let key = wanted;
    for (let n = 2; taken.has(key.toLowerCase()); n++) key = `${wanted}-${n}`;
    taken.add(key.toLowerCase());
    return key;
  };
  const seen = new Set<string>();
  const byId = new Map<string, PlannedImage>();
  const ordered: PlannedImage[] = [];
  const missing: string[] = [];
  let photos = 0;
  for (const message of input.messages) {
    for (const element of message.elements) {
      if (element.kind === 'text') continue;
      const ref = refOf(element)!;
      const id = exportImageId(ref);
      if (seen.has(id)) continue;
      seen.add(id);
      if (element.kind === 'photo') photos++;
      const image = input.images.get(id);
      if (!image) {
        missing.push(
          element.kind === 'photo'
            ? `Your photo "${element.name}" is not stored any more, so it is left out.`
            : `The pool image "${element.alt}" could not be read, so it is left out.`,
        );
        continue;
      }
      const wanted = element.kind === 'photo' ? `photo-${photos}` : isMediaKey(element.key) ? element.key : 'image';
      const key = claim(wanted);
      const planned: PlannedImage = { ref, key, file: `images/${key}.${EXTENSION[image.format]}`, image };
      byId.set(id, planned);
      ordered.push(planned);
    }
  }
  return { byId, ordered, missing };
}

/** Cuts a text longer than MMDialog's element limit at spaces, into elements that each fit. */
function splitLongText(text: string, limit: number = DIALOGUE_LIMITS.textChars): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    const cut = space > limit / 2 ? space : limit;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/**
 * The conversation as MMDialog records (one, or parts of a long chat). Speakers alternate by turn in MMDialog, so consecutive
 * messages of one side (a turn whose reply failed, then the next turn) are merged into one turn, and
 * messages left empty (only images that are gone) are dropped.
 */
function recordsOf(input: ConversationExportInput, plan: MediaPlan): MmdialogRecordJson[] {
  const turns: { role: ExportMessage['role']; turn: MmdialogElementJson[] }[] = [];
  for (const message of input.messages) {
    const elements: MmdialogElementJson[] = [];
    for (const element of message.elements) {
      if (element.kind === 'text') {
        for (const piece of splitLongText(element.text)) elements.push({ __TEXT__: piece });
      } else {
        const planned = plan.byId.get(exportImageId(refOf(element)!));
        if (planned) elements.push({ __MEDIA__: planned.key });
      }
    }
    if (elements.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last && last.role === message.role) last.turn.push(...elements);
    else turns.push({ role: message.role, turn: elements });
  }
  const first = input.messages[0]?.createdAt ?? input.exportedAt;
  // MMDialog's ids are numbers; the time the chat began is one that two exports of one chat share.
  const id = Number.isSafeInteger(first) && first >= 0 ? first : 0;
  // A chat longer than the loader's limit becomes consecutive parts, each of an even number of turns,
  // so every part starts with the same speaker as the chat did; the loader reads them back as dialogues.
  const size = DIALOGUE_LIMITS.turnsPerDialogue - (DIALOGUE_LIMITS.turnsPerDialogue % 2);
  const records: MmdialogRecordJson[] = [];
  for (let start = 0; start < turns.length; start += size) {
    const part = start / size + 1;
    records.push({ conversation_id: part === 1 ? id : `${id}-part-${part}`, conversation: turns.slice(start, start + size).map((t) => ({ turn: t.turn })) });
  }
  return records;
}

function mediaCatalogue(plan: MediaPlan, input: ConversationExportInput): string {
  const items = plan.ordered.map((p) => {
    const element = findElement(input, p.ref);
    const alt = element?.kind === 'photo' ? (element.caption ?? element.name) : element?.kind === 'poolImage' ? element.alt : p.key;
    const credit = p.image.credit;
    const item: Record<string, string> = {
      key: p.key,
      file: p.file,
      kind: credit?.kind ?? (p.ref.kind === 'photo' ? 'photo' : 'image'),
      alt,
      source: credit?.source ?? (p.ref.kind === 'photo' ? 'shared in the conversation' : 'unknown'),
      licence: credit?.licence ?? 'unknown',
    };
    if (credit?.author) item['author'] = credit.author;
    if (credit?.sourceUrl) item['sourceUrl'] = credit.sourceUrl;
    return item;
  });
  return `${JSON.stringify({ version: 1, items }, null, 2)}\n`;
}

function findElement(input: ConversationExportInput, ref: ExportImageRef): ExportElement | undefined {
  const id = exportImageId(ref);
  for (const message of input.messages) {
    for (const element of message.elements) {
      const r = refOf(element);
      if (r && exportImageId(r) === id) return element;
    }
  }
  return undefined;
}

function imageFiles(folder: string, plan: MediaPlan): ExportFile[] {
  return plan.ordered.map((p) => ({ path: `${folder}/${p.file}`, image: p.ref }));
}

/**
 * conversations.json (a list holding one record, or its parts for a long chat), media.json (alt texts and credits, which the
 * loader keeps) and the images named by their media keys. The record is read back with the loader's
 * own validator before it is returned, so an export the loader would refuse is never written.
 */
export function buildMmdialogExport(input: ConversationExportInput): MmdialogExport {
  if (input.messages.length === 0) throw new EngineError('invalid-input', 'The conversation is empty, so there is nothing to export. Send a message first.');
  const plan = planMedia(input);
  const records = recordsOf(input, plan);
  if (records.length === 0) {
    throw new EngineError(
      'invalid-input',
      'Nothing in this conversation can be exported: its only images are no longer stored. Export it as Markdown instead, or start a new one.',
    );
  }
  const keys = new Set(plan.ordered.map((p) => p.key));
  try {
    for (const record of records) readDialogueRecord(record, { file: 'conversations.json', hasMedia: (key) => keys.has(key) });
  } catch (cause) {
    throw new EngineError(
      'invalid-input',
      `This conversation cannot be written as MMDialog JSON: ${errorMessage(cause)} The Markdown export has no such limit.`,
      { cause },
    );
  }
  const folder = folderName(input.exportedAt, 'mmdialog');
  return {
    folder,
    records,
    files: [
      { path: `${folder}/conversations.json`, text: `${JSON.stringify(records, null, 2)}\n` },
      // No media.json without images: an empty catalogue says nothing (older loaders refused it).
      ...(plan.ordered.length > 0 ? [{ path: `${folder}/media.json`, text: mediaCatalogue(plan, input) }] : []),
      ...imageFiles(folder, plan),
    ],
    missing: plan.missing,
  };
}

// ---------------------------------------------------------------------------------------------
// Markdown.

/**
 * Text as Markdown shows it literally: inline markup characters are escaped, and so are the line
 * starts that would make a heading, quote, list or code fence. Line breaks are kept (CommonMark hard
 * breaks); blank lines stay paragraph breaks.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) =>
          line
            .replace(/[\\`*_[\]<>&|]/g, (c) => `\\${c}`)
            .replace(/^(\s*)([#>+=~-])/, '$1\\$2')
            .replace(/^(\s*\d+)([.)])/, '$1\\$2'),
        )
        .join('\\\n'),
    )
    .join('\n\n');
}

/** Alt text and link titles: one line, with the brackets that would end them escaped. */
function escapeInline(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\[\]]/g, (c) => `\\${c}`);
}

function replyNote(reply: ExportMessage['reply']): string {
  if (!reply) return '';
  if (reply.screened) return ' · a line written for the demo (the message before was screened)';
  return ` · reply by ${methodName(reply.method)}, intent ${reply.intentModel === 'head' ? 'trained' : 'majority'}`;
}

function creditLine(credit: ImageCredit | undefined): string {
  if (!credit || (credit.licence === 'unknown' && credit.source === 'unknown')) return '';
  const by = credit.author ? `${credit.author}, ` : '';
  const source = credit.sourceUrl
    ? `[${escapeInline(credit.source)}](${credit.sourceUrl.replace(/[ ()<>]/g, encodeURIComponent)})`
    : escapeMarkdown(credit.source);
  return `Image: ${escapeMarkdown(by)}${escapeMarkdown(credit.licence)} (${source})`;
}

/**
 * A transcript a person can read: who said what and when, each reply's method, and the images as
 * relative links (to images/ beside the file) with their alt text, captions and credits.
 */
export function buildMarkdownExport(input: ConversationExportInput): ConversationExport {
  if (input.messages.length === 0) throw new EngineError('invalid-input', 'The conversation is empty, so there is nothing to export. Send a message first.');
  const plan = planMedia(input);
  const speakers = input.speakers ?? DEFAULT_SPEAKERS;
  const folder = folderName(input.exportedAt, 'markdown');
  const turns = input.messages.filter((m) => m.role === 'user').length;
  const replies = input.messages.length - turns;
  const about = [
    `${turns} ${turns === 1 ? 'turn' : 'turns'} by ${speakers.user.toLowerCase() === 'you' ? 'you' : speakers.user}`,
    `${replies} ${replies === 1 ? 'reply' : 'replies'}`,
  ];
  if (input.packName) about.push(`model pack ${input.packName}`);
  if (input.poolName) about.push(`pool ${input.poolName}`);
  const lines: string[] = [
    '# Conversation',
    '',
    `Exported from MMDialog in the browser on ${formatUtc(input.exportedAt)} · ${escapeMarkdown(about.join(' · '))}`,
  ];

  for (const message of input.messages) {
    const name = message.role === 'user' ? speakers.user : speakers.assistant;
    lines.push('', '---', '', `**${escapeMarkdown(name)}** · ${formatUtc(message.createdAt)}${replyNote(message.reply)}`);
    if (message.elements.length === 0) lines.push('', '*(no reply)*');
    for (const element of message.elements) {
      lines.push('');
      if (element.kind === 'text') {
        lines.push(escapeMarkdown(element.text));
        continue;
      }
      const planned = plan.byId.get(exportImageId(refOf(element)!));
      if (element.kind === 'photo') {
        const alt = element.caption ? `Photo: ${element.caption}` : `Photo ${element.name}`;
        if (planned) lines.push(`![${escapeInline(alt)}](${planned.file})`);
        else lines.push(`*(photo "${escapeMarkdown(element.name)}" no longer stored)*`);
        const detail = element.caption
          ? `*${escapeMarkdown(element.caption)}* (caption found by the system for “${escapeMarkdown(element.name)}”)`
          : `*${escapeMarkdown(element.name)}*`;
        lines.push('', detail);
      } else {
        if (planned) {
          lines.push(`![${escapeInline(element.alt)}](${planned.file})`);
          const credit = creditLine(planned.image.credit);
          lines.push('', `*${escapeMarkdown(element.alt)}*${credit ? ` · ${credit}` : ''}`);
        } else lines.push(`*(image "${escapeMarkdown(element.alt)}" no longer available)*`);
      }
    }
  }
  return {
    folder,
    files: [{ path: `${folder}/conversation.md`, text: `${lines.join('\n')}\n` }, ...imageFiles(folder, plan)],
    missing: plan.missing,
  };
}
