import { errorMessage } from '../../engine/errors';
import { zipSync } from 'fflate';
import {
  type ConversationExport,
  type ExportImage,
  type ExportImageRef,
  type ExportMessage,
  buildMarkdownExport,
  buildMmdialogExport,
  exportImageId,
  exportImageRefs,
} from '../../engine/datasets/conversationExport';
import { readImageHeader } from '../../engine/image/imageFormat';
import { loadImage } from '../../persistence/conversationDb';
import { loadDatasetImage } from '../../persistence/datasetDb';
import type { ChatMessage } from '../../shared/conversation';
import { loadDemoPoolCredits } from '../../shared/demoPool';
import { useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { chatActions, useChatStore } from './chatStore';

export type ExportFormat = 'mmdialog' | 'markdown';

/** The text line that stands in an export for a video it cannot hold. */
function videoLine(video: Extract<ChatMessage['elements'][number], { kind: 'video' }>): string {
  return `[A video was shared here and is not in this export: ${video.name}, ${video.seconds.toFixed(1)} s${video.description ? `. What was seen: ${video.description}` : ''}]`;
}

/** The notice's sentence about videos left out, or '' when the conversation has none. */
function videosLeftOut(messages: readonly ChatMessage[]): string {
  const count = messages.reduce((n, m) => n + m.elements.filter((e) => e.kind === 'video').length, 0);
  if (count === 0) return '';
  const videos = count === 1 ? '1 video was' : `${count} videos were`;
  return ` ${videos} left out: the MMDialog and Markdown formats hold texts and images only, so each video is a text line there that names it and says what was seen. Keep the video files themselves if you need them.`;
}

function toExportMessage(message: ChatMessage): ExportMessage {
  return {
    role: message.role,
    createdAt: message.createdAt,
    elements: message.elements.map((e) =>
      e.kind === 'text'
        ? { kind: 'text', text: e.text }
        : e.kind === 'image'
          ? { kind: 'photo', id: e.imageId, name: e.name, ...(e.caption ? { caption: e.caption } : {}) }
          : e.kind === 'video'
            ? // The export formats have no video element: a video goes out as what was said about it, and says so.
              { kind: 'text', text: videoLine(e) }
            : { kind: 'poolImage', key: e.key, alt: e.alt },
    ),
    // The export formats describe replies of the pool; an answer about a video goes out as its text alone.
    ...(message.reply && !message.reply.video
      ? { reply: { method: message.reply.method, intentModel: message.reply.intentModel, ...(message.reply.screened ? { screened: true } : {}) } }
      : {}),
  };
}

/** Where each pool image of the conversation is read from: the demo pool's file, or the stored dataset. */
function poolSources(messages: readonly ChatMessage[]): Map<string, { url: string | null; poolId: string }> {
  const out = new Map<string, { url: string | null; poolId: string }>();
  for (const m of messages) for (const e of m.elements) if (e.kind === 'poolImage' && !out.has(e.key)) out.set(e.key, { url: e.url, poolId: e.poolId });
  return out;
}

async function readRef(ref: ExportImageRef, sources: Map<string, { url: string | null; poolId: string }>): Promise<Uint8Array | null> {
  try {
    let blob: Blob | undefined;
    if (ref.kind === 'photo') blob = await loadImage(ref.id);
    else {
      const source = sources.get(ref.key);
      if (source?.url) {
        const response = await fetch(source.url);
        if (response.ok) blob = await response.blob();
      } else if (source) blob = await loadDatasetImage(source.poolId, ref.key);
    }
    return blob ? new Uint8Array(await blob.arrayBuffer()) : null;
  } catch {
    return null; // reported by the engine as an image left out
  }
}

/**
 * Writes the conversation as a zip and hands it to the browser as a download: MMDialog JSON
 * (conversations.json, media.json, images named by their media keys; the Pool and datasets dialog
 * loads it back) or a Markdown transcript with its images.
 */
export async function exportConversation(format: ExportFormat): Promise<void> {
  const { messages } = useChatStore.getState();
  if (messages.length === 0) {
    noticeActions.notify('info', 'There is nothing to export yet: the conversation is empty.');
    return;
  }
  if (useChatStore.getState().exporting) return;
  chatActions.setExporting(true);
  try {
    const input = messages.map(toExportMessage);
    const sources = poolSources(messages);
    // Without the credits (not loadable now) the export still goes ahead, naming no sources.
    const demoCredits = [...sources.values()].some((s) => s.poolId === 'demo') ? await loadDemoPoolCredits().catch(() => []) : [];
    const credits = new Map(demoCredits.map((c) => [c.key, c]));
    const bytes = new Map<string, Uint8Array>();
    const images = new Map<string, ExportImage>();
    for (const ref of exportImageRefs(input)) {
      const data = await readRef(ref, sources);
      const header = data ? readImageHeader(data) : null;
      if (!data || !header) continue;
      const id = exportImageId(ref);
      bytes.set(id, data);
      const credit = ref.kind === 'poolImage' && sources.get(ref.key)?.poolId === 'demo' ? credits.get(ref.key) : undefined;
      images.set(id, {
        format: header.format,
        ...(credit
          ? {
              credit: {
                source: credit.source,
                licence: credit.licence,
                kind: credit.kind,
                ...(credit.author ? { author: credit.author } : {}),
                ...(credit.sourceUrl ? { sourceUrl: credit.sourceUrl } : {}),
              },
            }
          : {}),
      });
    }
    const model = useModelStore.getState();
    const packName = model.packs.find((p) => p.id === model.activePackId)?.name;
    const built: ConversationExport = (format === 'mmdialog' ? buildMmdialogExport : buildMarkdownExport)({
      messages: input,
      images,
      exportedAt: Date.now(),
      ...(packName ? { packName } : {}),
      ...(model.pool ? { poolName: model.pool.name } : {}),
    });
    const encoder = new TextEncoder();
    const entries: Record<string, [Uint8Array, { level: 0 | 6 }]> = {};
    for (const file of built.files) {
      // Images are compressed already; storing them as they are saves time for nothing lost.
      entries[file.path] = 'text' in file ? [encoder.encode(file.text), { level: 6 }] : [bytes.get(exportImageId(file.image))!, { level: 0 }];
    }
    const name = `${built.folder}.zip`;
    download(name, zipSync(entries));
    const imageCount = built.files.filter((f) => 'image' in f).length;
    const what = format === 'mmdialog' ? 'MMDialog JSON; load it back under Pool and datasets' : 'Markdown';
    const leftOut = videosLeftOut(messages);
    noticeActions.notify(
      built.missing.length > 0 || leftOut ? 'error' : 'info',
      `Saved ${name} (${what}): ${messages.length} messages, ${imageCount} images.${leftOut}${built.missing.length > 0 ? ` ${built.missing.join(' ')}` : ''}`,
    );
  } catch (error) {
    noticeActions.notify('error', `The conversation could not be exported: ${errorMessage(error)}`);
  } finally {
    chatActions.setExporting(false);
  }
}

function download(name: string, data: Uint8Array): void {
  const url = URL.createObjectURL(new Blob([data as Uint8Array<ArrayBuffer>], { type: 'application/zip' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by now; revoking later is enough to free the memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
