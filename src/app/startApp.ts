import { restoreConversation } from './chatController';
import { loadModels } from './modelLoader';

let started = false;

/** Restores the conversation and loads the model pack, once per page (StrictMode mounts twice in dev). */
export function startApp(): void {
  if (started) return;
  started = true;
  void restoreConversation();
  void loadModels();
}
