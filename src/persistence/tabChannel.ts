/**
 * A BroadcastChannel for telling the page's other tabs what this tab wrote.
 *
 * One channel object both sends and listens, on purpose: a channel never hears its own messages,
 * but a second BroadcastChannel of the same name in the same tab does. With two objects, each write
 * of this tab came back to it as another tab's, late under load, and reloading the conversation then
 * wiped a turn sent in between.
 */
export interface TabChannel<T> {
  /** Tells the other tabs; this tab does not hear it. */
  post(message: T): void;
  /** Calls onMessage for each message from another tab; returns the unsubscribe. */
  listen(onMessage: (message: T) => void): () => void;
}

export function tabChannel<T>(name: string): TabChannel<T> {
  let channel: BroadcastChannel | null = null;
  const open = (): BroadcastChannel | null => {
    if (typeof BroadcastChannel === 'undefined') return null;
    channel ??= new BroadcastChannel(name);
    return channel;
  };
  return {
    post: (message) => open()?.postMessage(message),
    listen: (onMessage) => {
      const opened = open();
      if (opened === null) return () => undefined;
      const listener = (event: MessageEvent<T>) => onMessage(event.data);
      opened.addEventListener('message', listener as EventListener);
      return () => opened.removeEventListener('message', listener as EventListener);
    },
  };
}
