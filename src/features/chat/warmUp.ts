import { engine } from '../../shared/engine';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { useChatStore } from './chatStore';

/** A small photo drawn on the spot (JPEG, as most shared photos are), so warming fetches nothing. */
async function syntheticPhoto(): Promise<Blob> {
  const canvas = new OffscreenCanvas(96, 64);
  const context = canvas.getContext('2d');
  if (context) {
    const gradient = context.createLinearGradient(0, 0, 96, 64);
    gradient.addColorStop(0, '#3b82f6');
    gradient.addColorStop(1, '#f59e0b');
    context.fillStyle = gradient;
    context.fillRect(0, 0, 96, 64);
  }
  return canvas.convertToBlob({ type: 'image/jpeg', quality: 0.8 });
}

/**
 * Runs one photo turn that nobody sees (decode, detector, image tower, caption bank, intent, ranking),
 * so the first photo a visitor shares finds every session compiled and every bank embedded. The worker
 * answers requests in order, so a photo shared meanwhile waits only for the rest of this one.
 */
async function warmPhotoPath(): Promise<void> {
  if (useChatStore.getState().awaitingReply) return;
  try {
    await engine().call('reply', {
      history: [],
      texts: ['look at this'],
      images: [{ name: 'warm-up.jpg', blob: await syntheticPhoto(), imageId: 'warm-up' }],
      method: useSettingsStore.getState().method,
    });
  } catch {
    // Warming is an optimisation: a real photo then pays the cold start, and reports its own errors.
  }
}

/** Warms the photo path once the page is idle after Ready (at most half a second later). */
export function warmPhotoPathWhenIdle(): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void warmPhotoPath(), { timeout: 500 });
  else setTimeout(() => void warmPhotoPath(), 0);
}
