import { useShallow } from 'zustand/react/shallow';
import { pauseReplay, resumeReplay, stepReplay, stopReplay } from './replayController';
import { useReplayStore } from './replayStore';

const button =
  'rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 disabled:text-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

/** Pause, resume, one step at a time and stop, with a sentence saying where the replay is. */
export function ReplayControls() {
  const { phase, dialogue, shown, composing, replayed, error } = useReplayStore(
    useShallow((s) => ({
      phase: s.machine.phase,
      dialogue: s.machine.dialogue,
      shown: s.machine.shown,
      composing: s.machine.composing,
      replayed: s.machine.replayed.length,
      error: s.machine.error,
    })),
  );
  if (phase === 'idle') return null;
  const total = dialogue?.turns.length ?? 0;
  const status =
    phase === 'loading'
      ? 'Loading the dialogue…'
      : phase === 'finished'
        ? `Finished: ${replayed} reference turn${replayed === 1 ? '' : 's'} of ${dialogue?.split} dialogue ${dialogue?.id} scored.`
        : composing !== null
          ? `Composing the engine’s reply to turn ${composing + 1} of ${total}…`
          : `${phase === 'paused' ? 'Paused' : 'Playing'} ${dialogue?.split} dialogue ${dialogue?.id}: ${shown} of ${total} turns shown.`;

  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Replay controls">
      {phase === 'playing' && (
        <button type="button" className={button} onClick={pauseReplay}>
          Pause
        </button>
      )}
      {phase === 'paused' && (
        <button type="button" className={button} onClick={resumeReplay}>
          Resume
        </button>
      )}
      <button type="button" className={button} onClick={stepReplay} disabled={phase !== 'paused' || composing !== null}>
        Step
      </button>
      <button type="button" className={button} onClick={stopReplay}>
        Stop
      </button>
      <p className="w-full text-sm text-slate-700" role="status" data-testid="replay-status">
        {status}
      </p>
      {error && (
        <p role="alert" className="w-full rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 ring-1 ring-red-200">
          {error}
        </p>
      )}
    </div>
  );
}
