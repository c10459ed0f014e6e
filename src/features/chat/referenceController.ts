import { errorMessage } from '../../engine/errors';
import type { VisitorReference } from '../../shared/conversation';
import { modelWorker } from '../../shared/modelWorker';
import { reportScoredTurn } from '../../shared/scoredTurns';
import { useModelStore } from '../../shared/stores/modelStore';
import type { HistoryElement } from '../../protocol/protocol';
import { chatActions, useChatStore, withCaption } from './chatStore';
import { saveChanged } from './chatPersistence';

/**
 * The visitor's own answer to a reply becomes that reply's reference: the worker scores the reply
 * against it with the engine's scoreResponse (MM-Relevance, Intent F1), the answer and its scores are
 * kept with the conversation, and the turn joins the session's running means.
 * Returns a sentence saying what went wrong, or null when the answer was scored.
 */
export async function answerReply(messageId: string, rawText: string, photos: readonly File[]): Promise<string | null> {
  const text = rawText.trim();
  if (text === '' && photos.length === 0) return 'Your answer is empty. Type what you would have said, or add a photo.';
  if (useModelStore.getState().phase !== 'ready') return 'The model is not ready yet. Wait for the status to say "Ready", then try again.';
  const message = useChatStore.getState().messages.find((m) => m.id === messageId);
  if (!message || message.role !== 'assistant') return 'That reply is no longer in the conversation.';
  try {
    const images: { imageId: string; name: string; blob: Blob; width: number; height: number }[] = [];
    for (const file of photos) {
      const checked = await modelWorker().call('checkImage', { image: { name: file.name, blob: file } });
      images.push({
        imageId: crypto.randomUUID(),
        name: file.name || 'pasted image',
        blob: file.slice(0, file.size, `image/${checked.format}`),
        width: checked.width,
        height: checked.height,
      });
    }
    const reply = message.elements.flatMap((e): HistoryElement[] =>
      e.kind === 'text' ? [{ kind: 'text', text: e.text }] : e.kind === 'poolImage' ? [{ kind: 'poolImage', key: e.key }] : [],
    );
    const reference: HistoryElement[] = [
      ...(text ? [{ kind: 'text' as const, text }] : []),
      ...images.map((i) => ({ kind: 'image' as const, imageId: i.imageId, blob: i.blob })),
    ];
    const { score, captions } = await modelWorker().call('scoreReference', { reply, reference });
    const caption = new Map(captions.map((c) => [c.imageId, c]));
    const answer: VisitorReference = {
      elements: [
        ...(text ? [{ kind: 'text' as const, text }] : []),
        ...images.map((i) => withCaption({ kind: 'image', imageId: i.imageId, name: i.name, width: i.width, height: i.height }, caption.get(i.imageId))),
      ],
      score,
    };
    if (!useChatStore.getState().messages.some((m) => m.id === messageId)) return null; // the conversation was cleared meanwhile
    chatActions.setReference(messageId, answer);
    reportScoredTurn({
      id: `chat:${messageId}`,
      source: 'chat',
      label: 'your answer to a reply',
      figures: { mmRelevance: score.mmRelevance.f1, intentF1: score.intentF1.f1, ranks: score.ranks },
    });
    const answered = useChatStore.getState().messages.find((m) => m.id === messageId);
    if (answered) void saveChanged([answered], images);
    return null;
  } catch (error) {
    return `Your answer could not be scored: ${errorMessage(error)}`;
  }
}
