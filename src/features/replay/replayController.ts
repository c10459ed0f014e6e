import { errorMessage } from '../../engine/errors';
import { modelWorker } from '../../shared/modelWorker';
import { reportScoredTurn } from '../../shared/scoredTurns';
import { StepTimer } from '../../shared/stepTimer';
import { useModelStore } from '../../shared/stores/modelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import type { ReferenceSplit } from '../../protocol/protocol';
import { nextReplayStep } from './replayMachine';
import { REPLAY_SPEEDS, replayActions, useReplayStore } from './replayStore';

/** The next step of the replay in progress; one at a time. */
const stepTimer = new StepTimer();

/**
 * Lists the chosen split's dialogues for the chooser, once per pool and split (the worker reads them
 * from the pool's reference dialogues: the demo's, or a dataset's stored splits).
 */
export async function listReferenceDialogues(): Promise<void> {
  const { split, listedFor } = useReplayStore.getState();
  const { phase, pool } = useModelStore.getState();
  const key = `${pool?.poolId ?? ''}:${split}`;
  if (phase !== 'ready' || listedFor === key) return;
  replayActions.listing(key);
  try {
    const listed = await modelWorker().call('listReferenceDialogues', { split });
    replayActions.listed(key, listed.dialogues);
  } catch (error) {
    replayActions.listFailed(`The ${split} dialogues could not be listed: ${errorMessage(error)}`);
  }
}

export function chooseSplit(split: ReferenceSplit): void {
  replayActions.chooseSplit(split);
  void listReferenceDialogues();
}

/** Starts a replay of the chosen dialogue ("random" picks one of the split's dialogues). */
export async function startReplay(): Promise<void> {
  stepTimer.clear();
  const { split, choice, dialogues } = useReplayStore.getState();
  if (useModelStore.getState().phase !== 'ready') {
    replayActions.listFailed('The model is not ready yet. Wait for the status to say "Ready", then start the replay.');
    return;
  }
  if (!dialogues || dialogues.length === 0) {
    replayActions.listFailed(`There are no ${split} dialogues to replay yet. Wait for the list, or choose another split.`);
    return;
  }
  const dialogueId = choice === 'random' ? dialogues[Math.floor(Math.random() * dialogues.length)]!.id : choice;
  replayActions.dispatch({ type: 'start' });
  const run = useReplayStore.getState().machine.run;
  try {
    const dialogue = await modelWorker().call('loadReferenceDialogue', { split, dialogueId });
    replayActions.dispatch({ type: 'loaded', run, dialogue });
    await advance(run);
  } catch (error) {
    replayActions.dispatch({ type: 'failed', run, message: `The replay could not start: ${errorMessage(error)}` });
  }
}

/** Does the next step of the replay (show the first turn, or compose and score a reference turn), then schedules the one after while playing. */
async function advance(run: number): Promise<void> {
  const { machine, split } = useReplayStore.getState();
  if (machine.run !== run || !machine.dialogue) return;
  const step = nextReplayStep(machine);
  if (!step) return;
  if (step.kind === 'show') {
    replayActions.dispatch({ type: 'shown', run, turn: step.turn });
  } else {
    const dialogue = machine.dialogue;
    replayActions.dispatch({ type: 'composing', run, turn: step.turn });
    try {
      const { reply, score } = await modelWorker().call('replayTurn', {
        split,
        dialogueId: dialogue.id,
        turn: step.turn,
        method: useSettingsStore.getState().method,
      });
      if (useReplayStore.getState().machine.run !== run) return; // stopped or restarted meanwhile
      replayActions.dispatch({ type: 'scored', run, turn: step.turn, reply, score });
      reportScoredTurn({
        id: `replay:${run}:${split}:${dialogue.id}:${step.turn}`,
        source: 'replay',
        label: `${split} dialogue ${dialogue.id}, turn ${step.turn + 1}`,
        figures: { mmRelevance: score.mmRelevance.f1, intentF1: score.intentF1.f1, ranks: score.ranks },
      });
    } catch (error) {
      replayActions.dispatch({ type: 'failed', run, message: `No reply for turn ${step.turn + 1}: ${errorMessage(error)}` });
      return;
    }
  }
  schedule(run);
}

function schedule(run: number): void {
  const { machine, speed } = useReplayStore.getState();
  stepTimer.clear();
  if (machine.run === run && machine.phase === 'playing' && nextReplayStep(machine)) stepTimer.schedule(REPLAY_SPEEDS[speed], () => void advance(run));
}

export function pauseReplay(): void {
  stepTimer.clear();
  replayActions.dispatch({ type: 'pause' });
}

export function resumeReplay(): void {
  if (useReplayStore.getState().machine.phase !== 'paused') return;
  replayActions.dispatch({ type: 'resume' });
  const { machine } = useReplayStore.getState();
  if (machine.composing === null) void advance(machine.run);
}

/** One step while paused: the next turn, and its reply and scores. */
export function stepReplay(): void {
  const { machine } = useReplayStore.getState();
  if (machine.phase === 'paused') void advance(machine.run);
}

export function stopReplay(): void {
  stepTimer.clear();
  replayActions.dispatch({ type: 'stop' });
}
