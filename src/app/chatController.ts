import { type ChatMessage, chatActions, useChatStore } from '../stores/chatStore';
import { useModelStore } from '../stores/modelStore';
import { clearConversationDb, loadImage, loadMessages, saveTurn } from '../persistence/conversationDb';
import { useSettingsStore } from '../stores/settingsStore';
import type { HistoryElement, HistoryTurn } from '../worker/protocol';
import { engine } from './engine';

const MAX_IMAGES_PER_TURN = 8;
/** Counts "New conversation" clicks, so a reply still in flight knows its conversation is gone. */
let conversationEpoch = 0;

function newId(): string {
  return crypto.randomUUID();
}

export async function restoreConversation(): Promise<void> {
  try {
    chatActions.hydrate(await loadMessages());
  } catch (error) {
    chatActions.hydrate([]);
    chatActions.notify('error', `The saved conversation could not be read (${String(error)}); starting a new one.`);
  }
}

/** Checks each file in the worker (type, size, decodability) before it joins the draft. */
export async function attachImages(files: readonly File[]): Promise<void> {
  for (const file of files) {
    if (useChatStore.getState().draftImages.length >= MAX_IMAGES_PER_TURN) {
      chatActions.notify('error', `A message can carry up to ${MAX_IMAGES_PER_TURN} photos. Send these first, then add more.`);
      return;
    }
    chatActions.setChecking(1);
    try {
      const checked = await engine.call('checkImage', { image: { name: file.name, blob: file } });
      chatActions.addDraftImage({ imageId: newId(), name: file.name || 'pasted image', blob: file, width: checked.width, height: checked.height });
    } catch (error) {
      chatActions.notify('error', error instanceof Error ? error.message : String(error));
    } finally {
      chatActions.setChecking(-1);
    }
  }
}

/** Sends the composer's text and photos as one turn; returns false when there was nothing to send. */
export async function sendTurn(rawText: string): Promise<boolean> {
  const text = rawText.trim();
  const { draftImages, awaitingReply, messages, hydrated } = useChatStore.getState();
  if (text === '' && draftImages.length === 0) {
    chatActions.notify('error', 'The message is empty. Type something or add a photo, then send.');
    return false;
  }
  if (awaitingReply || !hydrated) return false;
  if (useModelStore.getState().phase !== 'ready') {
    chatActions.notify('error', 'The model is not ready yet. Wait for the status to say "Ready", then send again; your message is still in the box.');
    return false;
  }
  const userMessage: ChatMessage = {
    id: newId(),
    role: 'user',
    createdAt: Date.now(),
    elements: [
      ...draftImages.map((d) => ({ kind: 'image' as const, imageId: d.imageId, name: d.name, width: d.width, height: d.height })),
      ...(text ? [{ kind: 'text' as const, text }] : []),
    ],
  };
  const epoch = conversationEpoch;
  chatActions.appendMessage(userMessage);
  chatActions.clearDraftImages();
  chatActions.setAwaitingReply(true);
  void saveTurn([...messages, userMessage], draftImages).catch((e: unknown) => chatActions.notify('error', `This turn could not be saved for later (${String(e)}).`));
  try {
    const history = await historyOf(messages);
    const reply = await engine.call('reply', {
      history,
      texts: text ? [text] : [],
      images: draftImages.map((d) => ({ name: d.name, blob: d.blob, imageId: d.imageId })),
      method: useSettingsStore.getState().method,
    });
    const poolId = useSettingsStore.getState().poolId;
    const assistantMessage: ChatMessage = {
      id: newId(),
      role: 'assistant',
      createdAt: Date.now(),
      elements: reply.elements.map((e) => (e.kind === 'text' ? { kind: 'text' as const, text: e.text } : { kind: 'poolImage' as const, key: e.key, alt: e.alt, url: e.url, poolId })),
      reply: {
        method: reply.method,
        intentModel: reply.intentModel,
        relevance: reply.relevance,
        steps: reply.steps,
        timings: reply.timings,
        provider: reply.backend.provider,
        backend: reply.backend,
        packName: activePackName(),
        poolId,
        poolName: useModelStore.getState().pool?.name,
      },
    };
    // A reply to a conversation the user has since cleared is dropped.
    if (epoch !== conversationEpoch) return true;
    chatActions.setCaptions(userMessage.id, reply.captions);
    chatActions.appendMessage(assistantMessage);
    void saveTurn(useChatStore.getState().messages, []).catch((e: unknown) => chatActions.notify('error', `The reply could not be saved for later (${String(e)}).`));
  } catch (error) {
    chatActions.notify('error', `No reply this time: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    chatActions.setAwaitingReply(false);
  }
  return true;
}

function activePackName(): string | undefined {
  const { packs, activePackId } = useModelStore.getState();
  return packs.find((p) => p.id === activePackId)?.name ?? activePackId ?? undefined;
}

/** The conversation so far as the worker's context: texts, the person's photos (Blobs) and pool images by key. */
async function historyOf(messages: readonly ChatMessage[]): Promise<HistoryTurn[]> {
  return Promise.all(
    messages.map(async (m) => ({
      elements: (
        await Promise.all(
          m.elements.map(async (e): Promise<HistoryElement | null> => {
            if (e.kind === 'text') return { kind: 'text', text: e.text };
            if (e.kind === 'poolImage') return { kind: 'poolImage', key: e.key };
            const blob = await loadImage(e.imageId);
            return blob ? { kind: 'image', imageId: e.imageId, blob } : null;
          }),
        )
      ).filter((e): e is HistoryElement => e !== null),
    })),
  );
}

export async function startNewConversation(): Promise<void> {
  conversationEpoch++;
  chatActions.clearConversation();
  await clearConversationDb();
}
