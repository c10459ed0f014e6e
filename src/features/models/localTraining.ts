import { errorMessage } from '../../engine/errors';
import { modelWorker } from '../../shared/modelWorker';
import { noticeActions } from '../../shared/stores/noticeStore';
import { isCancelledCall } from '../../protocol/client';
import { LatestCall } from '../../shared/latestCall';

/** The page's trainHeads call while training runs: aborting it stops the training in the worker. */
const training = new LatestCall();

/** Trains clip-map and the intent head in the worker (Settings); news of it comes as 'localHeads' events. */
export function trainLocalHeads(): void {
  const signal = training.start();
  modelWorker()
    .call('trainHeads', {}, { signal })
    .catch((error: unknown) => {
      // A cancel is what the person asked for: the heads line says training stopped, and nothing is red.
      if (!isCancelledCall(error)) noticeActions.notify('error', `Training could not start: ${errorMessage(error)}`);
    })
    .finally(() => training.finish(signal));
}

/** Stops the training under way, whether Settings or the pack's load started it (the call then joins it first). */
export function cancelLocalTraining(): void {
  if (!training.running) trainLocalHeads();
  training.cancel();
}
