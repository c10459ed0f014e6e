import type { SyntheticEvent } from 'react';
import type { MessageElement } from '../conversation';
import { usePoolImageUrl } from './useImageUrl';

/** An image that loads after the list scrolled to the end pushes the end out of view: follow it, if the list was at the end. */
export function keepAtEnd(e: SyntheticEvent<HTMLImageElement>) {
  const img = e.currentTarget;
  const list = img.closest('ol');
  if (list && list.scrollHeight - list.scrollTop - list.clientHeight <= img.offsetHeight + 48) list.scrollTop = list.scrollHeight;
}

/** An image of the candidate pool, in a reply or a replayed dialogue: the demo pool's file, or a stored dataset's image. */
export function PoolImage({ element, heightClass = 'max-h-40' }: { element: Extract<MessageElement, { kind: 'poolImage' }>; heightClass?: string }) {
  const url = usePoolImageUrl(element.poolId, element.key, element.url);
  return url ? (
    <img
      src={url}
      onLoad={keepAtEnd}
      alt={element.alt}
      data-testid="reply-image"
      className={`${heightClass} w-auto max-w-full self-start rounded-lg object-contain`}
    />
  ) : (
    <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 p-2 text-center text-xs text-slate-600">{element.alt}</div>
  );
}
