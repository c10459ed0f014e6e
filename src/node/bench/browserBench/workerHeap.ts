import type { Browser } from '@playwright/test';

/** What a dedicated worker holds: V8's JS heap in use, and the backing stores of its ArrayBuffers and WebAssembly memories. */
export interface WorkerHeap {
  url: string;
  usedBytes: number;
  backingStoreBytes: number;
}

interface HeapUsage {
  usedSize: number;
  backingStorageSize?: number;
}

/**
 * The heap of every dedicated worker in the browser whose URL contains `match`, through the DevTools
 * protocol (Runtime.getHeapUsage in the worker's own target). Playwright opens CDP sessions on pages
 * only, so the worker is reached with Target.sendMessageToTarget on a browser session.
 */
export async function workerHeaps(browser: Browser, match: string): Promise<WorkerHeap[]> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const heaps: WorkerHeap[] = [];
    for (const target of targetInfos.filter((t) => t.type === 'worker' && t.url.includes(match))) {
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
      const usage = await new Promise<HeapUsage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`The worker ${target.url} did not answer Runtime.getHeapUsage.`)), 10_000);
        const onMessage = (event: { sessionId?: string; message: string }) => {
          if (event.sessionId !== sessionId) return;
          const message = JSON.parse(event.message) as { id?: number; result?: HeapUsage };
          if (message.id !== 1 || !message.result) return;
          clearTimeout(timer);
          cdp.off('Target.receivedMessageFromTarget', onMessage);
          resolve(message.result);
        };
        cdp.on('Target.receivedMessageFromTarget', onMessage);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }) });
      });
      heaps.push({ url: target.url, usedBytes: usage.usedSize, backingStoreBytes: usage.backingStorageSize ?? 0 });
      await cdp.send('Target.detachFromTarget', { sessionId });
    }
    return heaps;
  } finally {
    await cdp.detach();
  }
}
