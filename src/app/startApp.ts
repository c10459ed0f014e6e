import { restoreConversation } from './chatController';
import { initKiosk } from './kiosk';
import { loadModels } from './modelLoader';
import { startOffline } from './offlineController';
import { installShortcuts } from './shortcuts';

let started = false;

/** Restores the conversation, loads the model pack and keeps the demo for offline use, once per page (StrictMode mounts twice in dev). */
export function startApp(): void {
  if (started) return;
  started = true;
  installShortcuts();
  initKiosk();
  void restoreConversation();
  void loadModels();
  startOffline();
}
