import { assertNever, errorMessage } from '../../engine/errors';
import { runtimeBuild } from '../../engine/onnx/executionPlan';
import { detectCapabilities } from '../../protocol/capabilities';
import { useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { CACHE_PREFIX } from '../../sw/offlineCache';
import { type CachePackReply, type PageToServiceWorker, type ServiceWorkerBroadcast, isBroadcast } from '../../sw/protocol';
import { MAX_PAUSE_MS } from '../../sw/turnGate';
import { offlineActions, useOfflineStore } from './offlineStore';

/**
 * Keeps the demo for offline use through the service worker of the production build (sw.js), and
 * tells the header badge how far that is. The badge says "offline ready" once the worker's version
 * is completely stored and the pack in use is stored too.
 */

/** What the offline copy needs from the rest of the page; app/startApp.ts wires it to the chat. */
export interface OfflineHost {
  /** A reply is on its way: the reload an update needs would lose it. */
  replyInFlight(): boolean;
  /** Calls `listener` when a reply starts being answered (true) and when it has arrived (false). */
  onReplyInFlightChange(listener: (inFlight: boolean) => void): void;
}

const BASE = import.meta.env.BASE_URL;

function percent(done: number, total: number): number {
  return total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 0;
}

/** The page's offline copy: its service worker registration and what is being stored, held by one object rather than module variables. */
class OfflineCopy {
  private registration: ServiceWorkerRegistration | null = null;
  /** The last install failure the worker announced, for when its installing worker turns redundant. */
  private installFailure: string | null = null;
  /** The version whose install failed: its late progress messages are ignored. */
  private failedVersion: string | null = null;
  /** Bumped per pack request, so a late reply about a previous pack is ignored. */
  private packRequest = 0;
  /** The pack being stored now: worker state changes ask again, and one request per pack is enough. */
  private packInFlight: string | null = null;
  private started = false;
  private host: OfflineHost | null = null;
  /** Counts the busy messages sent, so each is numbered. */
  private busyMessages = 0;

  start(offlineHost: OfflineHost): void {
    if (this.started) return;
    this.started = true;
    this.host = offlineHost;
    if (!import.meta.env.PROD) {
      // The dev server must never be answered from an offline copy that a production build left here.
      void removeServiceWorker();
      return;
    }
    if (!('serviceWorker' in navigator)) {
      offlineActions.unavailable(
        'This browser cannot keep the demo for offline use (no service workers; some private windows turn them off). It works online as usual.',
      );
      return;
    }
    if (!window.isSecureContext) {
      offlineActions.unavailable(
        `Offline use needs a secure address (https:// or http://localhost); ${window.location.origin} is not one, so the demo works online only.`,
      );
      return;
    }
    // The offline copy waits while the model loads and while a reply is answered (sw/turnGate.ts). A long
    // load or turn says so again before the service worker's pause lapses.
    let replyInFlight = false;
    let keepBusy: ReturnType<typeof setInterval> | undefined;
    const busyNow = () => replyInFlight || useModelStore.getState().phase === 'loading';
    const tellBusyNow = () => {
      const busy = busyNow();
      void this.tellBusy(busy);
      clearInterval(keepBusy);
      keepBusy = busy ? setInterval(() => void this.tellBusy(busyNow()), MAX_PAUSE_MS / 2) : undefined;
    };
    offlineHost.onReplyInFlightChange((inFlight) => {
      replyInFlight = inFlight;
      tellBusyNow();
    });
    useModelStore.subscribe((state, previous) => {
      if ((state.phase === 'loading') !== (previous.phase === 'loading')) tellBusyNow();
    });
    if (busyNow()) tellBusyNow();
    navigator.serviceWorker.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (isBroadcast(event.data)) this.onBroadcast(event.data);
    });
    // Registered once the model has loaded (or failed), so the first visit's model download does not share the network with the offline copy.
    const settled = () => ['ready', 'error'].includes(useModelStore.getState().phase);
    if (settled()) void this.register();
    else {
      const stop = useModelStore.subscribe(() => {
        if (!settled()) return;
        stop();
        void this.register();
      });
    }
    // A pack chosen later (Settings, ?pack=) is stored once it has loaded.
    useModelStore.subscribe((state, previous) => {
      if (state.phase === 'ready' && (previous.phase !== 'ready' || state.activePackId !== previous.activePackId)) void this.cacheActivePack();
    });
  }

  private async register(): Promise<void> {
    try {
      this.registration = await navigator.serviceWorker.register(`${BASE}sw.js`, { scope: BASE });
    } catch (error) {
      // With no network the browser may not re-check sw.js; the worker already in charge still serves.
      this.registration = (await navigator.serviceWorker.getRegistration(BASE).catch(() => undefined)) ?? null;
      if (!this.registration?.active) {
        offlineActions.failed(`The offline copy could not be set up (${errorMessage(error)}). The demo works online; reload to try again.`);
        return;
      }
    }
    const reg = this.registration;
    const watch = (worker: ServiceWorker | null) => worker?.addEventListener('statechange', () => this.onWorkerState(reg));
    reg.addEventListener('updatefound', () => {
      this.installFailure = null;
      watch(reg.installing);
      this.onWorkerState(reg);
    });
    watch(reg.installing);
    watch(reg.waiting);
    this.onWorkerState(reg);
  }

  private onWorkerState(reg: ServiceWorkerRegistration): void {
    const { phase } = useOfflineStore.getState();
    const pending = reg.installing ?? reg.waiting;
    if (reg.active) {
      // A newer version waits while this page runs; it is offered as a reload, never swapped in under the chat.
      offlineActions.updateWaiting(reg.waiting !== null && navigator.serviceWorker.controller !== null);
      if (reg.active.state === 'activated' && (phase === 'off' || phase === 'caching')) void this.cacheActivePack();
      else if (reg.active.state !== 'activated') reg.active.addEventListener('statechange', () => this.onWorkerState(reg), { once: true });
      if (!pending && this.installFailure) {
        offlineActions.note(`An update of the offline copy could not be stored: ${this.installFailure} The current offline copy still works.`);
        this.installFailure = null;
      }
      return;
    }
    if (pending) {
      if (phase !== 'caching') offlineActions.caching(null);
      return;
    }
    offlineActions.failed(this.installFailure ?? 'The offline copy could not be stored. Reload to try again; the demo keeps working online.');
  }

  private onBroadcast(message: ServiceWorkerBroadcast): void {
    switch (message.type) {
      case 'install-progress':
        // Progress of an update installing behind a ready copy is not shown: the badge stays "offline ready".
        // Downloads in flight still report after their version failed: that progress must not hide the failure.
        if (message.version === this.failedVersion) return;
        if (useOfflineStore.getState().phase !== 'ready') offlineActions.caching(percent(message.doneBytes, message.totalBytes));
        return;
      case 'install-failed':
        this.failedVersion = message.version;
        this.installFailure = message.message;
        if (this.registration) this.onWorkerState(this.registration);
        return;
      default:
        assertNever(message);
    }
  }

  /**
   * Asks the active worker to store the pack in use (nothing to do for the default pack, which install
   * stored) and, where the model worker runs it, onnxruntime's WebGPU-capable build.
   */
  private async cacheActivePack(): Promise<void> {
    const active = this.registration?.active;
    const { phase, activePackId } = useModelStore.getState();
    if (!active || active.state !== 'activated' || phase !== 'ready' || !activePackId || this.packInFlight === activePackId) return;
    this.packInFlight = activePackId;
    const request = ++this.packRequest;
    const finish = () => {
      channel.port1.close();
      if (this.packInFlight === activePackId) this.packInFlight = null;
    };
    const channel = new MessageChannel();
    channel.port1.onmessage = (event: MessageEvent<CachePackReply>) => {
      if (request !== this.packRequest) return;
      const reply = event.data;
      switch (reply.type) {
        case 'progress':
          if (reply.totalBytes > 0 && reply.doneBytes < reply.totalBytes) offlineActions.caching(percent(reply.doneBytes, reply.totalBytes));
          return;
        case 'done':
          finish();
          offlineActions.ready(reply.version, activePackId);
          void this.askPersistence();
          return;
        case 'failed':
          finish();
          offlineActions.failed(reply.message);
          return;
        default:
          assertNever(reply);
      }
    };
    // The onnxruntime build the worker runs follows from the same capabilities, so the copy keeps that build.
    const message: PageToServiceWorker = { type: 'cache-pack', packId: activePackId, runtime: runtimeBuild(await detectCapabilities(false)) };
    active.postMessage(message, [channel.port2]);
  }

  /**
   * Tells the service worker that the page is busy (the model loading, a reply being answered) or no longer:
   * storing the offline copy starts no new download meanwhile, so it does not compete with the visitor
   * (sw/turnGate.ts). Sent to the worker that is installing, the one waiting and the active one, since any
   * of them may be storing files.
   */
  private async tellBusy(busy: boolean): Promise<void> {
    const seq = ++this.busyMessages;
    const reg = this.registration ?? (await navigator.serviceWorker.getRegistration(BASE).catch(() => undefined)) ?? null;
    const message: PageToServiceWorker = { type: 'busy', busy, seq };
    // On <html data-offline-busy> for the e2e test, which matches it with the service worker's stamps (turnGate.ts).
    document.documentElement.dataset['offlineBusy'] = `${busy ? 'busy' : 'idle'}-${seq}`;
    for (const worker of new Set([reg?.installing, reg?.waiting, reg?.active])) worker?.postMessage(message);
  }

  /** Asks the browser not to evict the offline copy when space runs low (granted silently or not at all by most). */
  private async askPersistence(): Promise<void> {
    if (useOfflineStore.getState().persisted !== null || !navigator.storage?.persist) return;
    try {
      offlineActions.persisted((await navigator.storage.persisted()) || (await navigator.storage.persist()));
    } catch {
      offlineActions.persisted(false);
    }
  }

  /** Switches to the stored newer version: reloads the page (the conversation is saved and comes back). */
  applyUpdate(): void {
    const waiting = this.registration?.waiting;
    if (!waiting) return;
    if (this.host?.replyInFlight()) {
      noticeActions.notify('info', 'A reply is on its way; update once it has arrived.');
      return;
    }
    navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true });
    const message: PageToServiceWorker = { type: 'skip-waiting' };
    waiting.postMessage(message);
  }
}

/** The page's one offline copy. */
const offlineCopy = new OfflineCopy();

export function startOffline(offlineHost: OfflineHost): void {
  offlineCopy.start(offlineHost);
}

/** Switches to the stored newer version: reloads the page (the conversation is saved and comes back). */
export function applyUpdate(): void {
  offlineCopy.applyUpdate();
}

async function removeServiceWorker(): Promise<void> {
  try {
    for (const reg of (await navigator.serviceWorker?.getRegistrations()) ?? []) {
      if ((reg.active ?? reg.waiting ?? reg.installing)?.scriptURL.endsWith(`${BASE}sw.js`)) await reg.unregister();
    }
    for (const name of await caches.keys()) if (name.startsWith(CACHE_PREFIX)) await caches.delete(name);
  } catch {
    // Nothing left over to remove, or no access to storage: either way the dev server answers.
  }
}
