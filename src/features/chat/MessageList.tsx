import { useEffect, useRef } from 'react';
import { type ChatMessage, type MessageElement, useChatStore } from '../../stores/chatStore';
import { ReplyReference } from './ReplyReference';
import { usePoolImageUrl, useImageUrl } from './useImageUrl';

function MessageImage({ element }: { element: Extract<MessageElement, { kind: 'image' }> }) {
  const url = useImageUrl(element.imageId);
  return (
    <figure className="flex flex-col gap-1">
      {url ? (
        <img src={url} alt={element.caption ? `Shared photo: ${element.caption}` : `Shared photo: ${element.name}`} width={element.width} height={element.height} className="max-h-48 w-auto rounded-lg border border-slate-200 object-contain" />
      ) : (
        <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 text-xs text-slate-600">{element.name}</div>
      )}
      {element.caption && <figcaption className="text-xs opacity-90" data-testid="photo-caption">{element.caption}</figcaption>}
    </figure>
  );
}

export function PoolImage({ element }: { element: Extract<MessageElement, { kind: 'poolImage' }> }) {
  const url = usePoolImageUrl(element.poolId, element.key, element.url);
  return url ? (
    <img src={url} alt={element.alt} data-testid="reply-image" className="max-h-40 w-auto self-start rounded-lg object-contain" />
  ) : (
    <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 p-2 text-center text-xs text-slate-600">{element.alt}</div>
  );
}

const METHOD_NAMES: Record<string, string> = {
  depp: 'trained heads (DE++)',
  'clip-map': 'clip-map',
  'clip-sim': 'CLIP similarity',
  bm25: 'BM25',
  tfidf: 'tf-idf',
  random: 'random',
};

function Message({ message }: { message: ChatMessage }) {
  const mine = message.role === 'user';
  return (
    <li className={`flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You said' : 'The system replied'}>
      <div className={`flex max-w-[80%] flex-col gap-2 rounded-2xl px-4 py-2 shadow-sm ${mine ? 'bg-blue-700 text-white' : 'bg-white text-slate-900'}`}>
        {message.elements.map((element, i) =>
          element.kind === 'text' ? (
            <p key={i} className="whitespace-pre-wrap break-words" data-testid={mine ? undefined : 'reply-text'}>{element.text}</p>
          ) : element.kind === 'image' ? (
            <MessageImage key={element.imageId} element={element} />
          ) : (
            <PoolImage key={`${element.key}-${i}`} element={element} />
          ),
        )}
        {message.reply?.timings && (  // replies saved by an older version carry no timings: no meta line
          <p className="text-xs text-slate-600" data-testid="reply-meta">
            {METHOD_NAMES[message.reply.method] ?? message.reply.method} · intent {message.reply.intentModel === 'head' ? 'trained' : 'majority'} · CLIP cosine to your turn {message.reply.relevance.toFixed(3)} (not MM-Relevance) ·{' '}
            {message.reply.timings.totalMs.toFixed(0)} ms on {message.reply.provider.toUpperCase()}
          </p>
        )}
        {!mine && <ReplyReference message={message} />}
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
