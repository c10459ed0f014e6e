import { restoreConversation } from '../features/chat/chatController';
import { initKiosk } from '../features/kiosk/kiosk';
import { loadModels } from '../features/models/modelLoader';
import { startOffline } from '../features/offline/offlineController';
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
