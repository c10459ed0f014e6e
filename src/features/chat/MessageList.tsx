import { useEffect, useRef } from 'react';
import { methodName } from '../../engine/response/methods';
import type { ChatMessage, MessageElement } from '../../shared/conversation';
import { PoolImage, keepAtEnd } from '../../shared/ui/PoolImage';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import { useImageUrl } from '../../shared/ui/useImageUrl';
import { useChatStore } from './chatStore';
import { ReplyReference } from './ReplyReference';
import { StartScreen } from './StartScreen';

function MessageImage({ element }: { element: Extract<MessageElement, { kind: 'image' }> }) {
  const url = useImageUrl(element.imageId);
  return (
    <figure className="flex flex-col gap-1">
      {url ? (
        <img src={url} onLoad={keepAtEnd} alt={element.caption ? `Shared photo: ${element.caption}` : `Shared photo: ${element.name}`} width={element.width} height={element.height} className="max-h-48 w-auto rounded-lg border border-slate-200 object-contain" />
      ) : (
        <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 text-xs text-slate-600">{element.name}</div>
      )}
      {element.caption && <figcaption className="text-xs opacity-90" data-testid="photo-caption">{element.caption}</figcaption>}
    </figure>
  );
}

function Message({ message, presenter }: { message: ChatMessage; presenter: boolean }) {
  const mine = message.role === 'user';
  const emoji = useEmojiText();
  return (
    <li className={`flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You said' : 'The system replied'}>
      <div className={`flex max-w-[80%] flex-col gap-2 rounded-2xl px-4 py-2 shadow-sm ${mine ? 'bg-blue-700 text-white' : 'bg-white text-slate-900'}`}>
        {message.elements.map((element, i) =>
          element.kind === 'text' ? (
            <p key={i} className="whitespace-pre-wrap break-words" data-testid={mine ? undefined : 'reply-text'}>{emoji(element.text)}</p>
          ) : element.kind === 'image' ? (
            <MessageImage key={element.imageId} element={element} />
          ) : (
            <PoolImage key={`${element.key}-${i}`} element={element} />
          ),
        )}
        {presenter && message.reply?.timings && (  // replies saved by an older version carry no timings: no meta line
          <p className="text-xs text-slate-600" data-testid="reply-meta">
            {methodName(message.reply.method)} · intent {message.reply.intentModel === 'head' ? 'trained' : 'majority'} · CLIP cosine to your turn {message.reply.relevance.toFixed(3)} (not MM-Relevance) ·{' '}
            {message.reply.timings.totalMs.toFixed(0)} ms on {message.reply.provider.toUpperCase()}
          </p>
        )}
        {!mine && presenter && <ReplyReference message={message} />}
      </div>
    </li>
  );
}

/** The conversation; `presenter` adds each reply's developer line and the visitor's reference answer. */
export function MessageList({ presenter }: { presenter: boolean }) {
  const messages = useChatStore((s) => s.messages);
  const hydrated = useChatStore((s) => s.hydrated);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [messages.length, awaitingReply]);
  return (
    // Focusable, so a long conversation scrolls with the keyboard.
    <ol tabIndex={0} className="flex flex-1 flex-col gap-3 overflow-y-auto p-4 focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-600" aria-label="Conversation" aria-live="polite">
      {hydrated && messages.length === 0 && (
        <li className="m-auto">
          <StartScreen />
        </li>
      )}
      {messages.map((m) => (
        <Message key={m.id} message={m} presenter={presenter} />
      ))}
      {awaitingReply && (
        // The status role on the item itself would hide that it is a list item (axe: a list holds only items).
        <li className="text-sm text-slate-600">
          <span role="status">Thinking…</span>
        </li>
      )}
      <li ref={end} aria-hidden="true" />
    </ol>
  );
}
