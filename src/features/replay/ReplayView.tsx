import type { ReactNode } from 'react';
import { MetricsHelp } from '../../shared/scores/MetricsHelp';
import { DialogueChooser } from './DialogueChooser';
import { ReplayControls } from './ReplayControls';
import { ReplayTranscript } from './ReplayTranscript';
import { useReplayStore } from './replayStore';

/**
 * Replay mode: a reference dialogue plays turn by turn, and at each reference turn the engine answers
 * and is scored. `metrics` (the running means, from the metrics feature) is shown beside the transcript.
 */
export function ReplayView({ metrics }: { metrics: ReactNode }) {
  const idle = useReplayStore((s) => s.machine.phase === 'idle');
  return (
    <section aria-label="Replay a reference dialogue" className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto p-4">
      <p className="text-sm text-slate-700">
        Pick a dialogue of the demo’s test or valid split. Its turns play one by one; at every turn after the first the engine composes its own reply from the
        conversation so far, shown beside what the person really said, with the turn’s MM-Relevance, Intent F1 and R@1 — the figures the benchmark averages.
        Your chat is kept as it is.
      </p>
      <MetricsHelp />
      <DialogueChooser />
      <ReplayControls />
      <div className="grid items-start gap-3 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <div className="min-w-0">{idle ? null : <ReplayTranscript />}</div>
        <div className="lg:sticky lg:top-0">{metrics}</div>
      </div>
    </section>
  );
}
