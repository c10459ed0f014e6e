import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { TurnScores } from '../../shared/scores/TurnScores';
import { describeScore } from '../../shared/scores/metricText';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { PoolImage } from '../../shared/ui/PoolImage';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import type { ReferenceElement } from '../../protocol/protocol';
import type { ReplayedTurn } from './replayMachine';
import { useReplayStore } from './replayStore';

const speaker = (turn: number) => (turn % 2 === 0 ? 'Speaker A' : 'Speaker B');

function Elements({ elements, testId }: { elements: readonly ReferenceElement[]; testId: string }) {
  const poolId = useSettingsStore((s) => s.poolId);
  const emoji = useEmojiText();
  return (
    <div className="flex flex-col gap-2" data-testid={testId}>
      {elements.map((e, i) =>
        e.kind === 'text' ? (
          <p key={i} className="whitespace-pre-wrap break-words">
            {emoji(e.text)}
          </p>
        ) : (
          <PoolImage key={`${e.key}-${i}`} element={{ ...e, poolId }} />
        ),
      )}
    </div>
  );
}

/** One reference turn: the engine's reply beside the reference, and the turn's three figures. */
function ReplayedTurnView({ replayed, reference }: { replayed: ReplayedTurn; reference: readonly ReferenceElement[] }) {
  const { turn, reply, score } = replayed;
  return (
    <li aria-label={`Turn ${turn + 1}`} className="flex flex-col gap-2 rounded-xl bg-white p-3 shadow-sm" data-testid="replayed-turn">
      <div className="grid gap-3 sm:grid-cols-2">
        <section aria-label="The engine’s reply" className="flex flex-col gap-1 rounded-lg bg-blue-50 p-2">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-blue-900">Engine’s reply</h3>
          <Elements elements={reply.elements} testId="replay-reply" />
          <p className="text-xs text-slate-700">
            {reply.method} · intent {reply.intentModel === 'head' ? 'trained' : 'majority'} · {reply.timings.totalMs.toFixed(0)} ms
          </p>
        </section>
        <section aria-label="The reference" className="flex flex-col gap-1 rounded-lg bg-slate-100 p-2">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-800">Reference · {speaker(turn)}</h3>
          <Elements elements={reference} testId="replay-reference" />
        </section>
      </div>
      <TurnScores score={score} label={`Scores of turn ${turn + 1}`} />
    </li>
  );
}

/** The dialogue as it plays: the first turn, then each reference turn beside the engine's reply. */
export function ReplayTranscript() {
  const { dialogue, shown, composing, replayed } = useReplayStore(
    useShallow((s) => ({ dialogue: s.machine.dialogue, shown: s.machine.shown, composing: s.machine.composing, replayed: s.machine.replayed })),
  );
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [shown, composing]);
  const latest = replayed.at(-1);
  if (!dialogue) return null;
  return (
    <>
      <ol className="flex flex-col gap-3" aria-label="Replayed dialogue">
        {shown > 0 && (
          <li aria-label="Turn 1" className="flex flex-col gap-1 rounded-xl bg-white p-3 shadow-sm">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-800">Context · {speaker(0)}</h3>
            <Elements elements={dialogue.turns[0]!.elements} testId="replay-context" />
          </li>
        )}
        {replayed.map((r) => (
          <ReplayedTurnView key={r.turn} replayed={r} reference={dialogue.turns[r.turn]!.elements} />
        ))}
        {composing !== null && (
          <li className="text-sm text-slate-600" aria-label={`Turn ${composing + 1}`}>
            The engine is composing its reply to turn {composing + 1}…
          </li>
        )}
        <li ref={end} aria-hidden="true" />
      </ol>
      {/* Announces each new turn's figures once, without reading the whole transcript again. */}
      <p className="sr-only" aria-live="polite">
        {latest && `Turn ${latest.turn + 1}: ${describeScore(latest.score)}`}
      </p>
    </>
  );
}
