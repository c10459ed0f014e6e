import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { chooseSplit, listReferenceDialogues, startReplay } from './replayController';
import { useModelStore } from '../../shared/stores/modelStore';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import { REPLAY_SPEEDS, type ReplaySpeed, replayActions, useReplayStore } from './replayStore';
import { REFERENCE_SPLITS } from '../../protocol/protocol';

const field = 'rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

/** Which reference dialogue to replay (a split, then a dialogue of it or "random") and how fast. */
export function DialogueChooser() {
  const { split, choice, dialogues, listError, phase, speed } = useReplayStore(
    useShallow((s) => ({ split: s.split, choice: s.choice, dialogues: s.dialogues, listError: s.listError, phase: s.machine.phase, speed: s.speed })),
  );
  const ready = useModelStore((s) => s.phase === 'ready');
  const poolId = useModelStore((s) => s.pool?.poolId);
  const emoji = useEmojiText();
  useEffect(() => {
    void listReferenceDialogues();
  }, [ready, poolId, split]);
  const busy = phase === 'loading' || phase === 'playing' || phase === 'paused';

  return (
    <form
      className="flex flex-wrap items-end gap-3"
      aria-label="Choose a reference dialogue"
      onSubmit={(e) => {
        e.preventDefault();
        void startReplay();
      }}
    >
      <label className="flex flex-col gap-1 text-xs text-slate-700">
        Split
        <select value={split} onChange={(e) => chooseSplit(e.target.value as (typeof REFERENCE_SPLITS)[number])} className={field}>
          {REFERENCE_SPLITS.map((s) => (
            <option key={s} value={s}>
              {s === 'test' ? 'Test' : 'Valid'}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs text-slate-700">
        Dialogue
        <select value={choice} onChange={(e) => replayActions.choose(e.target.value)} className={`${field} min-w-0`} disabled={!dialogues}>
          <option value="random">Random</option>
          {dialogues?.map((d) => (
            <option key={d.id} value={d.id}>
              {d.id} · {d.turns} turns · {emoji(d.preview)}
            </option>
          ))}
        </select>
      </label>
      {/* The pace applies from the next step on, so it can change while a replay plays. */}
      <label className="flex flex-col gap-1 text-xs text-slate-700">
        Speed
        <select value={speed} onChange={(e) => replayActions.setSpeed(e.target.value as ReplaySpeed)} className={field}>
          {(Object.keys(REPLAY_SPEEDS) as ReplaySpeed[]).map((s) => (
            <option key={s} value={s}>
              {s} ({(REPLAY_SPEEDS[s] / 1000).toFixed(1)} s a step)
            </option>
          ))}
        </select>
      </label>
      <button
        type="submit"
        disabled={!ready || !dialogues || busy}
        className="rounded-lg bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:bg-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
      >
        Start replay
      </button>
      {!ready && <p className="w-full text-xs text-slate-600">The dialogues can be chosen once the model says “Ready”.</p>}
      {listError && (
        <p role="alert" className="w-full rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 ring-1 ring-red-200">
          {listError}
        </p>
      )}
    </form>
  );
}
