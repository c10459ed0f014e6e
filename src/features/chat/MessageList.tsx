import { useEffect, useRef } from 'react';
import { type ChatMessage, type MessageElement, useChatStore } from '../../stores/chatStore';
import { useImageUrl } from './useImageUrl';

function MessageImage({ element }: { element: Extract<MessageElement, { kind: 'image' }> }) {
  const url = useImageUrl(element.imageId);
  return url ? (
    <img src={url} alt={`Shared photo: ${element.name}`} width={element.width} height={element.height} className="max-h-48 w-auto rounded-lg border border-slate-200 object-contain" />
  ) : (
    <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 text-xs text-slate-600">{element.name}</div>
  );
}

function Message({ message }: { message: ChatMessage }) {
  const mine = message.role === 'user';
  return (
    <li className={`flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You said' : 'The system replied'}>
      <div className={`flex max-w-[80%] flex-col gap-2 rounded-2xl px-4 py-2 shadow-sm ${mine ? 'bg-blue-700 text-white' : 'bg-white text-slate-900'}`}>
        {message.elements.map((element, i) =>
          element.kind === 'text' ? (
            <p key={i} className="whitespace-pre-wrap break-words" data-testid={mine ? undefined : 'reply-text'}>{element.text}</p>
          ) : (
            <MessageImage key={element.imageId} element={element} />
          ),
        )}
        {message.reply && (
          <p className="text-xs text-slate-600" data-testid="reply-meta">
            nearest pool text · cosine {message.reply.score.toFixed(3)} · {message.reply.totalMs.toFixed(0)} ms on {message.reply.provider.toUpperCase()}
          </p>
        )}
      </div>
    </li>
  );
}

export function MessageList() {
  const messages = useChatStore((s) => s.messages);
  const hydrated = useChatStore((s) => s.hydrated);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [messages.length, awaitingReply]);
  return (
    <ol className="flex flex-1 flex-col gap-3 overflow-y-auto p-4" aria-label="Conversation" aria-live="polite">
      {hydrated && messages.length === 0 && (
        <li className="m-auto max-w-md text-center text-slate-600">Say hello, or share a photo: drop it here, paste it, or use “Add photos”.</li>
      )}
      {messages.map((m) => (
        <Message key={m.id} message={m} />
      ))}
      {awaitingReply && (
        <li className="text-sm text-slate-600" role="status">
          Thinking…
        </li>
      )}
      <li ref={end} aria-hidden="true" />
    </ol>
  );
}
