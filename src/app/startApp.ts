import { restoreConversation } from './chatController';
import { initKiosk } from './kiosk';
import { loadModels } from './modelLoader';
import { installShortcuts } from './shortcuts';

let started = false;

/** Restores the conversation and loads the model pack, once per page (StrictMode mounts twice in dev). */
export function startApp(): void {
  if (started) return;
  started = true;
  installShortcuts();
  initKiosk();
  void restoreConversation();
  void loadModels();
}
