import type { FileProgress } from '../protocol/protocol';

/** How often a request's byte counts reach the page: ten times a second is smooth on a progress bar. */
const PROGRESS_INTERVAL_MS = 100;

export interface ProgressThrottle {
  report: (progress: FileProgress) => void;
  /** Posts what is held back (before the request answers), and stops the timer. */
  flush: () => void;
}

/**
 * Holds back a request's progress between posts. A pack read from the offline copy arrives in 64 KB
 * chunks, about 900 for mini-clip, and each one posted cost the page about 0.85 ms of its main thread
 * (a React update), 0.7 s in all on a 2-core machine while the worker loads (issue 38's trace). A new
 * file and a finished one are posted at once, so the list of files and their ends are never late; the
 * counts in between are posted at most every `intervalMs`, the latest per file, with a timer so that a
 * count is never held longer than that.
 */
export function throttleProgress(post: (progress: FileProgress) => void, intervalMs = PROGRESS_INTERVAL_MS, now: () => number = Date.now): ProgressThrottle {
  const seen = new Set<string>();
  const held = new Map<string, FileProgress>();
  let lastPost = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (held.size === 0) return;
    lastPost = now();
    const due = [...held.values()];
    held.clear();
    for (const progress of due) post(progress);
  };

  const report = (progress: FileProgress) => {
    const isNew = !seen.has(progress.file);
    const finished = progress.total !== null && progress.loaded >= progress.total;
    if (isNew || finished || now() - lastPost >= intervalMs) {
      held.delete(progress.file);
      seen.add(progress.file);
      lastPost = now();
      post(progress);
      return;
    }
    held.set(progress.file, progress);
    timer ??= setTimeout(flush, Math.max(0, intervalMs - (now() - lastPost)));
  };

  return { report, flush };
}
