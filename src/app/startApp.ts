import { answerInterruptedTurnWhenReady, startNewConversation } from '../features/chat/chatController';
import { reloadClevrAnswerers } from '../features/clevr/clevrController';
import { askBeforeClosingWithUnsavedTurns, followOtherTabs, restoreConversation } from '../features/chat/chatPersistence';
import { onConversationActivity, useChatStore } from '../features/chat/chatStore';
import { preparePageForFirstTurn, warmPhotoPathWhenIdle } from '../features/chat/warmUp';
import { initKiosk } from '../features/kiosk/kiosk';
import { sessionMetricsActions } from '../features/metrics/sessionMetricsStore';
import { choosePackAndLoad, loadModels } from '../features/models/modelLoader';
import { watchForTabCrash } from '../features/models/tabCrash';
import { restorePackDownloads } from '../features/models/packDownloads';
import { startOffline } from '../features/offline/offlineController';
import { resumeInterruptedImports } from '../features/pool/poolController';
import { onScoredTurn } from '../shared/scoredTurns';
import { useModelStore } from '../shared/stores/modelStore';
// Starts the model worker and provides it to the features, before anything renders.
import { restartWorkerAfterCrash } from './workerHost';
import { installShortcuts } from './shortcuts';

let started = false;

/**
 * Connects the features, which never import each other, then restores the conversation, loads the
 * model pack and keeps the demo for offline use; once per page (StrictMode mounts twice in dev).
 */
export function startApp(): void {
  if (started) return;
  started = true;
  // Turns scored by a replay or by the visitor's answer feed the running means.
  onScoredTurn(sessionMetricsActions.record);
  // Once a pack has loaded: warm the photo path, and datasets whose embedding a reload interrupted go on.
  useModelStore.subscribe((state, previous) => {
    if (state.phase !== 'ready' || previous.phase === 'ready') return;
    // The first photo a visitor shares should not pay the cold start.
    warmPhotoPathWhenIdle();
    void resumeInterruptedImports();
  });
  const kiosk = initKiosk({
    // A kiosk reset leaves nothing for the next visitor to undo.
    startOver: () => startNewConversation({ undoable: false }),
    watchConversation: onConversationActivity,
    hasConversation: () => useChatStore.getState().messages.length > 0,
    showConversation: (kiosk) => restoreConversation(kiosk ? 'kiosk' : 'main'),
  });
  installShortcuts(kiosk);
  // Turns and new conversations of other tabs show here too, so no tab writes over another's.
  followOtherTabs();
  // Turns a failed save left in this tab's session storage would go with the tab: closing it asks first.
  askBeforeClosingWithUnsavedTurns();
  // A turn a reload interrupted (its reply, or its video's watching) is answered once the model is ready.
  answerInterruptedTurnWhenReady();
  // A crashed worker is replaced and given the same pack, pool and method (and CLEVR answerers, when
  // the view had them); the conversation stays.
  restartWorkerAfterCrash(async () => {
    await loadModels();
    await reloadClevrAnswerers();
  });
  // The last page of this tab crashed (out of memory takes the whole tab): said, with the default pack offered.
  watchForTabCrash((packId) => void choosePackAndLoad(packId));
  void loadModels();
  preparePageForFirstTurn();
  // Downloads a reload interrupted go on; finished ones are listed in Settings.
  void restorePackDownloads();
  startOffline({
    replyInFlight: () => useChatStore.getState().awaitingReply,
    onReplyInFlightChange: (listener) =>
      useChatStore.subscribe((state, prev) => {
        if (state.awaitingReply !== prev.awaitingReply) listener(state.awaitingReply);
      }),
  });
}
