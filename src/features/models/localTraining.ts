import { errorMessage } from '../../engine/errors';
import { modelWorker } from '../../shared/modelWorker';
import { noticeActions } from '../../shared/stores/noticeStore';
import { isCancelledCall } from '../../protocol/client';

/** The page's trainHeads call while training runs: aborting it stops the training in the worker. */
let training: AbortController | null = null;

/** Trains clip-map and the intent head in the worker (Settings); news of it comes as 'localHeads' events. */
export function trainLocalHeads(): void {
  const abort = new AbortController();
  training = abort;
  modelWorker()
    .call('trainHeads', {}, { signal: abort.signal })
    .catch((error: unknown) => {
      // A cancel is what the person asked for: the heads line says training stopped, and nothing is red.
      if (!isCancelledCall(error)) noticeActions.notify('error', `Training could not start: ${errorMessage(error)}`);
    })
    .finally(() => {
      if (training === abort) training = null;
    });
}

/** Stops the training under way, whether Settings or the pack's load started it (the call then joins it first). */
export function cancelLocalTraining(): void {
  if (!training) trainLocalHeads();
  training?.abort();
}
