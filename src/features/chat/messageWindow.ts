/**
 * How many of the latest messages are on the page; earlier ones wait behind a button. A booth
 * conversation of 300 exchanges would otherwise keep 7,000 DOM nodes and their listeners alive, and
 * every new message would lay them all out again.
 */
export const SHOWN_MESSAGES = 60;

/** The messages on the page: the latest `shown`, never cutting a reply from the turn it answers. */
export function visibleMessages<M extends { role: 'user' | 'assistant' }>(messages: readonly M[], shown: number): { hidden: number; visible: readonly M[] } {
  let start = Math.max(0, messages.length - shown);
  if (start > 0 && messages[start]!.role === 'assistant') start--;
  return { hidden: start, visible: messages.slice(start) };
}
